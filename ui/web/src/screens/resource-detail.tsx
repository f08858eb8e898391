// One object: what the list says of it, its conditions and events, where to go next (its place
// in the cluster model, a pod's story and logs), and the object itself as YAML, read live and
// made safe by the agent (no managed fields, no Secret data, secret-looking values redacted).
import { useQuery } from '@tanstack/react-query';
import { Link, useSearch } from 'wouter';
import { KINDS, resourceDetail, type Kind, type ResourceDetail } from '../api/queries/resources';
import { Empty, QueryView } from '../components/states';
import { Time } from '../components/time';
import { columnLabel, formatColumn } from '../components/format';
import { ObjectActions } from '../components/object-actions';

function DetailView({ data, kind }: { data: ResourceDetail; kind: Kind }) {
  const { row } = data;
  const label = KINDS.find((k) => k.kind === kind)?.label ?? kind;
  return (
    <>
      <p className="crumbs">
        <Link href={`/resources/${kind}${row.namespace === null ? '' : `?namespace=${row.namespace}`}`}>{label}</Link> / {row.namespace === null ? '' : `${row.namespace} / `}
        {row.name}
      </p>
      <h1>
        {row.kind} {row.name}
      </h1>
      <p>
        <span className={`badge ${row.problem ? 'critical' : 'healthy'}`}>{row.problem ? 'problem' : 'no problem'}</span> {row.status} · created <Time at={row.created_at} /> ·{' '}
        <Link href={`/graph/${encodeURIComponent(row.id)}`}>Its place in the cluster</Link>
        {row.kind === 'Pod' && row.namespace !== null ? (
          <>
            {' '}· <Link href={`/namespaces/${row.namespace}/pods/${row.name}`}>Its story</Link> · <Link href={`/namespaces/${row.namespace}/pods/${row.name}/logs`}>Logs</Link>
          </>
        ) : null}
      </p>
      <dl className="facts">
        {Object.entries(row.columns).map(([key, value]) => (
          <div key={key} style={{ display: 'contents' }}>
            <dt>{columnLabel(key)}</dt>
            <dd>{formatColumn(key, value)}</dd>
          </div>
        ))}
      </dl>
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

export function ResourceDetailScreen({ kind, name }: { kind: Kind; name: string }) {
  const namespace = new URLSearchParams(useSearch()).get('namespace');
  const query = useQuery(resourceDetail(kind, name, namespace));
  return (
    <QueryView query={query} what={name}>
      {(data) => <DetailView data={data} kind={kind} />}
    </QueryView>
  );
}
