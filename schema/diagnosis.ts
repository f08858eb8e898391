// The diagnosis (`/diagnosis*`, MCP `diagnose`): findings with evidence, chained to root
// causes. The codes, their rules and how chains form: docs/diagnosis.md.
import * as v from 'valibot';
import { Severity, Timestamp, NamespaceName } from './common.ts';

/**
 * Where a fact was read: an object's status or spec, an event, a node Lease, the absence of an
 * object, metrics, or a crashed container's last log lines.
 */
export const EvidenceSource = v.picklist(['status', 'spec', 'event', 'lease', 'absence', 'metrics', 'log']);
export type EvidenceSource = v.InferOutput<typeof EvidenceSource>;

export const Evidence = v.object({
  /** The cluster-model node the fact is about (it may not exist: `absence` facts name what is missing). */
  node_id: v.string(),
  fact: v.string(),
  source: EvidenceSource,
  /** The dashboard view of `node_id`; null for an object that does not exist. */
  link: v.nullable(v.string()),
});
export type Evidence = v.InferOutput<typeof Evidence>;

export const Finding = v.object({
  /** `<object node id>#<code>`: one finding per object and code, stable while it lasts. */
  id: v.string(),
  /** One of the documented codes (docs/diagnosis.md). */
  code: v.string(),
  severity: Severity,
  /** The node id of the object that is unhealthy. */
  object: v.string(),
  /** The object's namespace; null for cluster-scoped objects (nodes, volumes, storage classes). */
  namespace: v.nullable(v.string()),
  summary: v.string(),
  evidence: v.array(Evidence),
  /** Since when it holds, as far as the cluster says; null when nothing dates it. */
  since: v.nullable(Timestamp),
  /** The finding that explains this one; null for a root cause. */
  caused_by: v.nullable(v.string()),
  /** Structured parts of the summary: exit code, image, the missing object, the scheduler's cause... */
  attributes: v.record(v.string(), v.union([v.string(), v.number(), v.boolean()])),
});
export type Finding = v.InferOutput<typeof Finding>;

export const RootCause = v.object({
  finding: Finding,
  /** Every finding this root explains, directly or through others, nearest first. */
  effects: v.array(Finding),
  /** Further objects with the same code and owner, folded into this root (e.g. every crashing replica). */
  also: v.array(v.string()),
});
export type RootCause = v.InferOutput<typeof RootCause>;


export const DiagnosisInput = v.object({
  /** Only root causes whose object or some effect lies in this namespace. */
  namespace: v.optional(NamespaceName),
});

export const Diagnosis = v.object({
  namespace: v.nullable(v.string()),
  /** Severity first (critical, warning), then by the number of effects, then by id. */
  root_causes: v.array(RootCause),
  /** Conditions that have passed (history, never incidents): a container that restarted long ago, a completed Job. */
  notes: v.array(Finding),
  /** Effects the caller may see whose cause lies in a namespace they may not: the cause is not named. */
  hidden_causes: v.array(v.object({ effect: Finding, reason: v.literal('cause_outside_visible_namespaces') })),
  /** Analyzers silent because RBAC refuses what they read, and why. */
  silent: v.array(v.object({ resource: v.string(), reason: v.string() })),
  total_findings: v.number(),
  generated_at: Timestamp,
});
export type Diagnosis = v.InferOutput<typeof Diagnosis>;

export const DiagnosisDetailInput = v.object({
  id: v.pipe(v.string(), v.minLength(3), v.maxLength(600), v.regex(/^[a-z]+:\S+$/, 'must be a node id such as pod:shop/checkout-1')),
});

export const DiagnosisDetail = v.object({
  object: v.string(),
  healthy: v.boolean(),
  /** This object's own findings. */
  findings: v.array(Finding),
  /** From this object's first finding up to its root cause, one step per `caused_by`. */
  chain: v.array(Finding),
  /** Null for a healthy object, and when the chain leaves what the caller may see (`cause_hidden`). */
  root_cause: v.nullable(Finding),
  /** The chain goes on into a namespace the caller may not see: it stops there, unnamed. */
  cause_hidden: v.boolean(),
  /** Findings this object's problems cause elsewhere. */
  effects: v.array(Finding),
  notes: v.array(Finding),
  generated_at: Timestamp,
});
export type DiagnosisDetail = v.InferOutput<typeof DiagnosisDetail>;
