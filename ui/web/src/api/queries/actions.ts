// Writes to the cluster: what the agent's RBAC lets it offer, and each action. A success
// refreshes the object's detail and its kind's lists (the cache sees the change within moments).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type Allowed = Answer<'get_actions_allowed'>;
export type ActionKind = 'deployments' | 'pods' | 'nodes';

export const allowedActions = (kind: ActionKind, namespace: string | null) =>
  queryOptions({
    queryKey: ['actions', 'allowed', kind, namespace],
    queryFn: () => unwrap(api.GET('/actions/allowed', { params: { query: { kind, ...(namespace === null ? {} : { namespace }) } } })),
    staleTime: 60_000,
    retry: false,
  });

export type Action =
  | { action: 'restart'; namespace: string; name: string }
  | { action: 'scale'; namespace: string; name: string; replicas: number }
  | { action: 'delete'; namespace: string; name: string }
  | { action: 'cordon' | 'uncordon'; name: string };

function run(a: Action): Promise<unknown> {
  switch (a.action) {
    case 'restart':
      return unwrap(api.POST('/namespaces/{namespace}/deployments/{name}/restart', { params: { path: { namespace: a.namespace, name: a.name } } }));
    case 'scale':
      return unwrap(api.POST('/namespaces/{namespace}/deployments/{name}/scale', { params: { path: { namespace: a.namespace, name: a.name } }, body: { replicas: a.replicas } }));
    case 'delete':
      return unwrap(api.DELETE('/namespaces/{namespace}/pods/{pod}', { params: { path: { namespace: a.namespace, pod: a.name } } }));
    case 'cordon':
      return unwrap(api.POST('/nodes/{name}/cordon', { params: { path: { name: a.name } } }));
    case 'uncordon':
      return unwrap(api.POST('/nodes/{name}/uncordon', { params: { path: { name: a.name } } }));
  }
}

export const act = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['resources'] }),
  });
