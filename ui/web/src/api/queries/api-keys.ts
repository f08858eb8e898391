// Your API keys: the list, creating one (its secret comes back once) and revoking one.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type ApiKey = Answer<'get_me_api_keys'>['api_keys'][number];
export type Scope = Body<'post_me_api_keys'>['scopes'][number];

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

const apiKeysKey = ['account', 'api-keys'] as const;

export const apiKeys = () => queryOptions({ queryKey: apiKeysKey, queryFn: () => unwrap(api.GET('/me/api-keys')) });

export const createApiKey = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (key: Body<'post_me_api_keys'>) => unwrap(api.POST('/me/api-keys', { body: key })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey }),
  });

export const revokeApiKey = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: number) => unwrap(api.DELETE('/me/api-keys/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey }),
  });
