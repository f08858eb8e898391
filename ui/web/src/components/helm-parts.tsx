// The pieces the Helm screens share: the refusals that close Helm as a whole (expert mode off,
// no expert pod), query and action errors, the status badge, the started Task, a confirmation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../api/client';
import {
  helmTaskEnded,
  rollbackRelease,
  uninstallRelease,
  type HelmRelease,
  type HelmStatus,
  type HelmTaskStarted,
  type ReleaseRef,
} from '../api/queries/helm';
import { tasks, type Task } from '../api/queries/tasks';
import { ActionError, ErrorView, Loading } from '../components/states';


// ---------------------------------------------------------------------------------------------
// Refusals: Helm unreachable as a whole (expert mode off, no expert pod) reads differently from
// one request failing.

type ExpertRefusalKind = 'off' | 'not_installed';

export function expertRefusal(error: unknown): ExpertRefusalKind | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 403 && error.body.error === 'expert_mode_disabled') return 'off';
  if (error.status === 409 && error.body.error === 'expert_not_installed') return 'not_installed';
  return null;
}

export function ExpertRefusal({ kind, admin }: { kind: ExpertRefusalKind; admin: boolean }) {
  const id = useId();
  if (kind === 'off') {
    return (
      <section className="card notice" role="alert" aria-labelledby={id}>
        <h2 id={id}>Expert mode is off</h2>
        <p>Helm runs through the expert pod, and every Helm route stays closed until an admin turns expert mode on.</p>
        <p>{admin ? <Link href="/admin/expert-mode">Turn expert mode on under Admin → Expert mode</Link> : 'Ask an admin to turn it on under Admin → Expert mode.'}</p>
      </section>
    );
  }
  return (
    <section className="card notice" role="alert" aria-labelledby={id}>
      <h2 id={id}>The chart does not install the expert pod</h2>
      <p>
        Expert mode is on, but this Capstan was installed without the expert pod that Helm runs through: set <code>expertMode.enabled=true</code> in the chart&apos;s values and upgrade Capstan.
      </p>
    </section>
  );
}

/** A read's failure: expert mode's refusals as themselves, a release that is not there in words, anything else as every screen shows it. */
export function HelmErrorView({ error, admin, retry }: { error: unknown; admin: boolean; retry: () => void }) {
  const refusal = expertRefusal(error);
  if (refusal !== null) return <ExpertRefusal kind={refusal} admin={admin} />;
  return <ErrorView error={error} retry={retry} />;
}

/** QueryView, with Helm's refusals. */
export function HelmQueryView<T>({ query, what, admin, children }: { query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown }; what: string; admin: boolean; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error || query.data === undefined) return <HelmErrorView error={query.error} admin={admin} retry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/** A write's failure beside its control: expert mode's refusals as themselves, else "Could not …: reason". */
export function HelmActionError({ error, what, admin }: { error: unknown; what: string; admin: boolean }) {
  const refusal = expertRefusal(error);
  if (refusal !== null) return <ExpertRefusal kind={refusal} admin={admin} />;
  return <ActionError error={error} what={what} />;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces.

const STATUS_TONE: Record<HelmStatus, string> = {
  deployed: 'healthy',
  failed: 'critical',
  'pending-install': 'degraded',
  'pending-upgrade': 'degraded',
  'pending-rollback': 'degraded',
  uninstalling: 'degraded',
  superseded: 'unknown',
  uninstalled: 'unknown',
  unknown: 'unknown',
};

export function StatusBadge({ status }: { status: HelmStatus }) {
  return <span className={`badge ${STATUS_TONE[status]}`}>{status}</span>;
}

const TASK_WORDS: Record<Task['state'], string> = { running: 'running', finished: 'finished', failed: 'failed', stopped_reporting: 'stopped reporting' };

/**
 * A write answered its Task: say so, and that the tray follows it. This page reads the tray's
 * own poll (the same query), so when the Task ends the releases are read again.
 */
export function TaskStarted({ started, what }: { started: HelmTaskStarted; what: string }) {
  const client = useQueryClient();
  const all = useQuery(tasks());
  const task = all.data?.tasks.find((t) => t.id === started.task_id);
  const ended = task !== undefined && task.state !== 'running';
  useEffect(() => {
    if (ended) void helmTaskEnded(client);
  }, [ended, client]);
  return (
    <p role="status" data-testid="helm-task">
      Task started: {what} (task <code>{started.task_id}</code>). The Tasks tray in the header follows it
      {task !== undefined && ended ? <>; it {TASK_WORDS[task.state]}: {task.detail}</> : '.'}
    </p>
  );
}

/** A write that asks first: what it will do, then Yes or Cancel (Cancel focused). */
export function Confirm({ text, yes, onYes, onCancel }: { text: string; yes: string; onYes: () => void; onCancel: () => void }) {
  const id = useId();
  return (
    <div className="card confirm" role="group" aria-labelledby={id}>
      <p id={id}>{text}</p>
      <button type="button" onClick={onYes}>
        {yes}
      </button>{' '}
      <button type="button" onClick={onCancel} autoFocus>
        Cancel
      </button>
    </div>
  );
}

type Recovery = NonNullable<HelmRelease['stuck']>['recovery'];

const recoveryWords = (r: ReleaseRef, recovery: Recovery): string => (recovery.action === 'rollback' ? `Roll ${r.name} back to revision ${recovery.to_revision}` : `Uninstall ${r.name}`);

/** A stuck release: the agent's diagnosis, and for admins the safe way out it offers, confirmed first. */
export function StuckRecovery({ release: r, admin }: { release: HelmRelease; admin: boolean }) {
  const client = useQueryClient();
  const rollback = useMutation(rollbackRelease(client));
  const uninstall = useMutation(uninstallRelease(client));
  const [asking, setAsking] = useState(false);
  const id = useId();
  if (r.stuck === null) return null;
  const { recovery } = r.stuck;
  const offer = recoveryWords(r, recovery);
  const recover = () => {
    setAsking(false);
    if (recovery.action === 'rollback') rollback.mutate({ namespace: r.namespace, name: r.name, revision: recovery.to_revision });
    else uninstall.mutate({ namespace: r.namespace, name: r.name });
  };
  const started = rollback.data ?? uninstall.data;
  const consequence =
    recovery.action === 'rollback'
      ? `${offer}: Helm writes that revision's manifests and values back as a new revision, and the stuck operation is abandoned.`
      : `${offer}: Helm deletes every object of the release and its history; no revision was ever deployed to roll back to.`;
  return (
    <div className="stuck" role="group" aria-labelledby={id}>
      <p id={id}>
        <span className="flag">stuck</span> {r.stuck.message}
      </p>
      {admin ? (
        <>
          {started === undefined ? (
            <button type="button" onClick={() => setAsking(true)} aria-expanded={asking} disabled={rollback.isPending || uninstall.isPending}>
              {offer}
            </button>
          ) : null}
          {asking ? <Confirm text={consequence} yes={recovery.action === 'rollback' ? 'Yes, roll back' : 'Yes, uninstall'} onYes={recover} onCancel={() => setAsking(false)} /> : null}
          {started !== undefined ? <TaskStarted started={started} what={offer.toLowerCase()} /> : null}
          <HelmActionError error={rollback.error ?? uninstall.error} what={offer.toLowerCase()} admin={admin} />
        </>
      ) : (
        <p className="muted">The safe way out, an admin&apos;s action: {offer.toLowerCase()}.</p>
      )}
    </div>
  );
}

