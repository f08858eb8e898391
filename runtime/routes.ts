// The route table: every endpoint, its schemas and its policy, in one place. The runtime
// builds the HTTP app from it; the OpenAPI document is generated from it.
import { liveness, readiness } from '../handlers/health/probes.ts';
import { listNamespaces } from '../handlers/namespaces/list.ts';
import { NoInput } from '../schema/common.ts';
import { Liveness, Readiness } from '../schema/health.ts';
import { NamespaceList } from '../schema/namespaces.ts';
import { defineRoute, type Route } from './http/route.ts';

const probe = { access: { auth: 'public' }, audit: 'none', rateLimit: 'probe', feature: null, input: NoInput } as const;

export const routes: readonly Route[] = [
  defineRoute({ ...probe, method: 'GET', path: '/healthz', summary: 'Liveness probe', output: Liveness, handler: liveness }),
  defineRoute({
    ...probe,
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness probe: 200 once the informer cache has synced, 503 before',
    output: Readiness,
    handler: readiness,
  }),
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
];
