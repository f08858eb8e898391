// The observability connector (docs/observability.md): the Prometheus source (Admin →
// Observability), the status every signed-in screen may read, the API server's metrics, the
// scrape config, and PromQL through the agent's guard. Each factory owns its cache key.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type Sources = Answer<'get_admin_observability_sources'>;
export type SourcesChange = Body<'put_admin_observability_sources'>;
export type SourceTest = Answer<'post_admin_observability_sources_test'>;
export type ObservabilityStatus = Answer<'get_observability_status'>;
export type ApiserverMetrics = Answer<'get_metrics_apiserver'>;
export type ScrapeConfig = Answer<'get_observability_scrape_config'>;
export type PromAnswer = Answer<'post_observability_prom_query_range'>;
export type PromRange = Body<'post_observability_prom_query_range'>;

const sourcesKey = ['admin', 'observability', 'sources'] as const;
const statusKey = ['observability', 'status'] as const;

export const sources = () => queryOptions({ queryKey: sourcesKey, queryFn: () => unwrap(api.GET('/admin/observability/sources')) });

export const saveSources = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (body: SourcesChange) => unwrap(api.PUT('/admin/observability/sources', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(sourcesKey, saved);
      void queryClient.invalidateQueries({ queryKey: statusKey });
      void queryClient.invalidateQueries({ queryKey: ['metrics', 'apiserver'] });
    },
  });

/** The form's values when given (tested before saving), else the saved source. */
export const testSource = () => mutationOptions({ mutationFn: (prometheus?: NonNullable<SourcesChange['prometheus']>) => unwrap(api.POST('/admin/observability/sources/test', { body: { source: 'prometheus', ...(prometheus ? { prometheus } : {}) } })) });

export const setMetricsSource = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (source: 'builtin' | 'prometheus') => unwrap(api.PUT('/metrics/source', { body: { source } })),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: sourcesKey }), queryClient.invalidateQueries({ queryKey: statusKey })]),
  });

export const observabilityStatus = () => queryOptions({ queryKey: statusKey, queryFn: () => unwrap(api.GET('/observability/status')) });

export const apiserverMetrics = () => queryOptions({ queryKey: ['metrics', 'apiserver'] as const, queryFn: () => unwrap(api.GET('/metrics/apiserver')), refetchInterval: 30_000 });

export const scrapeConfig = (namespace: string) => queryOptions({ queryKey: ['admin', 'observability', 'scrape-config', namespace] as const, queryFn: () => unwrap(api.GET('/observability/scrape-config', { params: { query: { namespace } } })) });

/** A range query through the guard: a mutation, since each run is the person's own ask. */
export const runRangeQuery = () => mutationOptions({ mutationFn: (body: PromRange) => unwrap(api.POST('/observability/prom/query_range', { body })) });
