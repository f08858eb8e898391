// The observability connector (spec §1 "Observability connector", §4 "Observability" and
// "Metrics"; docs/observability.md): the Prometheus source an admin configures, the guarded
// PromQL proxy, and the API server's metrics read through it.
import * as v from 'valibot';

export const PrometheusAuth = v.picklist(['none', 'bearer', 'basic']);
/** Where history and app network come from: Capstan's own sampler, or the configured Prometheus. */
export const MetricsSource = v.picklist(['builtin', 'prometheus']);
export type MetricsSource = v.InferOutput<typeof MetricsSource>;

/** A Prometheus source as stored: the secret (bearer token or basic password) sealed with the at-rest key. */
export const StoredPrometheusSource = v.object({
  url: v.string(),
  auth: PrometheusAuth,
  username: v.nullable(v.string()),
  secret_sealed: v.nullable(v.string()),
});
export type StoredPrometheusSource = v.InferOutput<typeof StoredPrometheusSource>;

/** Grafana as stored: its service-account token sealed; the dashboard embedded as the Overview, if any. */
export const StoredGrafanaSource = v.object({
  url: v.string(),
  token_sealed: v.nullable(v.string()),
  overview_uid: v.nullable(v.string()),
});
export type StoredGrafanaSource = v.InferOutput<typeof StoredGrafanaSource>;

export const ObservabilitySettings = v.object({
  prometheus: v.nullable(StoredPrometheusSource),
  /** Absent in settings saved before Grafana was added: none. */
  grafana: v.optional(v.nullable(StoredGrafanaSource), null),
  metrics_source: MetricsSource,
});
export type ObservabilitySettings = v.InferOutput<typeof ObservabilitySettings>;

const Url = v.pipe(v.string(), v.minLength(1, 'url is required'), v.maxLength(2048, 'url is at most 2048 characters'));
export const PrometheusSourceInput = v.object({
  /** The base URL (`https://prometheus.monitoring:9090`, a path prefix allowed); the API is under `/api/v1/`. */
  url: Url,
  auth: v.optional(PrometheusAuth, 'none'),
  /** For `basic`. */
  username: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(256)))),
  /** The bearer token or basic password. `••••` (or absent) keeps the stored one while the URL's host is the same. */
  secret: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(8192)))),
});
export type PrometheusSourceInput = v.InferOutput<typeof PrometheusSourceInput>;

const DashboardUid = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,40}$/, 'a dashboard uid is 1 to 40 letters, digits, - or _'));
export const GrafanaSourceInput = v.object({
  url: Url,
  /** A Grafana service-account token. `••••` (or absent) keeps the stored one while the URL's host is the same. */
  token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(8192)))),
  /** The dashboard shown as the Overview embed; null: none. */
  overview_uid: v.optional(v.nullable(DashboardUid), null),
});
export type GrafanaSourceInput = v.InferOutput<typeof GrafanaSourceInput>;

/** `grafana` absent: unchanged; null: removed. */
export const SourcesInput = v.object({ prometheus: v.nullable(PrometheusSourceInput), grafana: v.optional(v.nullable(GrafanaSourceInput)) });
export type SourcesInput = v.InferOutput<typeof SourcesInput>;

export const SourcesView = v.object({
  prometheus: v.nullable(v.object({ url: v.string(), auth: PrometheusAuth, username: v.nullable(v.string()), secret: v.nullable(v.string()) })),
  grafana: v.nullable(v.object({ url: v.string(), token: v.nullable(v.string()), overview_uid: v.nullable(v.string()) })),
  metrics_source: MetricsSource,
});
export type SourcesView = v.InferOutput<typeof SourcesView>;

export const SourceTestInput = v.object({
  source: v.picklist(['prometheus', 'grafana']),
  /** The form's values, tested before they are saved; absent: the saved source. */
  prometheus: v.optional(PrometheusSourceInput),
  grafana: v.optional(GrafanaSourceInput),
});
export type SourceTestInput = v.InferOutput<typeof SourceTestInput>;

export const SourceTestAnswer = v.object({
  source: v.picklist(['prometheus', 'grafana']),
  ok: v.boolean(),
  /** Prometheus' version (`/api/v1/status/buildinfo`), when it answered. */
  version: v.nullable(v.string()),
  /** Prometheus: whether it holds the API server's request series (`apiserver_request_total`); Grafana: null. */
  apiserver_series: v.nullable(v.boolean()),
  /** Why not, when `ok` is false. */
  message: v.nullable(v.string()),
});
export type SourceTestAnswer = v.InferOutput<typeof SourceTestAnswer>;

