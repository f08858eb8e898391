// A container's logs: the tail (a query, refreshed by hand: a log is read from the API server
// on each ask) and the follow's URL (read as Server-Sent Events by useLogFollow).
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type ContainerLog = Answer<'get_namespaces_by_namespace_pods_by_pod_logs'>;

export interface LogQuery {
  container: string | null;
  previous: boolean;
  tailLines: number;
}

const query = (q: LogQuery) => ({ ...(q.container ? { container: q.container } : {}), previous: String(q.previous) as 'true' | 'false', tail_lines: String(q.tailLines) });

export const containerLog = (namespace: string, pod: string, q: LogQuery) =>
  queryOptions({
    queryKey: ['logs', namespace, pod, q.container, q.previous, q.tailLines],
    queryFn: () => unwrap(api.GET('/namespaces/{namespace}/pods/{pod}/logs', { params: { path: { namespace, pod }, query: query(q) } })),
    staleTime: Infinity,
    retry: false,
  });

export const followUrl = (namespace: string, pod: string, q: LogQuery): string =>
  `/api/agent/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/logs/follow?${new URLSearchParams(query(q)).toString()}`;
