import type { Out } from '../../schema/common.ts';
import { HISTORY_RETENTION_DAYS, HISTORY_SAMPLE_INTERVAL_SECS, HISTORY_WINDOWS, type History, type HistoryInput } from '../../schema/metrics.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { promqlVisibility } from '../observability/prom.ts';
import { prometheusHistory } from './prometheus-history.ts';

/** About this many points per answer, whatever the window (spec §8). */
export const HISTORY_BUCKETS = 120;

/** CPU, memory and network over a window, at cluster, namespace or pod scope. */
export async function metricsHistory(input: Out<typeof HistoryInput>, ctx: HandlerContext): Promise<Result<Out<typeof History>>> {
  const { scope, window } = input;
  const namespace = input.namespace ?? null;
  const name = input.name ?? null;
  if (scope !== 'cluster' && namespace === null) return fail({ code: 'invalid_input', field: 'namespace', message: `namespace: required with scope=${scope}` });
  if (scope === 'pod' && name === null) return fail({ code: 'invalid_input', field: 'name', message: 'name: the pod is required with scope=pod' });
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - HISTORY_WINDOWS[window] * 1000);
  const result = await ctx.history.query({ scope, from, to, buckets: HISTORY_BUCKETS, ...(namespace !== null ? { namespace } : {}), ...(name !== null ? { pod: name } : {}) });
  const network = ctx.network.status();
  let series = result.points.map((p) => ({ ts: p.ts, cpu_millicores: p.cpuM, mem_bytes: p.memBytes, net_rx_bps: p.rxBps, net_tx_bps: p.txBps }));
  // The admin's choice of source: Prometheus when chosen and answering, else Capstan's own samples, saying why.
  const { prometheus, metrics_source } = await ctx.runtimeSettings.get('observability');
  let source: 'builtin' | 'prometheus' = 'builtin';
  let fallback: string | undefined;
  if (metrics_source === 'prometheus' && prometheus !== null) {
    const fromProm = await prometheusHistory(ctx, prometheus, promqlVisibility(ctx, false), { scope, namespace, pod: name, fromSecs: Math.floor(from.getTime() / 1000), toSecs: Math.floor(to.getTime() / 1000), bucketSecs: result.bucketSecs });
    if (fromProm.ok) {
      source = 'prometheus';
      series = fromProm.points.map((p) => ({ ts: p.ts, cpu_millicores: p.cpuM, mem_bytes: p.memBytes, net_rx_bps: p.rxBps, net_tx_bps: p.txBps }));
    } else fallback = `Prometheus did not answer (${fromProm.reason}): these are Capstan's own samples`;
  }
  const available = series.some((p) => p.cpu_millicores !== null || p.mem_bytes !== null);
  const metrics = ctx.cluster.metrics();
  const reason = fallback ?? (available ? undefined : source === 'prometheus' ? 'Prometheus holds no container series for this scope in this window' : metrics.available ? `no samples in this window yet (one is taken every ${HISTORY_SAMPLE_INTERVAL_SECS} s)` : metrics.reason);
  return ok({
    available,
    source,
    ...(reason !== undefined ? { reason } : {}),
    scope,
    namespace: scope === 'cluster' ? null : namespace,
    name: scope === 'pod' ? name : null,
    window,
    bucket_secs: result.bucketSecs,
    sample_interval_secs: HISTORY_SAMPLE_INTERVAL_SECS,
    retention_days: HISTORY_RETENTION_DAYS,
    network: {
      enabled: network.enabled || source === 'prometheus',
      available: (network.enabled || source === 'prometheus') && series.some((p) => p.net_rx_bps !== null),
      last_scrape_ok: network.lastScrapeOk,
      last_scrape_error: network.lastScrapeError,
    },
    series,
  });
}
