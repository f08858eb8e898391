// Admin → Expert mode: the runtime switch every Helm route closes with (docs/expert-mode.md).
// It shows whether expert mode is on and whether the chart installed the expert pod; it turns
// on only where it did, so without the pod the switch is disabled and says why. An admin's
// session only: the agent refuses it to every API key.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { expertMode, setExpertMode } from '../api/queries/helm';
import { ActionError, QueryView } from './states';

export function ExpertModeSwitch() {
  const client = useQueryClient();
  const state = useQuery(expertMode());
  const change = useMutation(setExpertMode(client));
  return (
    <QueryView query={state} what="expert mode">
      {(s) => {
        // Turning it off stays possible when the pod went away after it was turned on.
        const unavailable = !s.provisioned && !s.enabled;
        // While the change is on its way, the switch shows where it is going.
        const shown = change.isPending ? change.variables : s.enabled;
        return (
          <div className="stack">
            <p>
              Expert mode runs Helm (install, upgrade, roll back and uninstall charts, on the <Link href="/helm">Helm</Link> screen) through the expert pod, the one holder of cluster-admin. While it is off,
              every Helm route answers <code>expert_mode_disabled</code>.
            </p>
            <p role="status" data-testid="expert-mode-state">
              Expert mode is <strong>{s.enabled ? 'on' : 'off'}</strong>. {s.provisioned ? 'The chart installed the expert pod.' : 'The chart did not install the expert pod.'}
            </p>
            <label className="inline">
              <input
                type="checkbox"
                role="switch"
                checked={shown}
                disabled={unavailable || change.isPending}
                aria-describedby={unavailable ? 'expert-mode-unavailable' : undefined}
                onChange={(e) => change.mutate(e.target.checked)}
              />{' '}
              Expert mode
            </label>
            {unavailable ? (
              <p id="expert-mode-unavailable" className="muted">
                Unavailable: the expert pod is not installed. Set <code>expertMode.enabled=true</code> in the chart&apos;s values and upgrade Capstan, then turn it on here.
              </p>
            ) : null}
            {!s.provisioned && s.enabled ? <p className="error">Expert mode is on, but the chart no longer installs the expert pod: Helm answers <code>expert_not_installed</code> until it does again.</p> : null}
            <ActionError error={change.error} what={change.variables ? 'turn expert mode on' : 'turn expert mode off'} />
          </div>
        );
      }}
    </QueryView>
  );
}
