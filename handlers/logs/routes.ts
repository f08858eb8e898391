// A container's logs: the tail, and a follow (Server-Sent Events). Both are sensitive reads,
// audited in the chain (`http`), under `workloads:read` for keys; a hidden namespace is the
// out-of-scope 403 before anything is read. docs/logs.md.
import { ContainerLog, ContainerLogEvent, ContainerLogInput } from '../../schema/logs.ts';
import { defineRoute, type Route } from '../route.ts';
import { followContainerLog, readContainerLog } from './read.ts';

const logRead = { access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, audit: 'http', rateLimit: 'read', feature: null, namespaceParam: 'namespace' } as const;

/** Follows one user, and the whole agent, may hold open: each holds a connection to the API server. */
export const FOLLOW_CAPS = { perUser: 3, total: 50, noun: 'log follows' } as const;

export const logRoutes: readonly Route[] = [
  defineRoute({
    ...logRead,
    method: 'GET',
    path: '/namespaces/:namespace/pods/:pod/logs',
    summary: "A container's last lines, redacted: container (default the first), previous (the instance before the last restart), tail_lines (1–5000, default 200), since_seconds; 404 when the pod or its log is not there",
    input: ContainerLogInput,
    output: ContainerLog,
    handler: readContainerLog,
  }),
  defineRoute({
    ...logRead,
    method: 'GET',
    path: '/namespaces/:namespace/pods/:pod/logs/follow',
    summary: "Follow a container's log as Server-Sent Events: the tail, then each new line, redacted; `end` says why it stopped (ended, byte_cap, max_duration, error). At most 3 open per user and 50 in all (429 past them)",
    input: ContainerLogInput,
    output: ContainerLogEvent,
    stream: { event: ContainerLogEvent, caps: FOLLOW_CAPS },
    handler: followContainerLog,
  }),
];
