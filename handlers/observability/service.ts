// What the observability handlers are given (runtime/observability/prometheus.ts): one call to
// the configured Prometheus through the outbound client, and per-user query slots.
import type { StoredGrafanaSource, StoredPrometheusSource } from '../../schema/observability.ts';

export type PrometheusPath = 'api/v1/query' | 'api/v1/query_range' | 'api/v1/status/buildinfo';

export type PrometheusCallResult =
  | { ok: true; data: { resultType?: string; result?: unknown; version?: string }; warnings: string[] }
  /** `query`: Prometheus refused the query itself (400 bad_data, 422 execution); `unreachable`: anything else. */
  | { ok: false; kind: 'unreachable' | 'query'; status: number; message: string };

export type PrometheusCall = (source: StoredPrometheusSource, path: PrometheusPath, params: Record<string, string>) => Promise<PrometheusCallResult>;

export interface PrometheusConnection {
  call: PrometheusCall;
}

export interface ObservabilityService {
  prometheus: PrometheusConnection;
  grafana: GrafanaConnection;
  /** A query slot for `user`, released by the function it answers; null when they have MAX_IN_FLIGHT_PER_USER already. */
  acquire(user: string): (() => void) | null;
  /** Capstan's own metrics (runtime/observability/own-metrics.ts): recorded by the runtime, rendered for GET /observability/metrics. */
  ownMetrics: {
    httpRequest(method: string, route: string, status: number, seconds: number): void;
    render(): Promise<{ body: string; contentType: string }>;
  };
}

export type GrafanaCallResult = { ok: true; status: number; body: unknown } | { ok: false; status: number; message: string };

/** One call to Grafana's HTTP API with the stored service-account token (runtime/observability/grafana.ts). */
export interface GrafanaConnection {
  call(source: StoredGrafanaSource, method: 'GET' | 'POST', path: string, body?: unknown): Promise<GrafanaCallResult>;
}
