// Per-resource query factories: one key scheme and one fetcher per resource, so screens never
// build keys by hand and invalidation after a write names exactly what changed.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { components, operations } from './schema';

type Json<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer T } } } ? T : never;
export type Overview = Json<'get_overview'>;
export type IncidentList = Json<'get_incidents'>;
export type Incident = IncidentList['incidents'][number];
export type IncidentDetail = Json<'get_incidents_by_namespace_by_pod'>;
export type PodList = Json<'get_namespaces_by_namespace_pods'>;
export type History = Json<'get_metrics_history'>;
export type HistoryWindow = History['window'];
export type App = Json<'get_apps_by_id'>;
export type AppMetrics = Json<'get_apps_by_id_metrics'>;
export type AppNetworkHistory = Json<'get_apps_by_id_network_history'>;
export type Me = Json<'get_me'>;
export type ApiKey = Json<'get_me_api_keys'>['api_keys'][number];
export type AuditEvent = Json<'get_admin_audit_events'>['events'][number];
export type ErrorBody = components['schemas']['Error'];
export type Subgraph = Json<'get_graph_subgraph'>;

export type Scope = NonNullable<operations['post_me_api_keys']['requestBody']>['content']['application/json']['scopes'][number];

/** Every scope the API accepts, with what it grants; the compiler fails when the API's list changes. */
export const SCOPES: Readonly<Record<Scope, string>> = {
  'activity:read': 'read the activity feed',
  'activity:write': 'change activity retention',
  'ai:invoke': 'run AI diagnosis, chat and reports',
  'alerts:read': 'read alert rules and integrations',
  'alerts:write': 'change alert rules and integrations',
  'apps:read': 'read applications',
  'apps:write': 'create and change applications',
  'builder:read': 'read Resource Builder bundles',
  'builder:write': 'plan and apply manifests',
  'helm:read': 'read Helm releases and values',
  'helm:write': 'install, upgrade and uninstall releases',
  'mcp:read': 'the read-only MCP tool surface',
  'metrics:read': 'read metrics and history',
  'metrics:write': 'change the metrics source',
  'policy:read': 'read guardrails and access policy',
  'scanning:read': 'read security findings',
  'scanning:write': 'start scans',
  'topology:read': 'read the cluster model',
  'topology:write': 'change topology settings',
  'workloads:read': 'read namespaces, pods, health and incidents',
  'workloads:write': 'change workloads',
  'workspace:read': 'read Log Workspace',
  'workspace:write': 'change Log Workspace',
};

const STALE_MS = 10_000;

export const queries = {
  me: () => queryOptions({ queryKey: ['me'], queryFn: () => unwrap(api.GET('/me')), retry: false, staleTime: 60_000 }),
  overview: () => queryOptions({ queryKey: ['overview'], queryFn: () => unwrap(api.GET('/overview')), refetchInterval: 30_000, staleTime: STALE_MS }),
  namespaces: () => queryOptions({ queryKey: ['namespaces'], queryFn: () => unwrap(api.GET('/namespaces')), staleTime: 30_000 }),
  pods: (namespace: string) =>
    queryOptions({ queryKey: ['pods', namespace], queryFn: () => unwrap(api.GET('/namespaces/{namespace}/pods', { params: { path: { namespace } } })), refetchInterval: 15_000 }),
  incidents: (namespace: string) =>
    queryOptions({ queryKey: ['incidents', namespace], queryFn: () => unwrap(api.GET('/incidents', { params: { query: { namespace } } })), refetchInterval: 15_000 }),
  incident: (namespace: string, pod: string) =>
    queryOptions({ queryKey: ['incident', namespace, pod], queryFn: () => unwrap(api.GET('/incidents/{namespace}/{pod}', { params: { path: { namespace, pod } } })), refetchInterval: 15_000 }),
  history: (q: { scope: 'cluster' | 'namespace' | 'pod'; namespace?: string; name?: string; window: HistoryWindow }) =>
    queryOptions({ queryKey: ['history', q], queryFn: () => unwrap(api.GET('/metrics/history', { params: { query: q } })), refetchInterval: 60_000 }),
  apps: () => queryOptions({ queryKey: ['apps'], queryFn: () => unwrap(api.GET('/apps')) }),
  app: (id: string) => queryOptions({ queryKey: ['apps', id], queryFn: () => unwrap(api.GET('/apps/{id}', { params: { path: { id } } })) }),
  appMetrics: (id: string) =>
    queryOptions({ queryKey: ['apps', id, 'metrics'], queryFn: () => unwrap(api.GET('/apps/{id}/metrics', { params: { path: { id } } })), refetchInterval: 30_000 }),
  appNetwork: (id: string, window: HistoryWindow) =>
    queryOptions({ queryKey: ['apps', id, 'network', window], queryFn: () => unwrap(api.GET('/apps/{id}/network-history', { params: { path: { id }, query: { window } } })) }),
  apiKeys: () => queryOptions({ queryKey: ['me', 'api-keys'], queryFn: () => unwrap(api.GET('/me/api-keys')) }),
  secondFactor: () => queryOptions({ queryKey: ['me', 'second-factor'], queryFn: () => unwrap(api.GET('/me/second-factor')) }),
  grants: () => queryOptions({ queryKey: ['me', 'grants'], queryFn: () => unwrap(api.GET('/me/oauth/grants')) }),
  mySessions: () => queryOptions({ queryKey: ['me', 'sessions'], queryFn: () => unwrap(api.GET('/me/sessions')) }),
  users: () => queryOptions({ queryKey: ['admin', 'users'], queryFn: () => unwrap(api.GET('/admin/users')) }),
  securitySettings: () => queryOptions({ queryKey: ['admin', 'security'], queryFn: () => unwrap(api.GET('/admin/settings/security')) }),
  accessControl: () => queryOptions({ queryKey: ['admin', 'access-control'], queryFn: () => unwrap(api.GET('/admin/access-control')) }),
  chain: () => queryOptions({ queryKey: ['admin', 'chain'], queryFn: () => unwrap(api.GET('/audit/verify-chain')) }),
  auditEvents: (filters: Record<string, string>) =>
    queryOptions({ queryKey: ['admin', 'audit', filters], queryFn: () => unwrap(api.GET('/admin/audit/events', { params: { query: filters } })) }),
  entity: (id: string) => queryOptions({ queryKey: ['graph', 'entity', id], queryFn: () => unwrap(api.GET('/graph/entity/{id}', { params: { path: { id } } })), refetchInterval: 15_000 }),
  subgraph: (focus: string) =>
    queryOptions({ queryKey: ['graph', 'subgraph', focus], queryFn: () => unwrap(api.GET('/graph/subgraph', { params: { query: { focus, hops: '2', budget: '4000' } } })), refetchInterval: 30_000 }),
  auditEvent: (id: string) => queryOptions({ queryKey: ['admin', 'audit', 'event', id], queryFn: () => unwrap(api.GET('/admin/audit/events/{id}', { params: { path: { id } } })) }),
};
