// Calls to the configured Prometheus (docs/observability.md), all through the one outbound
// client: pinned resolution, no redirects, metadata, link-local, loopback and the Kubernetes
// API refused, a 5 MiB answer cap and a 10 s timeout. Only two query APIs (instant and range)
// and the build info; each call sends the source's credentials to the source's own URL.
import type { ObservabilityService, PrometheusCall, PrometheusConnection } from '../../handlers/observability/service.ts';
import { MAX_IN_FLIGHT_PER_USER, MAX_IN_FLIGHT_TOTAL, type StoredPrometheusSource } from '../../schema/observability.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { StreamSlots } from '../http/streams.ts';
import { OutboundError, type OutboundClient } from '../outbound/client.ts';

export const PROMETHEUS_LIMITS = { timeoutMs: 10_000, maxResponseBytes: 5 * 1024 * 1024 };

/** The source's credentials as a header, unsealed only for the call. */
function authorizationOf(source: StoredPrometheusSource, secrets: SecretBox): string | null {
  if (source.auth === 'none' || source.secret_sealed === null) return null;
  const secret = secrets.open(source.secret_sealed);
  return source.auth === 'bearer' ? `Bearer ${secret}` : `Basic ${Buffer.from(`${source.username ?? ''}:${secret}`).toString('base64')}`;
}

interface PrometheusBody {
  status?: string;
  data?: { resultType?: string; result?: unknown; version?: string };
  errorType?: string;
  error?: string;
  warnings?: unknown[];
}

export function prometheusConnection(outbound: OutboundClient, secrets: SecretBox): PrometheusConnection {
  const fetcher = outbound.fetcher(PROMETHEUS_LIMITS);
  const call: PrometheusCall = async (source, path, params) => {
    const base = source.url.endsWith('/') ? source.url : `${source.url}/`;
    const url = new URL(path, base);
    const authorization = authorizationOf(source, secrets);
    let response: Response;
    try {
      response = await fetcher(url, {
        method: path === 'api/v1/status/buildinfo' ? 'GET' : 'POST',
        headers: { accept: 'application/json', ...(path === 'api/v1/status/buildinfo' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), ...(authorization ? { authorization } : {}) },
        ...(path === 'api/v1/status/buildinfo' ? {} : { body: new URLSearchParams(params).toString() }),
      });
    } catch (err) {
      return { ok: false, kind: 'unreachable', status: 0, message: err instanceof OutboundError ? err.message : `Prometheus at ${url.origin} did not answer: ${err instanceof Error ? err.message : String(err)}` };
    }
    let body: PrometheusBody;
    try {
      body = (await response.json()) as PrometheusBody;
    } catch (err) {
      if (err instanceof OutboundError) return { ok: false, kind: 'unreachable', status: response.status, message: err.message };
      return { ok: false, kind: 'unreachable', status: response.status, message: `Prometheus at ${url.origin} answered ${String(response.status)} with something that is not its API's JSON` };
    }
    if (response.status === 401 || response.status === 403) return { ok: false, kind: 'unreachable', status: response.status, message: `Prometheus at ${url.origin} refused Capstan's credentials (${String(response.status)})` };
    if (body.status !== 'success') {
      // 400 bad_data and 422 execution errors are about the query; anything else about the server.
      const kind = response.status === 400 || response.status === 422 ? 'query' : 'unreachable';
      return { ok: false, kind, status: response.status, message: `Prometheus: ${body.error ?? `status ${String(response.status)}`}` };
    }
    const warnings = (body.warnings ?? []).filter((w): w is string => typeof w === 'string');
    return { ok: true, data: body.data ?? {}, warnings };
  };
  return { call };
}

/** Per-user slots, the same counting the streamed routes use: a query holds one while Prometheus works on it. */
export function inFlightLimiter(max = MAX_IN_FLIGHT_PER_USER): ObservabilityService['acquire'] {
  const slots = new StreamSlots({ maxPerUser: max, maxTotal: MAX_IN_FLIGHT_TOTAL, retryAfterSecs: 1 });
  return (user) => {
    const slot = slots.acquire(user);
    return slot.ok ? slot.release : null;
  };
}
