// The cluster model: one object with its neighbours, and the subgraph drawn around it.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type Subgraph = Answer<'get_graph_subgraph'>;
export type Entity = Answer<'get_graph_entity_by_id'>;

export const entity = (id: string) =>
  queryOptions({ queryKey: ['graph', 'entity', id], queryFn: () => unwrap(api.GET('/graph/entity/{id}', { params: { path: { id } } })), refetchInterval: 15_000 });

export const subgraph = (focus: string) =>
  queryOptions({ queryKey: ['graph', 'subgraph', focus], queryFn: () => unwrap(api.GET('/graph/subgraph', { params: { query: { focus, hops: '2', budget: '4000' } } })), refetchInterval: 30_000 });

/** Objects whose name contains `q` (the command palette); problems first, at most 8. */
export const search = (q: string) =>
  queryOptions({ queryKey: ['graph', 'search', q], queryFn: () => unwrap(api.GET('/graph/search', { params: { query: { q, limit: '8' } } })), staleTime: 10_000 });

export type Layout = Answer<'get_topology_layout'>;
const layoutKey = (focus: string) => ['graph', 'layout', focus] as const;

/** Your saved arrangement around `focus`, or null when you saved none (a 404 is an answer here). */
export const layout = (focus: string) =>
  queryOptions({
    queryKey: layoutKey(focus),
    queryFn: async () => {
      const call = api.GET('/topology/layout', { params: { query: { focus } } });
      if ((await call).response.status === 404) return null;
      return unwrap(call);
    },
    staleTime: Infinity,
  });

export const saveLayout = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (body: { focus: string; positions: Record<string, { x: number; y: number }> }) => unwrap(api.PUT('/topology/layout', { body })),
    onSuccess: (saved) => queryClient.setQueryData(layoutKey(saved.focus), saved),
  });

export const forgetLayout = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (focus: string) => unwrap(api.DELETE('/topology/layout', { params: { query: { focus } } })),
    onSuccess: (_done, focus) => queryClient.setQueryData(layoutKey(focus), null),
  });
