// Cluster state, read-only: namespace health, namespaces and their pods, incidents and one
// pod's story. The agent serves these from its informer cache; they refresh on an interval.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type Overview = Answer<'get_overview'>;
export type IncidentList = Answer<'get_incidents'>;
export type Incident = IncidentList['incidents'][number];
export type IncidentDetail = Answer<'get_incidents_by_namespace_by_pod'>;
export type PodList = Answer<'get_namespaces_by_namespace_pods'>;

export const overview = () => queryOptions({ queryKey: ['overview'], queryFn: () => unwrap(api.GET('/overview')), refetchInterval: 30_000, staleTime: 10_000 });

export const namespaces = () => queryOptions({ queryKey: ['namespaces'], queryFn: () => unwrap(api.GET('/namespaces')), staleTime: 30_000 });

export const pods = (namespace: string) =>
  queryOptions({ queryKey: ['namespaces', namespace, 'pods'], queryFn: () => unwrap(api.GET('/namespaces/{namespace}/pods', { params: { path: { namespace } } })), refetchInterval: 15_000 });

export const incidents = (namespace: string) =>
  queryOptions({ queryKey: ['incidents', namespace], queryFn: () => unwrap(api.GET('/incidents', { params: { query: { namespace } } })), refetchInterval: 15_000 });

export const incident = (namespace: string, pod: string) =>
  queryOptions({ queryKey: ['incidents', namespace, pod], queryFn: () => unwrap(api.GET('/incidents/{namespace}/{pod}', { params: { path: { namespace, pod } } })), refetchInterval: 15_000 });
