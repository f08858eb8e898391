// One pod's story: what happened, why (the diagnosis' chain up to the root cause), the last
// exit, an events timeline, the redacted log tail and resource gauges against request and
// limit. A pod without an incident shows the same view.
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { incident, type IncidentDetail } from '../api/queries/cluster';
import { why as whyQuery } from '../api/queries/diagnosis';
import { bytes, millicores, pct } from '../components/format';
import { Empty, QueryView } from '../components/states';
import { Time } from '../components/time';
import { WhyView } from '../components/why';

function Gauge({ label, used, request, limit, pctOfLimit, format }: { label: string; used: number | null; request: number | null; limit: number | null; pctOfLimit: number | null; format: (n: number | null) => string }) {
  return (
    <div className="gauge">
      <div>
        <strong>{label}</strong> {format(used)} used · request {format(request)} · limit {format(limit)}
      </div>
      {pctOfLimit !== null ? <meter min={0} max={100} low={70} high={90} optimum={30} value={Math.min(pctOfLimit, 100)} aria-label={`${label} ${pct(pctOfLimit)} of limit`} /> : <span className="muted">no limit set</span>}
      {pctOfLimit !== null ? <span> {pct(pctOfLimit)} of limit</span> : null}
    </div>
  );
}

function Story({ data, namespace, pod, why }: { data: IncidentDetail; namespace: string; pod: string; why: ReactNode }) {
  const { incident, last_exit: exit, resources: r } = data;
  return (
    <>
      <section aria-labelledby="what">
        <h2 id="what">What happened</h2>
        {incident ? (
          <p>
            <span className={`badge ${incident.severity === 'critical' ? 'critical' : 'degraded'}`}>{incident.severity}</span> <strong>{incident.reason}</strong>: {incident.detail}.{' '}
            {incident.workload_kind} <em>{incident.workload_name}</em>, phase {incident.phase}, {incident.restart_count} restarts ({incident.restart_rate.toFixed(1)}/h)
            {incident.crashing_for_secs !== null ? `, failing for ${Math.round(incident.crashing_for_secs / 60)} min` : ''}.
          </p>
        ) : (
          <p>No incident right now: this pod looks healthy.</p>
        )}
        <p>
          <Link href={`/namespaces/${namespace}/pods/${pod}/logs`}>Logs</Link> ·{' '}
          <Link href={`/history?scope=pod&namespace=${namespace}&name=${pod}`}>Resource history of this pod</Link> ·{' '}
          <Link href={`/graph/${encodeURIComponent(`pod:${namespace}/${pod}`)}`}>Its place in the cluster</Link>
        </p>
      </section>
      <section aria-labelledby="why">
        <h2 id="why">Why</h2>
        {why}
      </section>
      <section aria-labelledby="exit">
        <h2 id="exit">Last exit</h2>
        {exit ? (
          <dl className="facts">
            <dt>Container</dt>
            <dd>{exit.container}</dd>
            <dt>Exit code</dt>
            <dd>{exit.exit_code}</dd>
            <dt>Reason</dt>
            <dd>{exit.reason ?? '–'}</dd>
            <dt>Finished</dt>
            <dd><Time at={exit.finished_at} /></dd>
          </dl>
        ) : (
          <Empty>No container of this pod has terminated.</Empty>
        )}
      </section>
      <section aria-labelledby="resources">
        <h2 id="resources">Resources</h2>
        {r.available ? (
          <>
            <Gauge label="CPU" used={r.cpu_usage_m} request={r.cpu_request_m} limit={r.cpu_limit_m} pctOfLimit={r.cpu_pct_of_limit} format={millicores} />
            <Gauge label="Memory" used={r.mem_usage_bytes} request={r.mem_request_bytes} limit={r.mem_limit_bytes} pctOfLimit={r.mem_pct_of_limit} format={bytes} />
          </>
        ) : (
          <p className="muted">Metrics unavailable: {r.reason ?? 'not measured yet'}</p>
        )}
      </section>
      <section aria-labelledby="events">
        <h2 id="events">Events</h2>
        {data.events.length === 0 ? (
          <Empty>No recent events.</Empty>
        ) : (
          <ol className="timeline">
            {data.events.map((e, i) => (
              <li key={`${e.reason}-${i}`} className={e.type === 'Warning' ? 'warning' : undefined}>
                <strong>{e.reason}</strong> ×{e.count} · {e.age} ago
                <div>{e.message}</div>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="logs">
        <h2 id="logs">Log tail {data.log_source.previous ? '(previous instance)' : ''} · {data.log_source.container}</h2>
        {data.log_source.error ? <p className="muted">Logs unavailable: {data.log_source.error}</p> : null}
        <pre className="log" tabIndex={0} aria-label="Log tail">
          {data.log_tail || '(empty)'}
        </pre>
      </section>
    </>
  );
}

export function IncidentStory({ namespace, pod }: { namespace: string; pod: string }) {
  const query = useQuery(incident(namespace, pod));
  const why = useQuery(whyQuery(`pod:${namespace}/${pod}`));
  return (
    <>
      <p className="crumbs">
        <Link href="/incidents">Incidents</Link> / <Link href={`/namespaces/${namespace}`}>{namespace}</Link> / {pod}
      </p>
      <h1>{pod}</h1>
      <QueryView query={query} what="the pod's story">
        {(data) => (
          <Story
            data={data}
            namespace={namespace}
            pod={pod}
            why={
              <QueryView query={why} what="the diagnosis">
                {(detail) => <WhyView detail={detail} what="pod" />}
              </QueryView>
            }
          />
        )}
      </QueryView>
    </>
  );
}
