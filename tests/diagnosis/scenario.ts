// Diagnosis scenarios: the file format (tests/diagnosis/README.md), its loader and validation.
// One `DiagnosisScenario` document per file, then plain Kubernetes objects.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { parseAllDocuments } from 'yaml';
import type { LogGroup } from '../../dev/localcluster/kwok-config.ts';
import { ContainerLogs } from '../../dev/localcluster/scenario.ts';

export const SCENARIO_DIR = fileURLToPath(new URL('./', import.meta.url));

const Quantity = v.union([v.string(), v.number()]);
const NodeIdPattern = v.pipe(v.string(), v.regex(/^[a-z]+:\S+$/, 'must be a node id such as pod:dq-x/api-0 (a trailing * matches a prefix)'));
const DnsName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS label'), v.maxLength(63));
/** Every namespace and unmanaged node a scenario owns starts with this, so cleanup never touches anything else. */
export const SCENARIO_PREFIX = 'dq-';
const Owned = v.pipe(DnsName, v.startsWith(SCENARIO_PREFIX, `must start with ${SCENARIO_PREFIX}`));

const UnmanagedNode = v.object({
  name: Owned,
  /** true: the harness keeps it Ready and renews its Lease; false: the Lease is never renewed after creation. */
  heartbeat: v.optional(v.boolean(), true),
  capacity: v.optional(v.object({ cpu: Quantity, memory: Quantity, pods: Quantity }), { cpu: '4', memory: '8Gi', pods: '20' }),
  taints: v.optional(
    v.array(v.object({ key: v.string(), value: v.optional(v.string()), effect: v.picklist(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) })),
    [],
  ),
  unschedulable: v.optional(v.boolean(), false),
  /** Replace the default condition of the same type (Ready True, the pressures False) or add one. */
  conditions: v.optional(
    v.array(v.object({ type: v.string(), status: v.picklist(['True', 'False', 'Unknown']), reason: v.optional(v.string()), message: v.optional(v.string()) })),
    [],
  ),
  labels: v.optional(v.record(v.string(), v.string()), {}),
});
export type UnmanagedNode = v.InferOutput<typeof UnmanagedNode>;

const ExpectedFinding = v.object({
  code: v.string(),
  object: NodeIdPattern,
  /** Optional: attributes the finding must carry (each equal), e.g. {cause: insufficient_cpu}. */
  attributes: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
});
export type ExpectedFinding = v.InferOutput<typeof ExpectedFinding>;

const StatusPatch = v.object({
  kind: v.string(),
  /** An object name; a trailing * patches every object of the kind whose name starts with the rest (generated pod names). */
  name: v.string(),
  status: v.record(v.string(), v.unknown()),
});
export type StatusPatch = v.InferOutput<typeof StatusPatch>;

const Deletion = v.object({
  kind: v.string(),
  name: v.string(),
  /** Omitted: the object's own grace period (a pod's terminationGracePeriodSeconds). */
  gracePeriodSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const Header = v.object({
  apiVersion: v.literal('capstan.dev/v1alpha1'),
  kind: v.literal('DiagnosisScenario'),
  metadata: v.object({ name: DnsName }),
  spec: v.object({
    description: v.pipe(v.string(), v.minLength(10)),
    namespace: Owned,
    unmanagedNodes: v.optional(v.array(UnmanagedNode), []),
    statusPatches: v.optional(v.array(StatusPatch), []),
    /** Objects the harness deletes once they exist and their status patches hold (a pod left Terminating). */
    deletions: v.optional(v.array(Deletion), []),
    /**
     * Container logs KWOK serves to this namespace's pods (current and `--previous`). The local
     * control plane is configured with them when it starts (scenarioLogs), not when the scenario is applied.
     */
    logs: v.optional(ContainerLogs, []),
    /** How long the harness waits for the expected answer; default 240 s with a silent node, else 120 s. */
    deadlineSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(900))),
    expect: v.pipe(
      v.object({
        rootCause: v.optional(ExpectedFinding),
        effects: v.optional(v.array(NodeIdPattern), []),
        quiet: v.optional(v.array(NodeIdPattern), []),
        notes: v.optional(v.array(ExpectedFinding), []),
      }),
      v.check((e) => e.rootCause !== undefined || e.notes.length > 0, 'expect needs a rootCause, or notes for a history-only scenario'),
      v.check((e) => e.rootCause !== undefined || e.effects.length === 0, 'effects need a rootCause'),
    ),
  }),
});
export type ScenarioSpec = v.InferOutput<typeof Header>['spec'];

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Scenario {
  name: string;
  file: string;
  spec: ScenarioSpec;
  objects: KubeObject[];
  deadlineSeconds: number;
}

