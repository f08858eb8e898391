import * as v from 'valibot';
import { Timestamp } from './common.ts';

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
  severity: v.picklist(['critical', 'warning']),
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
