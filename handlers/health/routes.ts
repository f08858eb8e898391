// Health: the kubelet's probes (no rate class, exempt from IP access and shedding) and the
// overview, each namespace's verdict with its reasons.
import { liveness, readiness } from './probes.ts';
import { NoInput } from '../../schema/common.ts';
import { Liveness, Readiness } from '../../schema/health.ts';
import { defineRoute, type Route } from '../route.ts';
import { overview } from './overview.ts';
import { Overview } from '../../schema/overview.ts';

const probe = { probe: true, access: { auth: 'public' }, audit: 'none', feature: null, input: NoInput } as const;

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const healthRoutes: readonly Route[] = [
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
    ...read,
    method: 'GET',
    path: '/overview',
    summary: 'Namespace health, critical → degraded → unknown → healthy, from a 30 s server cache',
    input: NoInput,
    output: Overview,
    handler: overview,
  }),
];