/** Kinds whose status the harness can patch and delete by name (`kube.ts` knows their paths). */
export const PATCHABLE_KINDS = [
  'Pod', 'Node', 'PersistentVolumeClaim', 'PersistentVolume', 'Service', 'Deployment', 'ReplicaSet', 'StatefulSet',
  'DaemonSet', 'Job', 'CronJob', 'Ingress', 'HorizontalPodAutoscaler', 'ResourceQuota', 'PodDisruptionBudget',
] as const;

const KubeObjectShape = v.looseObject({
  apiVersion: v.string(),
  kind: v.string(),
  metadata: v.looseObject({ name: v.string(), namespace: v.optional(v.string()) }),
});

export function loadScenarioFile(file: string): Scenario {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  let header: v.InferOutput<typeof Header> | null = null;
  const objects: KubeObject[] = [];
  function fail(message: string): never {
    throw new Error(`${basename(file)}: ${message}`);
  }
  for (const [index, doc] of docs.entries()) {
    if (doc.errors.length > 0) fail(`document ${index + 1}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value === 'object' && 'kind' in value && value.kind === 'DiagnosisScenario') {
      if (header) fail('more than one DiagnosisScenario document');
      const parsed = v.safeParse(Header, value);
      if (!parsed.success) {
        const issue = parsed.issues[0];
        fail(`DiagnosisScenario ${v.getDotPath(issue) ?? ''}: ${issue.message}`);
      }
      header = parsed.output;
      continue;
    }
    const object = v.safeParse(KubeObjectShape, value);
    if (!object.success) fail(`document ${index + 1} is not a Kubernetes object (apiVersion, kind, metadata.name)`);
    objects.push(value as KubeObject);
  }
  if (!header) return fail('no DiagnosisScenario document');
  const { spec } = header;
  for (const o of objects) {
    if (o.metadata.namespace !== undefined && o.metadata.namespace !== spec.namespace) {
      fail(`${o.kind}/${o.metadata.name} is in namespace ${o.metadata.namespace}, not the scenario's ${spec.namespace}`);
    }
  }
  for (const p of spec.statusPatches) {
    if (!(PATCHABLE_KINDS as readonly string[]).includes(p.kind)) fail(`statusPatches: kind ${p.kind} is not one of ${PATCHABLE_KINDS.join(', ')}`);
  }
  for (const d of spec.deletions) {
    if (!(PATCHABLE_KINDS as readonly string[]).includes(d.kind)) fail(`deletions: kind ${d.kind} is not one of ${PATCHABLE_KINDS.join(', ')}`);
  }
  const silentNode = spec.unmanagedNodes.some((n) => !n.heartbeat);
  return { name: header.metadata.name, file, spec, objects, deadlineSeconds: spec.deadlineSeconds ?? (silentNode ? 240 : 120) };
}

/** Every `*.yaml` in tests/diagnosis (or `dir`), validated together: names, namespaces and node names are unique. */
export function loadScenarios(dir = SCENARIO_DIR, only?: (name: string) => boolean): Scenario[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const scenarios = files.map((f) => loadScenarioFile(join(dir, f))).filter((s) => !only || only(s.name));
  const seen = new Map<string, string>();
  const claim = (key: string, owner: string) => {
    const other = seen.get(key);
    if (other !== undefined) throw new Error(`${owner}: ${key} is also used by ${other}`);
    seen.set(key, owner);
  };
  for (const s of scenarios) {
    claim(`scenario ${s.name}`, basename(s.file));
    claim(`namespace ${s.spec.namespace}`, basename(s.file));
    for (const n of s.spec.unmanagedNodes) claim(`node ${n.name}`, basename(s.file));
  }
  return scenarios;
}

/** The logs every scenario asks KWOK to serve, each group limited to its scenario's namespace (UpOptions.namespacedLogs). */
export function scenarioLogs(scenarios: readonly Scenario[] = loadScenarios()): LogGroup[] {
  return scenarios.filter((s) => s.spec.logs.length > 0).map((s) => ({ namespaces: [s.spec.namespace], logs: s.spec.logs }));
}

/** `pod:ns/api-*` matches `pod:ns/api-7d9f-x2`; anything else must be equal. */
export function idMatches(pattern: string, id: string): boolean {
  return pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : pattern === id;
}

export function nameMatches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

const RELATIVE_TIME = /^\$\{now(?:([+-])(\d+)([smhd]))?\}$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** RFC 3339 to the second, as the API server writes a `Time`. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Replaces every string that is exactly `${now}`, `${now-90s}`, `${now-5m}`, `${now-2h}` or
 * `${now+1d}` with that instant (RFC 3339), so a scenario can say "restarted two hours ago" or
 * "last probe failure just now".
 */
export function resolveTimes<T>(value: T, nowMs: number): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') {
      const m = RELATIVE_TIME.exec(x);
      if (!m) return x;
      const [, sign, amount, unit] = m;
      const offset = sign && amount && unit ? Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS] * (sign === '-' ? -1 : 1) : 0;
      return rfc3339(nowMs + offset);
    }
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, val]) => [k, walk(val)]));
    return x;
  };
  return walk(value) as T;
}
