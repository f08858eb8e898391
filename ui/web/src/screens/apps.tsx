// Applications: the list, and one application's usage against requests and limits, its flags
// explained, and its network per workload.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { app as appQuery, appMetrics, appNetwork, apps, type AppMetrics, type AppNetworkHistory } from '../api/queries/apps';
import type { HistoryWindow } from '../api/queries/history';
import { me } from '../api/queries/session';
import { bytes, millicores, rate } from '../components/format';
import { SortableTable, type Column } from '../components/sortable-table';
import { Empty, QueryView } from '../components/states';
import { Time } from '../components/time';
import { TimeChart } from '../components/time-chart';
import { WindowPicker } from './history';

export const FLAG_HELP: Record<string, string> = {
  no_requests: 'requests neither CPU nor memory: the scheduler cannot place it sensibly',
  no_cpu_request: 'a container requests no CPU',
  no_memory_request: 'a container requests no memory',
  near_memory_limit: 'memory at 90% or more of the limit: close to being OOM-killed',
  cpu_above_request: 'uses more CPU than it requests',
  memory_above_request: 'uses more memory than it requests: first to be evicted under pressure',
};

export function Apps() {
  const query = useQuery(apps());
  const who = useQuery(me());
  return (
    <>
      <h1>Applications</h1>
      {who.data?.role === 'admin' ? (
        <p>
          <Link href="/apps/new" className="button">New application</Link>
        </p>
      ) : null}
      <QueryView query={query} what="applications">
        {(data) =>
          data.apps.length === 0 ? (
            <Empty>No application yet. An application is a label selector across namespaces, such as app in (frontend, cart).</Empty>
          ) : (
            <ul className="grid-list">
              {data.apps.map((a) => (
                <li key={a.id}>
                  <Link href={`/apps/${a.id}`}>{a.name}</Link> <span className="muted">{a.namespaces.join(', ')} · updated <Time at={a.updated_at} /></span>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}

type Member = AppMetrics['members'][number];

function Usage({ data }: { data: AppMetrics }) {
  const t = data.totals;
  const columns: Column<Member>[] = [
    { key: 'pod', label: 'Pod', value: (m) => m.pod, render: (m) => <Link href={`/namespaces/${m.namespace}/pods/${m.pod}`}>{m.pod}</Link> },
    { key: 'workload', label: 'Workload', value: (m) => m.workload },
    { key: 'cpu', label: 'CPU used / req / limit', value: (m) => m.cpu_millicores_used, numeric: true, render: (m) => `${millicores(m.cpu_millicores_used)} / ${millicores(m.cpu_millicores_request)} / ${millicores(m.cpu_millicores_limit)}` },
    { key: 'mem', label: 'Memory used / req / limit', value: (m) => m.mem_bytes_used, numeric: true, render: (m) => `${bytes(m.mem_bytes_used)} / ${bytes(m.mem_bytes_request)} / ${bytes(m.mem_bytes_limit)}` },
    { key: 'flags', label: 'Flags', value: (m) => m.flags.join(' '), render: (m) => m.flags.map((f) => <span key={f} className="flag" title={FLAG_HELP[f]}>{f}</span>) },
  ];
  return (
    <>
      {data.metrics_available ? null : <p className="muted">Usage unavailable: {data.reason}</p>}
      <p>
        {t.pods_measured} of {t.pods_total} pods measured · CPU {millicores(t.cpu_millicores_used)} used of {millicores(t.cpu_millicores_request)} requested ({millicores(t.cpu_millicores_limit)} limit) · memory {bytes(t.mem_bytes_used)} of {bytes(t.mem_bytes_request)} requested ({bytes(t.mem_bytes_limit)} limit)
      </p>
      {data.flags.length > 0 ? (
        <section aria-labelledby="flags">
          <h2 id="flags">Flags</h2>
          <dl className="facts">
            {data.flags.map((f) => (
              <div key={f}>
                <dt>{f}</dt>
                <dd>{FLAG_HELP[f]}</dd>
              </div>
            ))}
          </dl>
        </section>
      ) : null}
      <SortableTable rows={data.members} columns={columns} rowKey={(m) => `${m.namespace}/${m.pod}`} caption="Member pods" searchLabel="Search members" />
    </>
  );
}

const PALETTE = ['#10b981', '#f59e0b', '#3b82f6', '#ef4444', '#a855f7', '#14b8a6'];

function NetworkChart({ data }: { data: AppNetworkHistory }) {
  const ts = useMemo(() => [...new Set(data.workloads.flatMap((w) => w.series.map((p) => p.ts)))].sort((a, b) => a - b), [data]);
  const series = useMemo(
    () =>
      data.workloads.map((w, i) => {
        const byTs = new Map(w.series.map((p) => [p.ts, p.rx_bps]));
        return { label: `${w.namespace}/${w.workload} received`, color: PALETTE[i % PALETTE.length] ?? '#888', values: ts.map((t) => byTs.get(t) ?? null) };
      }),
    [data, ts],
  );
  if (!data.available) return <p className="muted">Network unavailable: {data.reason}</p>;
  return <TimeChart title="Received per workload" ts={ts} series={series} format={rate} />;
}

export function AppDetail({ id }: { id: string }) {
  const app = useQuery(appQuery(id));
  const metrics = useQuery(appMetrics(id));
  const [window, setWindow] = useState<HistoryWindow>('1h');
  const network = useQuery(appNetwork(id, window));
  return (
    <>
      <p className="crumbs">
        <Link href="/apps">Applications</Link> / {app.data?.name ?? id}
      </p>
      <h1>{app.data?.name ?? 'Application'}</h1>
      {app.data ? (
        <p className="muted">
          Namespaces: {app.data.namespaces.join(', ')} · created by {app.data.created_by} <Time at={app.data.created_at} />, updated <Time at={app.data.updated_at} />
        </p>
      ) : null}
      <QueryView query={metrics} what="usage">
        {(data) => (
          <>
            <Usage data={data} />
            <section aria-labelledby="network">
              <h2 id="network">Network</h2>
              {data.network.available ? (
                <>
                  <ul>
                    {data.network.workloads.map((w) => (
                      <li key={`${w.namespace}/${w.workload}`}>
                        {w.namespace}/{w.workload}: {rate(w.rx_bytes_per_sec)} in, {rate(w.tx_bytes_per_sec)} out
                      </li>
                    ))}
                  </ul>
                  <WindowPicker value={window} onChange={setWindow} />
                  <QueryView query={network} what="network history">
                    {(n) => <NetworkChart data={n} />}
                  </QueryView>
                </>
              ) : (
                <p className="muted">Network unavailable: {data.network.reason}</p>
              )}
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}
