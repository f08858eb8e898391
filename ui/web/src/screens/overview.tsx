// Root causes first (what is broken at the source, with what it breaks), then namespace
// health, worst first (the agent sorts), refreshed every 30 s from its 30 s cache.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { overview, type Overview as OverviewAnswer } from '../api/queries/cluster';
import { ApiserverPanel } from '../components/apiserver-panel';
import { RootCauses } from '../components/root-causes';
import { SortableTable, type Column } from '../components/sortable-table';
import { QueryView } from '../components/states';
import { Time } from '../components/time';
import { bytes, millicores } from '../components/format';

/** One resource of the cluster: requested and used against allocatable, as meters with their numbers. */
function CapacityMeter({ label, amounts, format }: { label: string; amounts: OverviewAnswer['capacity']['cpu_m']; format: (n: number | null) => string }) {
  const share = (n: number) => (amounts.allocatable > 0 ? Math.round((n / amounts.allocatable) * 100) : 0);
  return (
    <div className="gauge">
      <strong>{label}</strong> {format(amounts.requested)} requested ({share(amounts.requested)} %) · {amounts.used === null ? 'usage not measured' : `${format(amounts.used)} used (${share(amounts.used)} %)`} · {format(amounts.allocatable)} allocatable
      <div>
        <meter min={0} max={100} low={70} high={90} optimum={40} value={Math.min(100, share(amounts.requested))} aria-label={`${label} requested: ${share(amounts.requested)} % of allocatable`} />{' '}
        {amounts.used === null ? null : <meter min={0} max={100} low={70} high={90} optimum={40} value={Math.min(100, share(amounts.used))} aria-label={`${label} used: ${share(amounts.used)} % of allocatable`} />}
      </div>
    </div>
  );
}

function Capacity({ capacity }: { capacity: OverviewAnswer['capacity'] }) {
  return (
    <section aria-labelledby="capacity">
      <h2 id="capacity">Capacity</h2>
      <p className="muted">
        {capacity.nodes} nodes, {capacity.pods.scheduled} pods scheduled of {capacity.pods.allocatable} allowed. <Link href="/resources/nodes">Nodes</Link>
      </p>
      <CapacityMeter label="CPU" amounts={capacity.cpu_m} format={millicores} />
      <CapacityMeter label="Memory" amounts={capacity.memory_bytes} format={bytes} />
    </section>
  );
}

type NamespaceHealth = OverviewAnswer['namespaces'][number];

/** Worst first is the agent's order and the point of the list: the headers do not re-sort it. */
const NAMESPACE_COLUMNS: Column<NamespaceHealth>[] = [
  { key: 'namespace', label: 'Namespace', value: (ns) => ns.namespace, render: (ns) => <Link href={`/namespaces/${ns.namespace}`}>{ns.namespace}</Link>, rowHeader: true },
  { key: 'health', label: 'Health', value: (ns) => ns.health_score, render: (ns) => <span className={`badge ${ns.health_score}`}>{ns.health_score}</span> },
  { key: 'why', label: 'Why', value: (ns) => ns.reasons.join('; ') || null },
  { key: 'running', label: 'Pods running', value: (ns) => ns.pods_running, render: (ns) => `${ns.pods_running}/${ns.pods_total}`, numeric: true },
  { key: 'failing', label: 'Failing', value: (ns) => ns.pods_failing, numeric: true },
  { key: 'pending', label: 'Pending', value: (ns) => ns.pods_pending, numeric: true },
  { key: 'degraded', label: 'Deployments degraded', value: (ns) => ns.deployments_degraded, render: (ns) => `${ns.deployments_degraded}/${ns.deployments_total}`, numeric: true },
  { key: 'unbound', label: 'PVCs unbound', value: (ns) => ns.pvcs_unbound, numeric: true },
  { key: 'event', label: 'Last event', value: (ns) => ns.last_event_time, render: (ns) => <Time at={ns.last_event_time} /> },
];

export function Overview() {
  const query = useQuery(overview());
  return (
    <>
      <h1>Overview</h1>
      <RootCauses />
      {query.data ? <Capacity capacity={query.data.capacity} /> : null}
      <ApiserverPanel />
      <h2>Namespaces</h2>
      <QueryView query={query} what="namespace health">
        {(data) => (
          <>
            <p className="muted" aria-live="polite">
              {data.total_namespaces} namespaces · cached <Time at={data.cached_at} /> (refreshes every {data.cache_ttl_secs} s)
            </p>
            <Unreadable lines={data.unreadable} />
            <SortableTable
              rows={data.namespaces}
              columns={NAMESPACE_COLUMNS}
              rowKey={(ns) => ns.namespace}
              caption="Namespace health, worst first"
              searchLabel="Search namespaces"
              sortable={false}
              empty="No namespace is visible to Capstan."
              rowAttributes={(ns) => ({ 'data-health': ns.health_score })}
            />
          </>
        )}
      </QueryView>
    </>
  );
}

/** What RBAC refuses the agent, one line per resource: an empty list there is not "nothing there". */
function Unreadable({ lines }: { lines: OverviewAnswer['unreadable'] }) {
  if (lines.length === 0) return null;
  const byResource = new Map<string, (string | null)[]>();
  for (const { resource, namespace } of lines) byResource.set(resource, [...(byResource.get(resource) ?? []), namespace]);
  return (
    <ul className="notices" aria-label="Not readable">
      {[...byResource].map(([resource, namespaces]) => (
        <li key={resource} className="muted">
          Not readable: RBAC forbids Capstan to list {resource}
          {namespaces.includes(null) ? '' : ` in ${namespaces.join(', ')}`}; what depends on it shows nothing there.
        </li>
      ))}
    </ul>
  );
}
