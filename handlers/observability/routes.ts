// The observability connector (docs/observability.md): the Prometheus source, the guarded
// PromQL proxy (Pro: feature `observability`) and the API server's metrics read through it.
import { NoInput } from '../../schema/common.ts';
import { ApiserverMetrics, GrafanaDashboards, GrafanaImportAnswer, GrafanaImportInput, GrafanaOverview, MetricsSourceInput, OwnMetricsAnswer, OwnMetricsInput, ScrapeConfigAnswer, ScrapeConfigInput, MetricsSourceView, ObservabilityStatus, PromAnswer, PromQueryInput, PromRangeInput, SourcesInput, SourcesView, SourceTestAnswer, SourceTestInput } from '../../schema/observability.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';
import { apiserverMetrics } from './apiserver.ts';
import { grafanaDashboards, grafanaImport, grafanaOverview } from './grafana.ts';
import { promQuery, promQueryRange } from './prom.ts';
import { getOwnMetrics, getScrapeConfig } from './scrape-config.ts';
import { getSources, observabilityStatus, putMetricsSource, putSources, testSource } from './sources.ts';

const reader = { access: { auth: 'credential', role: 'viewer', scope: 'metrics:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;
/** Sources carry a credential: set and tested from an admin's session only, like every stored secret. */
const admin = noApiKeys('admin');

export const observabilityRoutes: readonly Route[] = [
  defineRoute({ ...reader, access: { auth: 'credential', role: 'admin', scope: 'metrics:read' }, method: 'GET', path: '/admin/observability/sources', summary: 'The Prometheus source (admin): URL, authentication, the secret masked as ••••; and the metrics source in use', input: NoInput, output: SourcesView, handler: getSources }),
  defineRoute({ ...admin, audit: 'auth', rateLimit: 'write', method: 'PUT', path: '/admin/observability/sources', summary: 'Save the Prometheus source (null removes it): ••••, or no secret, keeps the stored one while the host is the same; a new host needs it again. The URL passes the outbound rules', input: SourcesInput, output: SourcesView, handler: putSources }),
  defineRoute({ ...admin, audit: 'auth', rateLimit: 'write', method: 'POST', path: '/admin/observability/sources/test', summary: 'Test a source (the form\'s values, or the saved one): whether it answers, its version, whether it holds the API server\'s series', input: SourceTestInput, output: SourceTestAnswer, handler: testSource }),
  defineRoute({ ...reader, method: 'GET', path: '/observability/status', summary: 'Whether a Prometheus (and a Grafana) is configured, and the metrics source in use', input: NoInput, output: ObservabilityStatus, handler: observabilityStatus }),
  defineRoute({ access: { auth: 'credential', role: 'admin', scope: 'metrics:write' }, audit: 'auth', rateLimit: 'write', feature: null, method: 'PUT', path: '/metrics/source', summary: 'Where history and app network come from: builtin (Capstan\'s sampler) or prometheus (409 without a source)', input: MetricsSourceInput, output: MetricsSourceView, handler: putMetricsSource }),
  defineRoute({ ...reader, method: 'GET', path: '/metrics/apiserver', summary: 'The API server\'s request rate, error rate and p99 latency (WATCH and CONNECT left out) and top verbs, from Prometheus; each figure absent when its query fails; source none with setup_required without a source', input: NoInput, output: ApiserverMetrics, handler: apiserverMetrics }),
  defineRoute({ ...reader, access: { auth: 'credential', role: 'admin', scope: 'metrics:read' }, method: 'GET', path: '/observability/scrape-config', summary: 'What a cluster\'s Prometheus needs to scrape node container metrics through the API server\'s proxy (admin): read-only RBAC (ServiceAccount capstan-metrics-scraper, get on nodes/proxy and nodes/metrics, its token Secret) and a scrape_configs entry; text only, nothing applied', input: ScrapeConfigInput, output: ScrapeConfigAnswer, handler: getScrapeConfig }),
  defineRoute({ ...reader, method: 'GET', path: '/observability/metrics', summary: 'Capstan\'s own metrics in Prometheus\' exposition format (requests and latency per route, informer state, diagnosis duration, outbound failures, audit export lag); a scraper asks format=prometheus for the text itself and authenticates with an API key (metrics:read) as a bearer token', input: OwnMetricsInput, output: OwnMetricsAnswer, files: ['text/plain; version=0.0.4; charset=utf-8'], handler: getOwnMetrics }),
  defineRoute({ ...reader, access: { auth: 'credential', role: 'admin', scope: 'metrics:read' }, method: 'GET', path: '/observability/grafana/dashboards', summary: 'Grafana\'s dashboards (admin), through its HTTP API with the stored service-account token', input: NoInput, output: GrafanaDashboards, handler: grafanaDashboards }),
  defineRoute({ ...reader, method: 'GET', path: '/observability/grafana/overview', summary: 'Whether and what to embed as the Overview: the dashboard\'s URL, uid and Grafana\'s origin; never the token', input: NoInput, output: GrafanaOverview, handler: grafanaOverview }),
  defineRoute({ access: { auth: 'credential', role: 'admin', scope: 'metrics:write' }, audit: 'write', rateLimit: 'write', feature: null, method: 'POST', path: '/observability/grafana/import', summary: 'Import a dashboard (its exported JSON) through Grafana\'s /api/dashboards/import, its ${DS_PROMETHEUS}-style inputs bound to Grafana\'s Prometheus data source', input: GrafanaImportInput, output: GrafanaImportAnswer, handler: grafanaImport }),
  defineRoute({ ...reader, feature: 'observability', method: 'POST', path: '/observability/prom/query', summary: 'A PromQL instant query through the guard: every selector confined to the namespaces you may see (series without one for admins only), refusals with the reason and position; 4 queries in flight per user, 10 s, 5 MiB', input: PromQueryInput, output: PromAnswer, handler: promQuery }),
  defineRoute({ ...reader, feature: 'observability', method: 'POST', path: '/observability/prom/query_range', summary: 'A PromQL range query through the guard: at most 7 days, the step raised to at least max(range / 11000, 15 s)', input: PromRangeInput, output: PromAnswer, handler: promQueryRange }),
];

