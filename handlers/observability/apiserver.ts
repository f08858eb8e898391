// GET /metrics/apiserver (spec §2 "API-server metrics"): the API server's request rate, error
// rate, p99 latency and busiest verbs from the configured Prometheus, each figure its own query
// so one that fails (or finds no series) is simply absent. Latency and errors leave out WATCH
// and CONNECT, whose requests last as long as the watch or the stream. Without a source:
// `source: none` and `setup_required`, not an error.
import type { ApiserverMetrics } from '../../schema/observability.ts';
import type { StoredPrometheusSource } from '../../schema/observability.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

const LONG = 'verb!~"WATCH|CONNECT"';
/** The server's own queries, over 5 minutes of the apiserver's request series. */
export const APISERVER_QUERIES = {
  requests_per_sec: 'sum(rate(apiserver_request_total[5m]))',
  error_rate_pct: `100 * sum(rate(apiserver_request_total{code=~"5..",${LONG}}[5m])) / sum(rate(apiserver_request_total{${LONG}}[5m]))`,
  p99_latency_ms: `1000 * histogram_quantile(0.99, sum by (le) (rate(apiserver_request_duration_seconds_bucket{${LONG}}[5m])))`,
  by_verb: 'topk(10, sum by (verb) (rate(apiserver_request_total[5m])))',
} as const;
/** Verbs listed at most. */
const TOP_VERBS = 10;

type Sample = { metric?: Record<string, string>; value?: [number, string] };

async function vector(ctx: HandlerContext, source: StoredPrometheusSource, query: string): Promise<Sample[] | null> {
  const answer = await ctx.observability.prometheus.call(source, 'api/v1/query', { query, timeout: '10s' });
  if (!answer.ok || answer.data.resultType !== 'vector' || !Array.isArray(answer.data.result)) return null;
  return answer.data.result as Sample[];
}

const valueOf = (s: Sample | undefined): number | null => {
  const n = Number(s?.value?.[1]);
  return s?.value && Number.isFinite(n) ? n : null;
};
const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

export async function apiserverMetrics(_input: object, ctx: HandlerContext): Promise<Result<ApiserverMetrics>> {
  const { prometheus } = await ctx.runtimeSettings.get('observability');
  if (prometheus === null) return ok({ source: 'none', setup_required: true });
  const [requests, errors, latency, verbs] = await Promise.all([
    vector(ctx, prometheus, APISERVER_QUERIES.requests_per_sec),
    vector(ctx, prometheus, APISERVER_QUERIES.error_rate_pct),
    vector(ctx, prometheus, APISERVER_QUERIES.p99_latency_ms),
    vector(ctx, prometheus, APISERVER_QUERIES.by_verb),
  ]);
  const out: ApiserverMetrics = { source: 'prometheus' };
  const rps = valueOf(requests?.[0]);
  if (rps !== null) out.requests_per_sec = round(rps, 3);
  const err = valueOf(errors?.[0]);
  if (err !== null) out.error_rate_pct = round(err, 3);
  const p99 = valueOf(latency?.[0]);
  if (p99 !== null) out.p99_latency_ms = round(p99, 1);
  if (verbs !== null && verbs.length > 0) {
    out.by_verb = verbs
      .map((s) => ({ verb: s.metric?.verb ?? '', rate: valueOf(s) }))
      .filter((v): v is { verb: string; rate: number } => v.verb !== '' && v.rate !== null)
      .sort((a, b) => b.rate - a.rate)
      .slice(0, TOP_VERBS)
      .map((v) => ({ verb: v.verb, rate: round(v.rate, 3) }));
  }
  return ok(out);
}
