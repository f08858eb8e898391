// Calls to the configured Grafana (docs/observability.md, "Grafana"), through the one outbound
// client like every configured endpoint: its HTTP API with the service-account token as a
// bearer token, which stays here (no answer of Capstan's carries it). Grafana's errors are
// `{"message": ...}`; they are relayed in its words.
import type { GrafanaConnection } from '../../handlers/observability/service.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { OutboundError, type OutboundClient } from '../outbound/client.ts';

export const GRAFANA_LIMITS = { timeoutMs: 10_000, maxResponseBytes: 5 * 1024 * 1024 };

export function grafanaConnection(outbound: OutboundClient, secrets: SecretBox): GrafanaConnection {
  const fetcher = outbound.fetcher(GRAFANA_LIMITS);
  return {
    async call(source, method, path, body) {
      const url = new URL(path.replace(/^\//, ''), source.url.endsWith('/') ? source.url : `${source.url}/`);
      const token = source.token_sealed === null ? null : secrets.open(source.token_sealed);
      let response: Response;
      try {
        response = await fetcher(url, { method, headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      } catch (err) {
        return { ok: false, status: 0, message: err instanceof OutboundError ? err.message : `Grafana at ${url.origin} did not answer: ${err instanceof Error ? err.message : String(err)}` };
      }
      let parsed: unknown = null;
      try {
        parsed = await response.json();
      } catch (err) {
        if (err instanceof OutboundError) return { ok: false, status: response.status, message: err.message };
      }
      if (!response.ok) {
        const words = typeof parsed === 'object' && parsed !== null && typeof (parsed as { message?: unknown }).message === 'string' ? (parsed as { message: string }).message : `status ${String(response.status)}`;
        return { ok: false, status: response.status, message: `Grafana: ${words}` };
      }
      return { ok: true, status: response.status, body: parsed };
    },
  };
}
