// Resource history: a namespace's or a pod's usage over time.
import { History, HistoryInput } from '../../schema/metrics.ts';
import { metricsHistory } from './history.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const metricsRoutes: readonly Route[] = [
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
