// Custom resources: the kinds the cluster's CRDs add, one page of a kind's objects (keyed by
// the kind, every filter and the cursor, as the built-in kinds' pages are), and one object.
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type CustomKind = Answer<'get_custom_resources'>['items'][number];
export type CustomPage = Answer<'get_custom_resources_by_group_by_plural'>;
export type CustomDetail = Answer<'get_custom_resources_by_group_by_plural_by_name'>;

export interface CustomFilters {
  namespace?: string;
  q?: string;
  labels?: string;
  sort?: 'name' | 'age';
  cursor?: string;
}

const customKey = ['custom-resources'] as const;

/** The CRDs change rarely; every read of them counts against the discovery rate, so they are not polled. */
export const customKinds = () =>
  queryOptions({
    queryKey: [...customKey, 'kinds'],
    queryFn: () => unwrap(api.GET('/custom-resources')),
    staleTime: 60_000,
  });

export const customObjects = (group: string, plural: string, filters: CustomFilters) =>
  queryOptions({
    queryKey: [...customKey, group, plural, filters],
    queryFn: () => unwrap(api.GET('/custom-resources/{group}/{plural}', { params: { path: { group, plural }, query: { ...filters, limit: '100' } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

export const customObject = (group: string, plural: string, name: string, namespace: string | null) =>
  queryOptions({
    queryKey: [...customKey, group, plural, 'detail', namespace, name],
    queryFn: () => unwrap(api.GET('/custom-resources/{group}/{plural}/{name}', { params: { path: { group, plural, name }, query: namespace === null ? {} : { namespace } } })),
    staleTime: 30_000,
  });

/** The dashboard's address of a custom kind's list, and of one of its objects. */
export const customListHref = (kind: Pick<CustomKind, 'group' | 'plural'>): string => `/custom-resources/${kind.group}/${kind.plural}`;
export const customObjectHref = (kind: Pick<CustomKind, 'group' | 'plural'>, row: { name: string; namespace: string | null }): string =>
  `${customListHref(kind)}/${encodeURIComponent(row.name)}${row.namespace === null ? '' : `?namespace=${encodeURIComponent(row.namespace)}`}`;
