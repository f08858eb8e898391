// CPU, memory and network over a window, at cluster, namespace or pod scope; the choice lives
// in the URL. With nothing to draw, the reason is shown instead of empty charts.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { history, type History, type HistoryWindow } from '../api/queries/history';
import { bytes, millicores, rate } from '../components/format';
import { QueryView } from '../components/states';
import { TimeChart } from '../components/time-chart';

const WINDOWS: HistoryWindow[] = ['1h', '6h', '24h', '7d'];

export function WindowPicker({ value, onChange }: { value: HistoryWindow; onChange: (w: HistoryWindow) => void }) {
  return (
    <fieldset className="window-picker">
      <legend>Window</legend>
      {WINDOWS.map((w) => (
        <label key={w}>
          <input type="radio" name="window" value={w} checked={value === w} onChange={() => onChange(w)} /> {w}
        </label>
      ))}
    </fieldset>
  );
}

export function HistoryCharts({ data }: { data: History }) {
  const ts = useMemo(() => data.series.map((p) => p.ts), [data]);
  const cpu = useMemo(() => [{ label: 'CPU', color: '#3b82f6', values: data.series.map((p) => p.cpu_millicores) }], [data]);
  const mem = useMemo(() => [{ label: 'Memory', color: '#a855f7', values: data.series.map((p) => p.mem_bytes) }], [data]);
  const net = useMemo(
    () => [
      { label: 'Received', color: '#10b981', values: data.series.map((p) => p.net_rx_bps) },
      { label: 'Sent', color: '#f59e0b', values: data.series.map((p) => p.net_tx_bps) },
    ],
    [data],
  );
  if (!data.available) return <p className="state empty">Metrics unavailable: {data.reason ?? 'no samples yet'}</p>;
  return (
    <>
      <TimeChart title="CPU" ts={ts} series={cpu} format={millicores} />
      <TimeChart title="Memory" ts={ts} series={mem} format={bytes} />
      {data.network.available ? (
        <TimeChart title="Network" ts={ts} series={net} format={rate} />
      ) : (
        <p className="muted">
          Network unavailable: {data.network.enabled ? (data.network.last_scrape_error ?? 'no samples yet') : 'the kubelet scrape is off (METRICS_KUBELET_SCRAPE)'}
        </p>
      )}
    </>
  );
}

export function HistoryScreen() {
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const scope = (params.get('scope') ?? 'cluster') as 'cluster' | 'namespace' | 'pod';
  const namespace = params.get('namespace') ?? undefined;
  const name = params.get('name') ?? undefined;
  const window = (params.get('window') ?? '1h') as HistoryWindow;
  const query = useQuery(history({ scope, window, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) }));
  const setWindow = (w: HistoryWindow) => {
    params.set('window', w);
    navigate(`/history?${params.toString()}`);
  };
  const subject = scope === 'cluster' ? 'the cluster' : scope === 'namespace' ? `namespace ${namespace ?? ''}` : `pod ${namespace ?? ''}/${name ?? ''}`;
  return (
    <>
      <h1>Resource history of {subject}</h1>
      <WindowPicker value={window} onChange={setWindow} />
      <QueryView query={query} what="history">
        {(data) => <HistoryCharts data={data} />}
      </QueryView>
    </>
  );
}
