// One object: what the list says of it, its conditions and events, and the object itself as
// YAML, read live and made safe by the agent (no managed fields, no Secret data,
// secret-looking values redacted). A built-in kind's page adds what the rest of Capstan knows
// of it: the diagnosis, its related objects in the cluster model, its resource history and
// its security findings, each from its own route (so a key without that scope sees the rest).
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { Link, useSearch } from 'wouter';
import { ApiError } from '../api/client';
import { why } from '../api/queries/diagnosis';
import { history } from '../api/queries/history';
import { KINDS, resourceDetail, type Kind, type ResourceDetail } from '../api/queries/resources';
import { pods } from '../api/queries/cluster';
import { me } from '../api/queries/session';
import { Empty, ErrorView, Loading, QueryView } from '../components/states';
import { Time } from '../components/time';
import { columnLabel, formatColumn } from '../components/format';
import { Neighbors } from '../components/neighbors';
import { ObjectActions } from '../components/object-actions';
import { WhyView } from '../components/why';
import { WorkloadFindings } from '../components/workload-findings';
import { WORKLOAD_KINDS } from '../security/view';

// The charts (uPlot) load with the history section, not with the app.
const HistoryCharts = lazy(() => import('./history').then((m) => ({ default: m.HistoryCharts })));

/** What every object's page shows, whatever its kind. */
export type ObjectDetailData = Pick<ResourceDetail, 'row' | 'yaml' | 'yaml_error' | 'events'>;

