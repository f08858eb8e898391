// Inventory, namespace health and incidents: pure handlers over the informer cache.
import { incidentDetail } from './detail.ts';
import { listIncidents } from './list.ts';
import { IncidentDetail, IncidentDetailInput, IncidentList, IncidentsInput } from '../../schema/incidents.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const incidentRoutes: readonly Route[] = [
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
];
