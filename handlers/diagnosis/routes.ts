// Root causes, not symptoms: the diagnosis engine's answers, with the same access, audit and
// rate class as the incidents they explain.
import { diagnosis, diagnosisDetail } from './diagnose.ts';
import { Diagnosis, DiagnosisDetail, DiagnosisDetailInput, DiagnosisInput } from '../../schema/diagnosis.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const diagnosisRoutes: readonly Route[] = [
  defineRoute({
    ...read,
    method: 'GET',
    path: '/diagnosis',
    summary: 'Root causes with their effects and evidence, critical first, then by effects; history as notes; computed once for the whole cluster and shared for 5 s, then cut to what the caller may see (namespace: roots whose object or some effect lies in it)',
    input: DiagnosisInput,
    namespaceParam: 'namespace',
    output: Diagnosis,
    handler: diagnosis,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/diagnosis/:id',
    summary: 'Why one object (a cluster-model node id, URL-encoded) is unhealthy: its findings, the chain up to the root cause, what it causes elsewhere, every fact with its deep link; healthy: true with empty lists for a healthy object',
    input: DiagnosisDetailInput,
    output: DiagnosisDetail,
    handler: diagnosisDetail,
  }),
];