/** The page of any object: `links` under the heading, `children` (the kind's own sections) before conditions, events and YAML. */
export function ObjectDetail({ data, crumbs, links, children }: { data: ObjectDetailData; crumbs: ReactNode; links?: ReactNode; children?: ReactNode }) {
  const { row } = data;
  return (
    <>
      <p className="crumbs">{crumbs}</p>
      <h1>
        {row.kind} {row.name}
      </h1>
      <p>
        <span className={`badge ${row.problem ? 'critical' : 'healthy'}`}>{row.problem ? 'problem' : 'no problem'}</span> {row.status} · created <Time at={row.created_at} />
        {links}
      </p>
      <dl className="facts">
        {Object.entries(row.columns).map(([key, value]) => (
          <div key={key} style={{ display: 'contents' }}>
            <dt>{columnLabel(key)}</dt>
            <dd>{formatColumn(key, value)}</dd>
          </div>
        ))}
      </dl>
      {children}
      <section aria-labelledby="conditions">
        <h2 id="conditions">Conditions</h2>
        {row.conditions.length === 0 ? (
          <Empty>No conditions.</Empty>
        ) : (
          <ul>
            {row.conditions.map((c) => (
              <li key={c.type}>
                <strong>{c.type}</strong> {c.status}
                {c.reason ? ` (${c.reason})` : ''}
                {c.message ? `: ${c.message}` : ''} <Time at={c.lastTransition} />
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="events">
        <h2 id="events">Events</h2>
        {data.events.length === 0 ? (
          <Empty>No events about it.</Empty>
        ) : (
          <ul className="timeline">
            {data.events.map((e, i) => (
              <li key={i}>
                <Time at={e.last_seen} /> <span className={e.type === 'Warning' ? 'error' : undefined}>{e.reason}</span>
                {e.count > 1 ? ` ×${e.count}` : ''}: {e.message}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="yaml">
        <h2 id="yaml">YAML</h2>
        {data.yaml === null ? (
          <p className="error">Could not read it: {data.yaml_error}</p>
        ) : (
          <pre className="log tall" tabIndex={0} aria-label={`${row.kind} ${row.name} as YAML`} data-testid="object-yaml">
            {data.yaml}
          </pre>
        )}
      </section>
    </>
  );
}

/** Why it is unhealthy, up to the root cause; an object the diagnosis does not model says so. */
function DiagnosisSection({ id, what }: { id: string; what: string }) {
  const query = useQuery(why(id));
  return (
    <section aria-labelledby="object-diagnosis">
      <h2 id="object-diagnosis">Diagnosis</h2>
      {query.isPending ? (
        <Loading what="the diagnosis" />
      ) : query.isError ? (
        query.error instanceof ApiError && query.error.status === 404 ? (
          <Empty>The diagnosis has no rules for this kind.</Empty>
        ) : (
          <ErrorView error={query.error} retry={() => void query.refetch()} />
        )
      ) : (
        <WhyView detail={query.data} what={what} />
      )}
    </section>
  );
}

/** A pod's last hour of CPU, memory and network; any other namespaced object links to its namespace's. */
function HistorySection({ kind, namespace, name }: { kind: string; namespace: string; name: string }) {
  const pod = kind === 'Pod';
  const query = useQuery({ ...history({ scope: 'pod', namespace, name, window: '1h' }), enabled: pod });
  const more = `/history?${new URLSearchParams(pod ? { scope: 'pod', namespace, name } : { scope: 'namespace', namespace }).toString()}`;
  return (
    <section aria-labelledby="object-history">
      <h2 id="object-history">History</h2>
      {pod ? (
        <QueryView query={query} what="the pod's history">
          {(data) => (
            <Suspense fallback={<Loading what="the charts" />}>
              <HistoryCharts data={data} />
            </Suspense>
          )}
        </QueryView>
      ) : (
        <p className="muted">Resource history is kept per pod and per namespace.</p>
      )}
      <p>
        <Link href={more}>{pod ? 'Longer windows' : `Resource history of namespace ${namespace}`}</Link>
      </p>
    </section>
  );
}

/** Admins: a shell in each of the pod's containers (pod exec), opened on the Terminal screen. */
function PodShells({ namespace, name }: { namespace: string; name: string }) {
  const who = useQuery(me());
  const podList = useQuery({ ...pods(namespace), enabled: who.data?.role === 'admin' });
  const found = podList.data?.pods.find((p) => p.name === name);
  if (who.data?.role !== 'admin' || !found) return null;
  return (
    <>
      {found.containers.map((c) => (
        <span key={c}>
          {' '}· <Link href={`/terminal?${new URLSearchParams({ namespace, pod: name, container: c }).toString()}`}>Shell in {c}</Link>
        </span>
      ))}
    </>
  );
}

function DetailView({ data, kind }: { data: ResourceDetail; kind: Kind }) {
  const { row } = data;
  const label = KINDS.find((k) => k.kind === kind)?.label ?? kind;
  const crumbs = (
    <>
      <Link href={`/resources/${kind}${row.namespace === null ? '' : `?namespace=${row.namespace}`}`}>{label}</Link> / {row.namespace === null ? '' : `${row.namespace} / `}
      {row.name}
    </>
  );
  const links = (
    <>
      {' '}· <Link href={`/graph/${encodeURIComponent(row.id)}`}>Its place in the cluster</Link>
      {row.kind === 'Pod' && row.namespace !== null ? (
        <>
          {' '}· <Link href={`/namespaces/${row.namespace}/pods/${row.name}`}>Its story</Link> · <Link href={`/namespaces/${row.namespace}/pods/${row.name}/logs`}>Logs</Link>
          <PodShells namespace={row.namespace} name={row.name} />
        </>
      ) : null}
    </>
  );
  return (
    <ObjectDetail data={data} crumbs={crumbs} links={links}>
      {kind === 'deployments' || kind === 'pods' || kind === 'nodes' ? (
        <ObjectActions
          target={{
            kind,
            namespace: row.namespace,
            name: row.name,
            ...(kind === 'deployments' ? { replicas: Number(row.columns.desired ?? 0) } : {}),
            ...(kind === 'nodes' ? { unschedulable: row.status.includes('SchedulingDisabled') } : {}),
          }}
        />
      ) : null}
      <DiagnosisSection id={row.id} what={row.kind.toLowerCase()} />
      <section aria-labelledby="related">
        <h2 id="related">Related</h2>
        <Neighbors id={row.id} />
      </section>
      {row.namespace !== null ? <HistorySection kind={row.kind} namespace={row.namespace} name={row.name} /> : null}
      {WORKLOAD_KINDS.has(row.kind) && row.namespace !== null ? <WorkloadFindings namespace={row.namespace} kind={row.kind} name={row.name} /> : null}
    </ObjectDetail>
  );
}

export function ResourceDetailScreen({ kind, name }: { kind: Kind; name: string }) {
  const namespace = new URLSearchParams(useSearch()).get('namespace');
  const query = useQuery(resourceDetail(kind, name, namespace));
  return (
    <QueryView query={query} what={name}>
      {(data) => <DetailView data={data} kind={kind} />}
    </QueryView>
  );
}
