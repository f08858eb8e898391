import * as v from 'valibot';
import { Timestamp, NamespaceName } from './common.ts';
import { Unreadable } from './health.ts';

export const HealthScore = v.picklist(['critical', 'degraded', 'unknown', 'healthy']);
export type HealthScore = v.InferOutput<typeof HealthScore>;

export const NamespaceHealth = v.object({
  namespace: v.string(),
  health_score: HealthScore,
  /** Why the verdict is what it is, in plain words. */
  reasons: v.array(v.string()),
  pods_running: v.number(),
  pods_failing: v.number(),
  pods_pending: v.number(),
  pods_total: v.number(),
  pods_capped: v.boolean(),
  active_alerts: v.number(),
  deployments_total: v.number(),
  deployments_degraded: v.number(),
  services_total: v.number(),
  daemonsets_total: v.number(),
  pvcs_unbound: v.number(),
  last_event_time: v.nullable(Timestamp),
  summary: v.object({
    pods: v.object({ running: v.number(), total: v.number() }),
    deployments: v.number(),
    services: v.number(),
    daemonsets: v.number(),
  }),
});
export type NamespaceHealth = v.InferOutput<typeof NamespaceHealth>;

const Amounts = v.object({ allocatable: v.number(), requested: v.number(), used: v.nullable(v.number()) });

/** The cluster's allocatable against what its pods request and use (every pod, as a node's load counts it); `used` null without metrics. */
export const ClusterCapacity = v.object({
  nodes: v.number(),
  cpu_m: Amounts,
  memory_bytes: Amounts,
  pods: v.object({ allocatable: v.number(), scheduled: v.number() }),
});

export const Overview = v.object({
  namespaces: v.array(NamespaceHealth),
  capacity: ClusterCapacity,
  total_namespaces: v.number(),
  /** What RBAC refuses Capstan (in a visible namespace, or cluster-wide): those parts of every answer are empty for that reason, not because nothing is there. */
  unreadable: v.array(Unreadable),
  cached_at: Timestamp,
  cache_ttl_secs: v.literal(30),
});
export type Overview = v.InferOutput<typeof Overview>;

export const PodsInput = v.object({ namespace: NamespaceName });

export const PodSummary = v.object({
  name: v.string(),
  phase: v.string(),
  ready: v.string(),
  restarts: v.number(),
  node: v.nullable(v.string()),
  age: v.string(),
  created_at: v.nullable(Timestamp),
  workload_kind: v.string(),
  workload_name: v.string(),
  cpu_request_m: v.nullable(v.number()),
  cpu_limit_m: v.nullable(v.number()),
  mem_request_bytes: v.nullable(v.number()),
  mem_limit_bytes: v.nullable(v.number()),
  /** Container names, then init container names: what the logs routes take as `container`. */
  containers: v.array(v.string()),
  init_containers: v.array(v.string()),
});
export const PodList = v.object({ namespace: v.string(), pods: v.array(PodSummary), total: v.number() });
