// Browsing the cluster by kind, from the informer cache (never a LIST per request), as every
// read: visible namespaces only, `workloads:read` for keys. docs/resources.md.
import { CustomDetail, CustomDetailInput, CustomKindList, CustomList, CustomListInput, ResourceDetail, ResourceDetailInput, ResourceList, ResourceListInput } from '../../schema/resources.ts';
import { NoInput } from '../../schema/common.ts';
import { customObjectDetail, listCustomKinds, listCustomObjects } from './custom.ts';
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
  // Custom resources: each request may start a cache or read the CRDs, so all three are the
  // `discovery` rate class (security.discoveryRateLimitPerMin a minute per caller, 429 past it).
  defineRoute({
    method: 'GET',
    path: '/custom-resources',
    summary: 'The kinds the cluster\'s CRDs add (served and established), by group then kind',
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'discovery',
    feature: null,
    input: NoInput,
    output: CustomKindList,
    handler: listCustomKinds,
  }),
  defineRoute({
    method: 'GET',
    path: '/custom-resources/:group/:plural',
    summary: 'One custom kind\'s objects, from a cache started on first use (503 while its first LIST runs): filters namespace, q, labels, owner, sort (name|age); keyset pages (limit 1–500, default 100; cursor); truncated past 10 000 objects',
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'discovery',
    feature: null,
    namespaceParam: 'namespace',
    input: CustomListInput,
    output: CustomList,
    handler: listCustomObjects,
  }),
  defineRoute({
    method: 'GET',
    path: '/custom-resources/:group/:plural/:name',
    summary: 'One custom object (namespace required for a namespaced kind): its row, its events, and the object read live as YAML with managed fields dropped and secret-looking values redacted',
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'discovery',
    feature: null,
    namespaceParam: 'namespace',
    input: CustomDetailInput,
    output: CustomDetail,
    handler: customObjectDetail,
  }),
];
