// Browsing the cluster by kind, from the informer cache (never a LIST per request), as every
// read: visible namespaces only, `workloads:read` for keys. docs/resources.md.
import { ResourceDetail, ResourceDetailInput, ResourceList, ResourceListInput } from '../../schema/resources.ts';
import { resourceDetail } from './detail.ts';
import { defineRoute, type Route } from '../route.ts';
import { listResources } from './list.ts';

export const resourceRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/resources/:kind',
    summary: 'One kind of object (deployments, pods, nodes, events...), from the cache: filters namespace, q (name substring), labels (key=value,key), status (problem|ok), owner (Kind/name), sort (name|age); keyset pages (limit 1–500, default 100; cursor)',
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    namespaceParam: 'namespace',
    input: ResourceListInput,
    output: ResourceList,
    handler: listResources,
  }),
  defineRoute({
    method: 'GET',
    path: '/resources/:kind/:name',
    summary: "One object (namespace required for namespaced kinds): its row, its events, and the object read live as YAML with managed fields dropped, a Secret reduced to metadata and type, a ConfigMap to its keys, and secret-looking values redacted",
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    namespaceParam: 'namespace',
    input: ResourceDetailInput,
    output: ResourceDetail,
    handler: resourceDetail,
  }),
];
