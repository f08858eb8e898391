// Admin → Observability's Prometheus source (docs/observability.md, "The source"): read with
// its secret masked, written with the secret kept when `••••` comes back for the same host and
// required again when the host changes (so a session cannot send the stored credential to a
// host of its choosing), tested before or after saving. PROMETHEUS_URL seeds it until an admin
// saves one.
import type { GrafanaSourceInput, MetricsSourceInput, MetricsSourceView, ObservabilityStatus, PrometheusSourceInput, SourcesInput, SourcesView, SourceTestAnswer, SourceTestInput, StoredGrafanaSource, StoredPrometheusSource } from '../../schema/observability.ts';
import type * as v from 'valibot';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';
import { MASK } from '../settings/audit-stream.ts';

async function view(ctx: HandlerContext): Promise<SourcesView> {
  const stored = await ctx.runtimeSettings.get('observability');
  const p = stored.prometheus;
  const g = stored.grafana;
  return {
    prometheus: p === null ? null : { url: p.url, auth: p.auth, username: p.username, secret: p.secret_sealed === null ? null : MASK },
    grafana: g === null ? null : { url: g.url, token: g.token_sealed === null ? null : MASK, overview_uid: g.overview_uid },
    metrics_source: stored.metrics_source,
  };
}

export async function getSources(_input: object, ctx: HandlerContext): Promise<Result<SourcesView>> {
  return ok(await view(ctx));
}

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
};

/**
 * The sealed secret to store for a form's `given` secret: `••••` or absent keeps the stored one
 * (`kept`, when there is one) while the URL's host is the same; a typed one is sealed; an empty
 * one is refused. One rule for every observability credential.
 */
function sealedSecret(field: string, given: string | null | undefined, kept: { url: string; sealed: string | null } | null, url: string, ctx: HandlerContext, required: string): Result<string> {
  if (given === undefined || given === MASK) {
    if (kept === null || kept.sealed === null) return fail({ code: 'invalid_input', field, message: `${field} is required: ${required}` });
    if (hostOf(kept.url) !== hostOf(url)) return fail({ code: 'invalid_input', field, message: `${field} must be given again when the URL's host changes: the stored one is only sent to the host it was entered for` });
    return ok(kept.sealed);
  }
  if (given === null || given === '') return fail({ code: 'invalid_input', field, message: `${field} is required: ${required}` });
  return ok(ctx.secrets.seal(given));
}

/** The source to store (or test) from the form: the URL checked, the secret kept, replaced or refused. */
function resolveSource(input: PrometheusSourceInput, stored: StoredPrometheusSource | null, ctx: HandlerContext): Result<StoredPrometheusSource> {
  const problem = ctx.outbound.problem(input.url, 'base');
  if (problem !== null) return fail({ code: 'invalid_input', field: 'prometheus.url', message: `prometheus.url ${problem}` });
  if (input.auth === 'basic' && !input.username) return fail({ code: 'invalid_input', field: 'prometheus.username', message: 'prometheus.username is required with basic authentication' });
  if (input.auth === 'none') return ok({ url: input.url, auth: 'none', username: null, secret_sealed: null });
  // A stored secret of the other kind (a token, a password) is no secret for this one.
  const kept = stored !== null && stored.auth === input.auth ? { url: stored.url, sealed: stored.secret_sealed } : null;
  const sealed = sealedSecret('prometheus.secret', input.secret, kept, input.url, ctx, `the ${input.auth === 'bearer' ? 'token' : 'password'} for ${input.auth} authentication`);
  if (!sealed.ok) return sealed;
  return ok({ url: input.url, auth: input.auth, username: input.auth === 'basic' ? (input.username ?? null) : null, secret_sealed: sealed.value });
}

/** Grafana from the form: the URL checked; the token kept for the same host, required for a new one. */
function resolveGrafana(input: GrafanaSourceInput, stored: StoredGrafanaSource | null, ctx: HandlerContext): Result<StoredGrafanaSource> {
  const problem = ctx.outbound.problem(input.url, 'base');
  if (problem !== null) return fail({ code: 'invalid_input', field: 'grafana.url', message: `grafana.url ${problem}` });
  const sealed = sealedSecret('grafana.token', input.token, stored === null ? null : { url: stored.url, sealed: stored.token_sealed }, input.url, ctx, 'a Grafana service-account token');
  if (!sealed.ok) return sealed;
  return ok({ url: input.url, token_sealed: sealed.value, overview_uid: input.overview_uid });
}

