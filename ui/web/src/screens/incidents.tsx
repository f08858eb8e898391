// Incidents with namespace, severity and reason filters kept in the URL, so a filtered view
// is a link someone can share.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { incidents, namespaces as namespaceList, type Incident } from '../api/queries/cluster';
import { Empty, QueryView } from '../components/states';

function Filter({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (v: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function IncidentList() {
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const namespace = params.get('namespace') ?? '';
  const severity = params.get('severity') ?? '';
  const reason = params.get('reason') ?? '';
  const query = useQuery(incidents(namespace || '*'));
  const namespaces = useQuery(namespaceList());
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(`/incidents${next.size > 0 ? `?${next.toString()}` : ''}`);
  };
  return (
    <>
      <h1>Incidents</h1>
      <div className="filters" role="group" aria-label="Filters">
        <Filter label="Namespace" value={namespace} options={(namespaces.data?.namespaces ?? []).map((n) => n.name)} onChange={(v) => set('namespace', v)} />
        <Filter label="Severity" value={severity} options={['critical', 'warning']} onChange={(v) => set('severity', v)} />
        <Filter label="Reason" value={reason} options={[...new Set((query.data?.incidents ?? []).map((i) => i.reason))].sort()} onChange={(v) => set('reason', v)} />
      </div>
      <QueryView query={query} what="incidents">
        {(data) => {
          const shown = data.incidents.filter((i) => (!severity || i.severity === severity) && (!reason || i.reason === reason));
          return (
            <>
              <p className="muted">
                {data.critical} critical · {data.warning} warning
                {data.metrics_available ? '' : ` · memory-pressure incidents unavailable: ${data.reason ?? 'metrics-server is absent'}`}
              </p>
              {shown.length === 0 ? <Empty>No incident matches. Everything visible is healthy.</Empty> : <IncidentTable incidents={shown} />}
            </>
          );
        }}
      </QueryView>
    </>
  );
}

function IncidentTable({ incidents }: { incidents: Incident[] }) {
  return (
    <ul className="incidents">
      {incidents.map((i) => (
        <li key={i.id} className={`incident ${i.severity}`}>
          <span className={`badge ${i.severity === 'critical' ? 'critical' : 'degraded'}`}>{i.severity}</span>{' '}
          <Link href={`/incidents/${i.namespace}/${i.pod}`}>
            <strong>{i.reason}</strong> · {i.namespace}/{i.workload_name}
          </Link>{' '}
          <code>{i.pod}</code>
          <span className="muted">
            {' '}
            {i.detail} · {i.restart_count} restarts · age {i.age}
          </span>
        </li>
      ))}
    </ul>
  );
}
