// An object's actions (restart, scale, delete, cordon): offered to admins, and only those the
// agent's RBAC grants (GET /actions/allowed). Each asks first, saying what will change, and
// shows the agent's refusal beside it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { act, allowedActions, type Action, type ActionKind } from '../api/queries/actions';
import { me } from '../api/queries/session';
import { ActionError } from './states';

interface Target {
  kind: ActionKind;
  namespace: string | null;
  name: string;
  /** A Deployment's desired replicas; a node's cordon. */
  replicas?: number;
  unschedulable?: boolean;
}

/** What an action will do, in the words the confirmation shows. */
function consequence(a: Action, replicasNow: number | undefined): string {
  switch (a.action) {
    case 'restart':
      return `Restart ${a.name}: every pod is replaced, a few at a time, as its rollout strategy allows.`;
    case 'scale':
      return `Scale ${a.name} from ${replicasNow ?? '?'} to ${a.replicas} replicas${a.replicas === 0 ? ': it will serve nothing' : ''}.`;
    case 'delete':
      return `Delete pod ${a.name}: its controller, if it has one, starts a replacement; a bare pod is gone for good.`;
    case 'cordon':
      return `Cordon ${a.name}: no new pod is scheduled there; the pods on it keep running.`;
    case 'uncordon':
      return `Uncordon ${a.name}: pods may be scheduled there again.`;
  }
}

export function ObjectActions({ target }: { target: Target }) {
  const client = useQueryClient();
  const who = useQuery(me());
  const admin = who.data?.role === 'admin';
  const allowed = useQuery({ ...allowedActions(target.kind, target.namespace), enabled: admin });
  const run = useMutation(act(client));
  const [asking, setAsking] = useState<Action | null>(null);
  const [replicas, setReplicas] = useState(String(target.replicas ?? 1));
  if (!admin || !allowed.data) return null;
  const can = allowed.data;
  const ns = target.namespace ?? '';
  const offers: { label: string; action: Action }[] = [];
  if (target.kind === 'deployments' && can.restart) offers.push({ label: 'Restart', action: { action: 'restart', namespace: ns, name: target.name } });
  if (target.kind === 'pods' && can.delete) offers.push({ label: 'Delete pod', action: { action: 'delete', namespace: ns, name: target.name } });
  if (target.kind === 'nodes' && target.unschedulable !== true && can.cordon) offers.push({ label: 'Cordon', action: { action: 'cordon', name: target.name } });
  if (target.kind === 'nodes' && target.unschedulable === true && can.uncordon) offers.push({ label: 'Uncordon', action: { action: 'uncordon', name: target.name } });
  const scalable = target.kind === 'deployments' && can.scale;
  if (offers.length === 0 && !scalable) return null;
  return (
    <section aria-labelledby="actions">
      <h2 id="actions">Actions</h2>
      <div className="filters">
        {offers.map((o) => (
          <button key={o.label} type="button" onClick={() => setAsking(o.action)}>
            {o.label}
          </button>
        ))}
        {scalable ? (
          <>
            <label>
              Replicas
              <input type="number" min={0} max={500} value={replicas} onChange={(e) => setReplicas(e.target.value)} />
            </label>
            <button type="button" onClick={() => setAsking({ action: 'scale', namespace: ns, name: target.name, replicas: Number(replicas) })}>Scale</button>
          </>
        ) : null}
      </div>
      {asking !== null ? (
        <div className="card confirm" role="group" aria-labelledby="confirm-action">
          <p id="confirm-action">{consequence(asking, target.replicas)}</p>
          <button
            type="button"
            onClick={() => {
              run.mutate(asking);
              setAsking(null);
            }}
          >
            Yes, {asking.action}
          </button>{' '}
          <button type="button" onClick={() => setAsking(null)} autoFocus>
            Cancel
          </button>
        </div>
      ) : null}
      {run.isSuccess ? <p role="status">Done: {run.variables.action} {run.variables.name}.</p> : null}
      <ActionError error={run.error} what={run.variables ? `${run.variables.action} ${run.variables.name}` : 'act'} />
    </section>
  );
}
