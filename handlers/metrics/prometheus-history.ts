// Resource history from the configured Prometheus (docs/observability.md, "History from
// Prometheus"), when an admin chose it as the metrics source: the same buckets and fields as
// Capstan's own samples, from the kubelet's container series (cAdvisor's names). The queries
// are Capstan's, but they still go through the guard with the caller's visibility, so a
// history can only ever hold the namespaces its reader may see.
import { guardPromql, type PromqlVisibility } from '../../domain/observability/promql-guard.ts';
import type { StoredPrometheusSource } from '../../schema/observability.ts';
import type { HandlerContext } from '../context.ts';

export interface HistoryRequest {
  scope: 'cluster' | 'namespace' | 'pod';
  namespace: string | null;
  pod: string | null;
  fromSecs: number;
  toSecs: number;
  bucketSecs: number;
}

export interface PromPoint {
  ts: number;
  cpuM: number | null;
  memBytes: number | null;
  rxBps: number | null;
  txBps: number | null;
}

const quoted = (s: string) => JSON.stringify(s);

/** The four queries of one history: CPU (millicores), working-set memory, network in and out (bytes/s). */
export function historyQueries(r: Pick<HistoryRequest, 'scope' | 'namespace' | 'pod' | 'bucketSecs'>): Record<'cpu' | 'mem' | 'rx' | 'tx', string> {
  const where = [r.namespace !== null && r.scope !== 'cluster' ? `namespace=${quoted(r.namespace)}` : null, r.pod !== null && r.scope === 'pod' ? `pod=${quoted(r.pod)}` : null].filter((m): m is string => m !== null);
  // cAdvisor also reports the pod's cgroup (container="") and the pause container: counted once, per real container.
  const containers = [...where, 'container!=""', 'container!="POD"'].join(',');
  const pods = where.join(',');
  // A rate needs two samples in its window: at least two minutes, more than a bucket.
  const window = `${String(Math.max(120, r.bucketSecs * 2))}s`;
  return {
    cpu: `1000 * sum(rate(container_cpu_usage_seconds_total{${containers}}[${window}]))`,
    mem: `sum(container_memory_working_set_bytes{${containers}})`,
    rx: `sum(rate(container_network_receive_bytes_total{${pods}}[${window}]))`,
    tx: `sum(rate(container_network_transmit_bytes_total{${pods}}[${window}]))`,
  };
}

type Matrix = { values?: [number, string][] }[];

/** The history's points, or why Prometheus could not give them (the caller falls back to its own samples). */
export async function prometheusHistory(ctx: HandlerContext, source: StoredPrometheusSource, visibility: PromqlVisibility, r: HistoryRequest): Promise<{ ok: true; points: PromPoint[] } | { ok: false; reason: string }> {
  const queries = historyQueries(r);
  const byTs = new Map<number, PromPoint>();
  for (let ts = r.fromSecs - (r.fromSecs % r.bucketSecs); ts <= r.toSecs; ts += r.bucketSecs) byTs.set(ts, { ts, cpuM: null, memBytes: null, rxBps: null, txBps: null });
  const fields = { cpu: 'cpuM', mem: 'memBytes', rx: 'rxBps', tx: 'txBps' } as const;
  const answers = await Promise.all(
    (Object.keys(queries) as (keyof typeof queries)[]).map(async (key) => {
      const guarded = guardPromql(queries[key], visibility);
      if (!guarded.ok) return { key, error: guarded.message };
      const answer = await ctx.observability.prometheus.call(source, 'api/v1/query_range', { query: guarded.query, start: String(r.fromSecs), end: String(r.toSecs), step: String(r.bucketSecs), timeout: '10s' });
      return answer.ok ? { key, result: answer.data.result } : { key, error: answer.message };
    }),
  );
  const failed = answers.filter((a) => 'error' in a);
  // Every query failing is Prometheus failing; one (a counter it does not have) is a gap.
  if (failed.length === answers.length) return { ok: false, reason: (failed[0] as { error: string }).error };
  for (const a of answers) {
    if (!('result' in a) || !Array.isArray(a.result)) continue;
    for (const series of a.result as Matrix) {
      for (const [t, v] of series.values ?? []) {
        const at = t - (t % r.bucketSecs);
        const point = byTs.get(at);
        const n = Number(v);
        if (point && Number.isFinite(n)) point[fields[a.key]] = a.key === 'mem' || a.key === 'cpu' ? Math.round(n) : Math.round(n * 100) / 100;
      }
    }
  }
  return { ok: true, points: [...byTs.values()] };
}
