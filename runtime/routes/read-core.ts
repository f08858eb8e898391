// Inventory, namespace health and incidents: pure handlers over the informer cache.
import { overview } from '../../handlers/health/overview.ts';
import { incidentDetail } from '../../handlers/incidents/detail.ts';
import { listIncidents } from '../../handlers/incidents/list.ts';
import { listPods } from '../../handlers/namespaces/pods.ts';
import { NoInput } from '../../schema/common.ts';
import { History, HistoryInput } from '../../schema/metrics.ts';
import { metricsHistory } from '../../handlers/metrics/history.ts';
import { IncidentDetail, IncidentDetailInput, IncidentList, IncidentsInput } from '../../schema/incidents.ts';
import { Overview, PodList, PodsInput } from '../../schema/overview.ts';
import { defineRoute, type Route } from '../http/route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const readCoreRoutes: readonly Route[] = [
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
  defineRoute({
    ...read,
    method: 'GET',
    path: '/overview',
    summary: 'Namespace health, critical → degraded → unknown → healthy, from a 30 s server cache',
    input: NoInput,
    output: Overview,
    handler: overview,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/incidents',
    summary: 'Crash-looping, failing, stuck-pending, not-ready and memory-pressured pods (namespace or * for all)',
    input: IncidentsInput,
    namespaceParam: 'namespace',
    output: IncidentList,
    handler: listIncidents,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/incidents/:namespace/:pod',
    summary: "One pod's incident story: the incident, last exit, ~15 recent events, a ~40-line redacted log tail (previous instance after a restart), resources",
    input: IncidentDetailInput,
    namespaceParam: 'namespace',
    output: IncidentDetail,
    handler: incidentDetail,
  }),
  defineRoute({
    ...read,
    access: { auth: 'credential', role: 'viewer', scope: 'metrics:read' },
    method: 'GET',
    path: '/metrics/history',
    summary: 'CPU, memory and network history (scope cluster|namespace|pod, window 1h|6h|24h|7d), about 120 buckets, sampled every 60 s and kept 7 days',
    input: HistoryInput,
    namespaceParam: 'namespace',
    output: History,
    handler: metricsHistory,
  }),
];
