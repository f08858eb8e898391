// The cluster model: one object with its neighbours, and the subgraph drawn around it.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type Subgraph = Answer<'get_graph_subgraph'>;

export const entity = (id: string) =>
  queryOptions({ queryKey: ['graph', 'entity', id], queryFn: () => unwrap(api.GET('/graph/entity/{id}', { params: { path: { id } } })), refetchInterval: 15_000 });

export const subgraph = (focus: string) =>
  queryOptions({ queryKey: ['graph', 'subgraph', focus], queryFn: () => unwrap(api.GET('/graph/subgraph', { params: { query: { focus, hops: '2', budget: '4000' } } })), refetchInterval: 30_000 });

/** Objects whose name contains `q` (the command palette); problems first, at most 8. */
export const search = (q: string) =>
  queryOptions({ queryKey: ['graph', 'search', q], queryFn: () => unwrap(api.GET('/graph/search', { params: { query: { q, limit: '8' } } })), staleTime: 10_000 });
