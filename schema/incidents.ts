import * as v from 'valibot';
import { ProblemSeverity, Timestamp } from './common.ts';

export const Incident = v.object({
  /** `namespace/pod/reason`: stable while the problem lasts. */
  id: v.string(),
  namespace: v.string(),
  pod: v.string(),
  workload_kind: v.string(),
  workload_name: v.string(),
  container: v.string(),
  reason: v.string(),
  detail: v.string(),
  severity: ProblemSeverity,
  phase: v.string(),
  restart_count: v.number(),
  /** Restarts per hour since the pod started. */
  restart_rate: v.number(),
  first_failure_ts: v.nullable(Timestamp),
  crashing_for_secs: v.nullable(v.number()),
  /** Null when no container of the pod has terminated yet. */
  last_exit_code: v.nullable(v.number()),
  age: v.string(),
  /** Only with reason OOMRisk. */
  mem_pct_of_limit: v.optional(v.number()),
  /**
   * The root of the chain of this pod's diagnosis finding (docs/diagnosis.md): another object's
   * finding when that is what makes it fail, the pod's own finding (or its OOMRisk) when the pod
   * is the cause. Null only when the cause lies where the caller may not see (never named).
   */
  root_cause: v.nullable(v.object({ code: v.string(), summary: v.string(), node_id: v.string() })),
});
export type Incident = v.InferOutput<typeof Incident>;

export const IncidentsInput = v.object({
  /** A namespace, or `*` (the default) for every visible one. */
  namespace: v.optional(v.pipe(v.string(), v.regex(/^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/, 'namespace must be a namespace name or *')), '*'),
});

export const IncidentList = v.object({
  incidents: v.array(Incident),
  total: v.number(),
  critical: v.number(),
  warning: v.number(),
  metrics_available: v.boolean(),
  /** Why usage-based incidents (OOMRisk) are missing, when metrics_available is false. */
  reason: v.optional(v.string()),
  generated_at: Timestamp,
});

export const IncidentDetailInput = v.object({
  namespace: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'namespace must be a namespace name')),
  pod: v.pipe(v.string(), v.regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'pod must be a pod name'), v.maxLength(253)),
});

const Nullable = v.nullable(v.number());

export const IncidentDetail = v.object({
  /** Null when the pod has no incident right now. */
  incident: v.nullable(Incident),
  last_exit: v.nullable(
    v.object({ container: v.string(), exit_code: v.number(), reason: v.nullable(v.string()), signal: Nullable, started_at: v.nullable(Timestamp), finished_at: v.nullable(Timestamp) }),
  ),
  events: v.array(v.object({ type: v.string(), reason: v.string(), message: v.string(), count: v.number(), last_seen: v.nullable(Timestamp), age: v.string() })),
  /** About 40 redacted lines; of the previous instance when the container restarted. */
  log_tail: v.string(),
  log_source: v.object({ container: v.string(), previous: v.boolean(), error: v.nullable(v.string()) }),
  resources: v.object({
    available: v.boolean(),
    reason: v.optional(v.string()),
    cpu_usage_m: Nullable,
    cpu_request_m: Nullable,
    cpu_limit_m: Nullable,
    cpu_pct_of_limit: Nullable,
    mem_usage_bytes: Nullable,
    mem_request_bytes: Nullable,
    mem_limit_bytes: Nullable,
    mem_pct_of_limit: Nullable,
  }),
  generated_at: Timestamp,
});
