// Incidents (spec §2 "Incident"): a projection of the diagnosis. A pod's incident is its own
// first problem finding (reason = code, detail = summary, severity = severity) with the root of
// that finding's chain, plus OOMRisk, which only metrics can tell; there is no second rule set.
// How spec reasons map to codes: docs/health-and-incidents.md.
import type { ContainerStatus, EventObject, MetricsSnapshot, PodObject } from '../cluster/model.ts';
import { nodeId } from '../cluster/node-id.ts';
import type { ObjectProblem } from '../diagnosis/visible.ts';
import { shortAge } from '../resources/age.ts';
import { podResources } from '../resources/pod.ts';
import type { Incident } from '../../schema/incidents.ts';

/** Memory use at or above this share of the limit is OOMRisk. */
export const OOM_RISK_PCT = 90;

/**
 * At or above OOM_RISK_PCT of a positive limit, compared exactly (whole bytes, no division),
 * so 89.95 % is below even though it is shown rounded as 90 %. The app flag
 * `near_memory_limit` uses this too: the same pod is at risk in both places or in neither.
 */
export function atOomRisk(usedBytes: number, limitBytes: number | null): boolean {
  return limitBytes !== null && limitBytes > 0 && usedBytes * 100 >= OOM_RISK_PCT * limitBytes;
}

interface Projected {
  reason: string;
  severity: Incident['severity'];
  container: string;
  detail: string;
  root: Incident['root_cause'];
  memPct?: number;
}

/** The pod's diagnosis problem as an incident's parts; without one, OOMRisk when metrics show it. */
function projected(pod: PodObject, problem: ObjectProblem | null, usage: MetricsSnapshot): Projected | null {
  if (problem !== null) {
    const { finding } = problem;
    const container = finding.attributes.container;
    return { reason: finding.code, severity: finding.severity, container: typeof container === 'string' ? container : '', detail: finding.summary, root: problem.root };
  }
  if (!usage.available) return null;
  const used = usage.pods.get(`${pod.namespace}/${pod.name}`);
  // Null unless every container is limited: one unbounded container cannot run out.
  const limit = podResources(pod).memLimitBytes;
  if (!used || limit === null || !atOomRisk(used.memBytes, limit)) return null;
  const pct = Math.round((used.memBytes / limit) * 1000) / 10;
  const detail = `memory at ${pct}% of its limit`;
  // Metrics, not the diagnosis, see it: the pod itself is the cause.
  return { reason: 'OOMRisk', severity: 'warning', container: pod.containers[0]?.name ?? '', detail, root: { code: 'OOMRisk', summary: `${pod.name}: ${detail}`, node_id: nodeId('Pod', pod.namespace, pod.name) }, memPct: pct };
}

function secondsSince(ts: string | null, now: Date): number | null {
  return ts === null ? null : Math.max(0, Math.floor((now.getTime() - Date.parse(ts)) / 1000));
}

function lastExitCode(statuses: readonly ContainerStatus[], container: string): number | null {
  const own = statuses.find((s) => s.name === container);
  const pick = (s: ContainerStatus | undefined) => (s?.lastTerminated ?? s?.terminated)?.exitCode ?? null;
  return pick(own) ?? statuses.map(pick).find((c) => c !== null) ?? null;
}

/** Events about pods, keyed `namespace/pod`: built once per request, not scanned per pod. */
export function eventsByPod(events: readonly EventObject[]): Map<string, EventObject[]> {
  const index = new Map<string, EventObject[]>();
  for (const e of events) {
    if (e.involvedKind !== 'Pod') continue;
    const key = `${e.namespace}/${e.involvedName}`;
    const list = index.get(key);
    if (list) list.push(e);
    else index.set(key, [e]);
  }
  return index;
}

/** The earliest Warning event about this pod, else the first recorded termination. */
function firstFailure(pod: PodObject, podEvents: readonly EventObject[]): string | null {
  let first: string | null = null;
  for (const e of podEvents) {
    if (e.type !== 'Warning' || e.firstSeen === null) continue;
    if (first === null || e.firstSeen < first) first = e.firstSeen;
  }
  return first ?? pod.statuses.map((s) => s.lastTerminated?.finishedAt ?? null).find((t) => t !== null) ?? null;
}

/**
 * The pod's incident, or null when it has none. `problem`: the diagnosis' problem on this pod as
 * the caller may read it (ScopedDiagnosis.problem); `podEvents`: the events about it (eventsByPod).
 */
export function incidentOf(pod: PodObject, problem: ObjectProblem | null, podEvents: readonly EventObject[], usage: MetricsSnapshot, now: Date): Incident | null {
  const finding = projected(pod, problem, usage);
  if (!finding) return null;
  const restarts = pod.statuses.reduce((n, s) => n + s.restartCount, 0);
  const runningHours = Math.max((secondsSince(pod.startedAt ?? pod.createdAt, now) ?? 0) / 3600, 1 / 60);
  const first = firstFailure(pod, podEvents);
  return {
    id: `${pod.namespace}/${pod.name}/${finding.reason}`,
    namespace: pod.namespace,
    pod: pod.name,
    workload_kind: pod.workload.kind,
    workload_name: pod.workload.name,
    container: finding.container,
    reason: finding.reason,
    detail: finding.detail,
    severity: finding.severity,
    phase: pod.phase,
    restart_count: restarts,
    restart_rate: Math.round((restarts / runningHours) * 100) / 100,
    first_failure_ts: first,
    crashing_for_secs: secondsSince(first, now),
    last_exit_code: lastExitCode(pod.statuses, finding.container),
    age: shortAge(pod.createdAt, now),
    ...(finding.memPct !== undefined ? { mem_pct_of_limit: finding.memPct } : {}),
    root_cause: finding.root,
  };
}

/** Critical first, then the longest-failing, then by name: a stable order for lists and tests. */
export function compareIncidents(a: Incident, b: Incident): number {
  if (a.severity !== b.severity) return a.severity === 'critical' ? -1 : 1;
  return a.namespace.localeCompare(b.namespace) || a.pod.localeCompare(b.pod);
}
