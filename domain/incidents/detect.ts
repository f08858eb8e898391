// Incidents from one pod list (spec §2 "Incident"); the rules are written down in
// docs/health-and-incidents.md and this file is their only implementation.
import type { ContainerStatus, EventObject, MetricsSnapshot, PodObject } from '../cluster/model.ts';
import { shortAge } from '../resources/age.ts';
import { podResources } from '../resources/pod.ts';
import type { Incident } from '../../schema/incidents.ts';
import { RECENT_TERMINATION_SECS } from '../diagnosis/analyzers/pod-containers.ts';

/** A pod Pending this long without an unschedulable verdict is stuck anyway. */
export const STUCK_PENDING_SECS = 300;
/** A running pod not Ready for this long is an incident (shorter is a normal start-up). */
export const NOT_READY_SECS = 60;
/**
 * An OOM kill the container has run Ready past for this long is history, not an incident:
 * the diagnosis' own bound (OOMKilled versus OOMKilledPreviously), so both tell one story.
 */
export const OOM_HISTORY_SECS = RECENT_TERMINATION_SECS;
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

const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName']);
const CONFIG_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

interface Finding {
  reason: string;
  severity: Incident['severity'];
  container: string;
  detail: string;
  memPct?: number;
}

function findingOf(pod: PodObject, usage: MetricsSnapshot, now: Date): Finding | null {
  for (const s of pod.statuses) {
    const last = s.lastTerminated ?? s.terminated;
    if (last?.reason === 'OOMKilled' && s.restartCount > 0 && !pastOomKill(s, now)) {
      return { reason: 'OOMKilled', severity: 'critical', container: s.name, detail: `container ${s.name} was killed for exceeding its memory limit (exit ${last.exitCode}), ${s.restartCount} restarts` };
    }
  }
  for (const s of pod.statuses) {
    const reason = s.waiting?.reason;
    if (reason === 'CrashLoopBackOff') {
      const exit = s.lastTerminated ? `last exit ${s.lastTerminated.exitCode}${s.lastTerminated.reason ? ` (${s.lastTerminated.reason})` : ''}` : 'no exit recorded';
      return { reason, severity: 'critical', container: s.name, detail: `container ${s.name} keeps crashing: ${s.restartCount} restarts, ${exit}` };
    }
    if (reason && (IMAGE_FAILURES.has(reason) || CONFIG_FAILURES.has(reason))) {
      return { reason, severity: 'critical', container: s.name, detail: s.waiting?.message ?? `container ${s.name} cannot start: ${reason}` };
    }
  }
  if (pod.phase === 'Failed') return { reason: 'Failed', severity: 'critical', container: pod.statuses[0]?.name ?? '', detail: 'the pod failed' };
  if (pod.phase === 'Pending') {
    const pendingSecs = secondsSince(pod.createdAt, now);
    if (pod.unschedulable) return { reason: 'Unschedulable', severity: 'warning', container: '', detail: pod.unschedulable.message ?? 'the scheduler cannot place this pod' };
    if (pendingSecs !== null && pendingSecs >= STUCK_PENDING_SECS) return { reason: 'StuckPending', severity: 'warning', container: '', detail: `pending for ${shortAge(pod.createdAt, now)}` };
  }
  if (pod.phase === 'Running' && !pod.ready) {
    const since = secondsSince(pod.readySince, now);
    if (since === null || since >= NOT_READY_SECS) {
      const notReady = pod.statuses.find((s) => !s.ready);
      return { reason: 'NotReady', severity: 'warning', container: notReady?.name ?? '', detail: `running but not ready for ${shortAge(pod.readySince, now)}` };
    }
  }
  if (usage.available) {
    const used = usage.pods.get(`${pod.namespace}/${pod.name}`);
    // Null unless every container is limited: one unbounded container cannot run out.
    const limit = podResources(pod).memLimitBytes;
    if (used && limit !== null && atOomRisk(used.memBytes, limit)) {
      const pct = Math.round((used.memBytes / limit) * 1000) / 10;
      return { reason: 'OOMRisk', severity: 'warning', container: pod.containers[0]?.name ?? '', detail: `memory at ${pct}% of its limit`, memPct: pct };
    }
  }
  return null;
}

/**
 * Now versus history: the container is Ready and its current instance has run for at least
 * OOM_HISTORY_SECS since the kill (the pods analyzer's rule for OOMKilledPreviously).
 * Without a start time it is not known to have passed.
 */
function pastOomKill(s: ContainerStatus, now: Date): boolean {
  const running = secondsSince(s.runningSince, now);
  return s.ready && running !== null && running >= OOM_HISTORY_SECS;
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

/** `podEvents`: the events about this pod (see eventsByPod). */
export function incidentOf(pod: PodObject, podEvents: readonly EventObject[], usage: MetricsSnapshot, now: Date): Incident | null {
  const finding = findingOf(pod, usage, now);
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
    // The diagnosis knows what causes it; the handlers fill this in from there.
    root_cause: null,
  };
}

/** Critical first, then the longest-failing, then by name: a stable order for lists and tests. */
export function compareIncidents(a: Incident, b: Incident): number {
  if (a.severity !== b.severity) return a.severity === 'critical' ? -1 : 1;
  return a.namespace.localeCompare(b.namespace) || a.pod.localeCompare(b.pod);
}
