// Admin → License: the tier in force and why (an invalid or expired key runs Free), the
// licensee, expiry and features; install a key, or remove it. docs/licensing.md.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { installLicense, license, removeLicense, type License } from '../api/queries/license';
import { ActionError, QueryView } from '../components/states';
import { Time } from '../components/time';

const STATE_WORDS: Record<License['state'], string> = {
  none: 'No license key installed',
  valid: 'Valid',
  expired: 'Expired',
  invalid: 'Invalid',
};

function LicenseSummary({ l }: { l: License }) {
  return (
    <section className="card" aria-labelledby="license-summary">
      <h2 id="license-summary">Tier in force: {l.tier}</h2>
      <dl>
        <dt>State</dt>
        <dd>{STATE_WORDS[l.state]}{l.reason ? <>: {l.reason}</> : null}</dd>
        {l.key_tier && l.key_tier !== l.tier ? (<><dt>Key&apos;s tier</dt><dd>{l.key_tier} (not in force)</dd></>) : null}
        {l.licensee ? (<><dt>Licensee</dt><dd>{l.licensee}</dd></>) : null}
        {l.expires_at ? (<><dt>Expires</dt><dd><Time at={l.expires_at} /></dd></>) : null}
        {l.id ? (<><dt>License id</dt><dd><code>{l.id}</code></dd></>) : null}
        {l.source ? (<><dt>Installed by</dt><dd>{l.source === 'install' ? 'the chart (license.key)' : 'an admin'}</dd></>) : null}
        <dt>Licensed features</dt>
        <dd>{l.features.join(', ')}</dd>
      </dl>
    </section>
  );
}

function InstallForm() {
  const client = useQueryClient();
  const install = useMutation(installLicense(client));
  const [key, setKey] = useState('');
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), install.mutate(key.trim(), { onSuccess: () => setKey('') }));
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="install-license">
      <h2 id="install-license">Install a license key</h2>
      <label>
        License key (capstan1.…)
        <textarea rows={4} required spellCheck={false} autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
      </label>
      <ActionError error={install.error} what="install the license key" />
      <button type="submit" disabled={install.isPending}>Install key</button>
    </form>
  );
}

function RemoveButton() {
  const client = useQueryClient();
  const remove = useMutation(removeLicense(client));
  const [confirming, setConfirming] = useState(false);
  if (!confirming) return <button type="button" onClick={() => setConfirming(true)}>Remove license key</button>;
  return (
    <div className="card confirm" role="group" aria-labelledby="remove-license">
      <p id="remove-license">Removing the key returns this install to the Free tier at once; paid features answer with an upgrade card.</p>
      <button type="button" onClick={() => remove.mutate(undefined, { onSuccess: () => setConfirming(false) })}>Yes, remove the key</button>{' '}
      <button type="button" onClick={() => setConfirming(false)} autoFocus>Cancel</button>
      <ActionError error={remove.error} what="remove the license key" />
    </div>
  );
}

export function AdminLicense() {
  const query = useQuery(license());
  return (
    <>
      <h1>License</h1>
      <QueryView query={query} what="the license">
        {(l) => (
          <>
            <LicenseSummary l={l} />
            <InstallForm />
            {l.state === 'none' ? null : <RemoveButton />}
          </>
        )}
      </QueryView>
    </>
  );
}
