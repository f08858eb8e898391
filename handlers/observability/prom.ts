// The guarded PromQL proxy (docs/observability.md, "The guard"): any signed-in caller, the
// `observability` feature. The query is read, confined to the namespaces the caller may see
// (series without a namespace for admins only) and printed again (domain/observability/
// promql-guard.ts); a range query's span and step are bounded; each user has at most four
// queries at Prometheus at once. Prometheus' answer is relayed as it came, within the 5 MiB cap.
import { guardPromql, type PromqlVisibility } from '../../domain/observability/promql-guard.ts';
import { DEFAULT_BOUNDS } from '../../domain/observability/promql-guard.ts';
import { MAX_IN_FLIGHT_PER_USER, MAX_IN_FLIGHT_TOTAL, type PromAnswer, type PromQueryInput, type PromRangeInput } from '../../schema/observability.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { PrometheusPath } from './service.ts';
import { noSource } from './sources.ts';

/** A range query's step at least this, and at least range / DEFAULT_BOUNDS.maxPoints. */
export const MIN_STEP_SECS = 15;
const RESULT_TYPES = new Set(['vector', 'matrix', 'scalar', 'string']);

/** The smallest step a range query of `rangeSecs` may use: 11,000 points at most, and never under 15 s. */
export function minimumStep(rangeSecs: number): number {
  return Math.max(MIN_STEP_SECS, Math.ceil(rangeSecs / DEFAULT_BOUNDS.maxPoints));
}

/** What a PromQL query of this caller may reach: the namespaces their (already scoped) view holds; series without one only when `unnamespaced`. */
export function promqlVisibility(ctx: HandlerContext, unnamespaced: boolean): PromqlVisibility {
  return { namespaces: ctx.cluster.namespaces().map((n) => n.name), unnamespaced };
}

async function run(ctx: AuthedContext, path: PrometheusPath, query: string, params: Record<string, string>, stepSecs?: number): Promise<Result<PromAnswer>> {
  const { prometheus } = await ctx.runtimeSettings.get('observability');
  if (prometheus === null) return fail(noSource('source'));
  const guarded = guardPromql(query, promqlVisibility(ctx, ctx.principal.role === 'admin'));
  if (!guarded.ok) return fail({ code: 'invalid_input', field: 'query', message: `query refused: ${guarded.message}`, ...(guarded.position === null ? {} : { position: guarded.position }) });
  ctx.request.noteAudit({ query: guarded.query.slice(0, 500) });
  const release = ctx.observability.acquire(String(ctx.principal.userId));
  if (release === null) return fail({ code: 'rate_limited', message: `at most ${String(MAX_IN_FLIGHT_PER_USER)} queries of yours (${String(MAX_IN_FLIGHT_TOTAL)} of everyone's) may be at Prometheus at once; wait for one to answer`, retryAfterSecs: 1 });
  try {
    const answer = await ctx.observability.prometheus.call(prometheus, path, { ...params, query: guarded.query, timeout: '10s' });
    if (!answer.ok) return fail(answer.kind === 'query' ? { code: 'invalid_input', field: 'query', message: answer.message } : { code: 'upstream_unavailable', message: answer.message });
    const type = answer.data.resultType;
    if (typeof type !== 'string' || !RESULT_TYPES.has(type)) return fail({ code: 'upstream_unavailable', message: 'Prometheus answered without a result type' });
    return ok({ query: guarded.query, result_type: type as PromAnswer['result_type'], result: answer.data.result ?? null, ...(stepSecs === undefined ? {} : { step_secs: stepSecs }), warnings: answer.warnings });
  } finally {
    release();
  }
}

export function promQuery(input: PromQueryInput, ctx: AuthedContext): Promise<Result<PromAnswer>> {
  return run(ctx, 'api/v1/query', input.query, input.time === undefined ? {} : { time: String(input.time) });
}

export function promQueryRange(input: PromRangeInput, ctx: AuthedContext): Promise<Result<PromAnswer>> {
  const range = input.end - input.start;
  if (range <= 0) return Promise.resolve(fail({ code: 'invalid_input', field: 'end', message: 'end must be after start' }));
  if (range * 1000 > DEFAULT_BOUNDS.maxLookbackMs) return Promise.resolve(fail({ code: 'invalid_input', field: 'end', message: `a range query spans at most ${String(DEFAULT_BOUNDS.maxLookbackMs / 86_400_000)} days` }));
  const step = Math.max(input.step ?? 0, minimumStep(range));
  return run(ctx, 'api/v1/query_range', input.query, { start: String(input.start), end: String(input.end), step: String(step) }, step);
}
