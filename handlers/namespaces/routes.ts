// Namespaces this credential may see, and the pods in one.
import { listNamespaces } from './list.ts';
import { NoInput } from '../../schema/common.ts';
import { NamespaceList } from '../../schema/namespaces.ts';
import { defineRoute, type Route } from '../route.ts';
import { listPods } from './pods.ts';
import { PodList, PodsInput } from '../../schema/overview.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const namespaceRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/namespaces',
    summary: 'Namespaces this credential may see, after the system blocklist and tenantNamespaces',
    input: NoInput,
    output: NamespaceList,
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    handler: listNamespaces,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/namespaces/:namespace/pods',
    summary: "A namespace's pods: phase, ready, restarts, node, age, owner workload, requests and limits; 403 outside the visible namespaces",
    input: PodsInput,
    namespaceParam: 'namespace',
    output: PodList,
    handler: listPods,
  }),
];