export const ObservabilityStatus = v.object({
  prometheus: v.object({ configured: v.boolean() }),
  grafana: v.object({ configured: v.boolean() }),
  metrics_source: MetricsSource,
});
export type ObservabilityStatus = v.InferOutput<typeof ObservabilityStatus>;

export const MetricsSourceInput = v.object({ source: MetricsSource });
export const MetricsSourceView = v.object({ source: MetricsSource });

/** PromQL queries one user may have at Prometheus at once (429 past it). */
export const MAX_IN_FLIGHT_PER_USER = 4;
/** And all users together: the agent's share of Prometheus stays bounded however many sign in. */
export const MAX_IN_FLIGHT_TOTAL = 32;

/** Epoch seconds, as Prometheus' API takes them. */
const EpochSecs = v.pipe(v.number(), v.minValue(0), v.maxValue(32503680000));
const Query = v.pipe(v.string(), v.minLength(1, 'query is required'), v.maxLength(16 * 1024, 'query is at most 16384 characters'));

export const PromQueryInput = v.object({ query: Query, time: v.optional(EpochSecs) });
export type PromQueryInput = v.InferOutput<typeof PromQueryInput>;
export const PromRangeInput = v.object({ query: Query, start: EpochSecs, end: EpochSecs, step: v.optional(v.pipe(v.number(), v.minValue(0.001), v.maxValue(86400 * 7))) });
export type PromRangeInput = v.InferOutput<typeof PromRangeInput>;

export const PromAnswer = v.object({
  /** The query Prometheus was sent: the caller's, confined to the namespaces they may see. */
  query: v.string(),
  result_type: v.picklist(['vector', 'matrix', 'scalar', 'string']),
  /** Prometheus' `data.result`, as it answered. */
  result: v.unknown(),
  /** query_range: the step used (the asked one, raised to the minimum). */
  step_secs: v.optional(v.number()),
  warnings: v.array(v.string()),
});
export type PromAnswer = v.InferOutput<typeof PromAnswer>;

/** `GET /metrics/apiserver` (spec §2): each figure fetched on its own, absent when its query failed or found nothing. */
export const ApiserverMetrics = v.object({
  source: v.picklist(['none', 'prometheus']),
  setup_required: v.optional(v.boolean()),
  requests_per_sec: v.optional(v.number()),
  error_rate_pct: v.optional(v.number()),
  p99_latency_ms: v.optional(v.number()),
  by_verb: v.optional(v.array(v.object({ verb: v.string(), rate: v.number() }))),
});
export type ApiserverMetrics = v.InferOutput<typeof ApiserverMetrics>;

export const ScrapeConfigInput = v.object({
  /** The ServiceAccount's namespace (where Prometheus runs). */
  namespace: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'namespace must be a namespace name'), v.maxLength(63)), 'monitoring'),
});
export const ScrapeConfigAnswer = v.object({ namespace: v.string(), rbac: v.string(), scrape_config: v.string(), warning: v.string() });

/** `format=prometheus` (a scrape job's `params`) answers the exposition text itself; the default, JSON holding it. */
export const OwnMetricsInput = v.object({ format: v.optional(v.picklist(['json', 'prometheus'], 'format must be json or prometheus'), 'json') });
/** GET /observability/metrics as JSON; with format=prometheus the same text as `text/plain`. */
export const OwnMetricsAnswer = v.object({ metrics: v.string() });

export const GrafanaDashboard = v.object({ uid: v.string(), title: v.string(), url: v.string(), folder: v.nullable(v.string()) });
export const GrafanaDashboards = v.object({ dashboards: v.array(GrafanaDashboard) });
/** What the dashboard may embed: never the token. */
export const GrafanaOverview = v.object({ configured: v.boolean(), uid: v.nullable(v.string()), url: v.nullable(v.string()), origin: v.nullable(v.string()) });
export const GrafanaImportInput = v.object({
  /** A dashboard's JSON as exported ("Export for sharing externally": `${DS_PROMETHEUS}` inputs). */
  dashboard: v.record(v.string(), v.unknown()),
  folder_uid: v.optional(v.pipe(v.string(), v.maxLength(40))),
});
export const GrafanaImportAnswer = v.object({ uid: v.string(), title: v.string(), url: v.string(), datasource_uid: v.string() });
