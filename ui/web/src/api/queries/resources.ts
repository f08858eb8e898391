// Browsing by kind: one page of a kind's objects, keyed by the kind and every filter and the
// cursor, so each page is cached on its own and Back returns to it at once.
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type ResourcePage = Answer<'get_resources_by_kind'>;
export type ResourceRow = ResourcePage['items'][number];
export { KINDS, type Kind } from '../kinds';
import type { Kind } from '../kinds';


export interface ResourceFilters {
  namespace?: string;
  q?: string;
  labels?: string;
  status?: 'problem' | 'ok';
  owner?: string;
  sort?: 'name' | 'age';
  cursor?: string;
}

export const resources = (kind: Kind, filters: ResourceFilters) =>
  queryOptions({
    queryKey: ['resources', kind, filters],
    queryFn: () => unwrap(api.GET('/resources/{kind}', { params: { path: { kind }, query: { ...filters, limit: '100' } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });

export type ResourceDetail = Answer<'get_resources_by_kind_by_name'>;

/** One object: its row and events from the cache, its YAML read live (so not refreshed on an interval). */
export const resourceDetail = (kind: Kind, name: string, namespace: string | null) =>
  queryOptions({
    queryKey: ['resources', kind, 'detail', namespace, name],
    queryFn: () => unwrap(api.GET('/resources/{kind}/{name}', { params: { path: { kind, name }, query: namespace === null ? {} : { namespace } } })),
    staleTime: 30_000,
  });

/** The dashboard's address of one object's detail. */
export const detailHref = (row: Pick<ResourceRow, 'kind' | 'name' | 'namespace'>, kind: Kind): string =>
  `/resources/${kind}/${encodeURIComponent(row.name)}${row.namespace === null ? '' : `?namespace=${encodeURIComponent(row.namespace)}`}`;