export async function putSources(input: SourcesInput, ctx: HandlerContext): Promise<Result<SourcesView>> {
  const stored = await ctx.runtimeSettings.get('observability');
  let prometheus: StoredPrometheusSource | null = null;
  if (input.prometheus !== null) {
    const resolved = resolveSource(input.prometheus, stored.prometheus, ctx);
    if (!resolved.ok) return resolved;
    prometheus = resolved.value;
  }
  let grafana = stored.grafana;
  if (input.grafana !== undefined) {
    if (input.grafana === null) grafana = null;
    else {
      const resolved = resolveGrafana(input.grafana, stored.grafana, ctx);
      if (!resolved.ok) return resolved;
      grafana = resolved.value;
    }
  }
  // Without a Prometheus there is nothing to read history from: the built-in sampler again.
  const metrics_source = prometheus === null ? 'builtin' : stored.metrics_source;
  ctx.request.noteAudit({
    prometheus_url: prometheus?.url ?? '(none)',
    auth: prometheus?.auth ?? 'none',
    secret_changed: String((prometheus?.secret_sealed ?? null) !== (stored.prometheus?.secret_sealed ?? null)),
    grafana_url: grafana?.url ?? '(none)',
    grafana_token_changed: String((grafana?.token_sealed ?? null) !== (stored.grafana?.token_sealed ?? null)),
  });
  await ctx.runtimeSettings.set('observability', { prometheus, grafana, metrics_source });
  return ok(await view(ctx));
}

/** Reachability and what it found: the version, and whether the API server's series are there. */
export async function testSource(input: SourceTestInput, ctx: HandlerContext): Promise<Result<SourceTestAnswer>> {
  const stored = await ctx.runtimeSettings.get('observability');
  if (input.source === 'grafana') {
    let grafana = stored.grafana;
    if (input.grafana !== undefined) {
      const resolved = resolveGrafana(input.grafana, stored.grafana, ctx);
      if (!resolved.ok) return resolved;
      grafana = resolved.value;
    }
    if (grafana === null) return fail({ code: 'conflict', field: 'grafana', message: 'no Grafana is configured: give one to test, or save one first' });
    ctx.request.noteAudit({ grafana_url: grafana.url });
    const health = await ctx.observability.grafana.call(grafana, 'GET', '/api/health');
    if (!health.ok) return ok({ source: 'grafana', ok: false, version: null, apiserver_series: null, message: health.message });
    // The health check needs no token; a search proves the token is accepted.
    const search = await ctx.observability.grafana.call(grafana, 'GET', '/api/search?type=dash-db&limit=1');
    const version = (health.body as { version?: unknown } | null)?.version;
    return ok({ source: 'grafana', ok: search.ok, version: typeof version === 'string' ? version : null, apiserver_series: null, message: search.ok ? null : search.message });
  }
  let source = stored.prometheus;
  if (input.prometheus !== undefined) {
    const resolved = resolveSource(input.prometheus, stored.prometheus, ctx);
    if (!resolved.ok) return resolved;
    source = resolved.value;
  }
  if (source === null) return fail({ code: 'conflict', field: 'prometheus', message: 'no Prometheus source is configured: give one to test, or save one first' });
  ctx.request.noteAudit({ prometheus_url: source.url });
  const build = await ctx.observability.prometheus.call(source, 'api/v1/status/buildinfo', {});
  if (!build.ok) return ok({ source: 'prometheus', ok: false, version: null, apiserver_series: null, message: build.message });
  const series = await ctx.observability.prometheus.call(source, 'api/v1/query', { query: 'count(apiserver_request_total)' });
  const found = series.ok && Array.isArray(series.data.result) && series.data.result.length > 0;
  return ok({ source: 'prometheus', ok: true, version: typeof build.data.version === 'string' ? build.data.version : null, apiserver_series: series.ok ? found : null, message: series.ok ? null : series.message });
}

export async function observabilityStatus(_input: object, ctx: HandlerContext): Promise<Result<ObservabilityStatus>> {
  const stored = await ctx.runtimeSettings.get('observability');
  return ok({ prometheus: { configured: stored.prometheus !== null }, grafana: { configured: stored.grafana !== null }, metrics_source: stored.metrics_source });
}

export async function putMetricsSource(input: v.InferOutput<typeof MetricsSourceInput>, ctx: HandlerContext): Promise<Result<v.InferOutput<typeof MetricsSourceView>>> {
  const stored = await ctx.runtimeSettings.get('observability');
  if (input.source === 'prometheus' && stored.prometheus === null) return fail(noSource('source'));
  ctx.request.noteAudit({ metrics_source: input.source });
  await ctx.runtimeSettings.set('observability', { ...stored, metrics_source: input.source });
  return ok({ source: input.source });
}

export const noSource = (field: string): AppError => ({ code: 'conflict', field, message: 'no Prometheus source is configured (Admin → Observability, or PROMETHEUS_URL)' });
