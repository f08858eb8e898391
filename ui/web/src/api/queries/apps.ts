// Applications (a label selector across namespaces): the list, one with its usage and
// network, a live preview of what a definition selects, and creating one.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';
import type { HistoryWindow } from './history';

export type App = Answer<'get_apps_by_id'>;
export type AppMetrics = Answer<'get_apps_by_id_metrics'>;
export type AppNetworkHistory = Answer<'get_apps_by_id_network_history'>;
export type AppDefinition = Body<'post_apps'>;

const appsKey = ['apps'] as const;

export const apps = () => queryOptions({ queryKey: [...appsKey, 'list'], queryFn: () => unwrap(api.GET('/apps')) });

export const app = (id: string) => queryOptions({ queryKey: [...appsKey, 'by-id', id], queryFn: () => unwrap(api.GET('/apps/{id}', { params: { path: { id } } })) });

export const appMetrics = (id: string) =>
  queryOptions({ queryKey: [...appsKey, 'by-id', id, 'metrics'], queryFn: () => unwrap(api.GET('/apps/{id}/metrics', { params: { path: { id } } })), refetchInterval: 30_000 });

export const appNetwork = (id: string, window: HistoryWindow) =>
  queryOptions({ queryKey: [...appsKey, 'by-id', id, 'network', window], queryFn: () => unwrap(api.GET('/apps/{id}/network-history', { params: { path: { id }, query: { window } } })) });

/** The pods a definition selects right now; off until it names a namespace and a selector. */
export const appPreview = (definition: Body<'post_apps_preview'>, enabled: boolean) =>
  queryOptions({ queryKey: [...appsKey, 'preview', definition], queryFn: () => unwrap(api.POST('/apps/preview', { body: definition })), enabled, retry: false });

export const createApp = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (definition: AppDefinition) => unwrap(api.POST('/apps', { body: definition })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...appsKey, 'list'] }),
  });
