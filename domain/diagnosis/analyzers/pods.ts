// The pods analyzer: one pass over the pods, each judged from its own status, its Warning
// events (through the shared index) and, for an unschedulable pod, the nodes' taints and
// cordons (indexed once). Containers are judged in pod-containers.ts; this file folds their
// findings per code and adds what only the whole pod says: terminating, evicted,
// unschedulable, stuck creating, failing probes, failed, stuck pending.
//
// Every finding about a scheduled pod names its claims and then its node as the last
// suspects, so a NotReady node or an unbound claim explains it when nothing closer does.
import type { NodeObject, PodObject } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { shortAge } from '../../resources/age.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import type { CodeSpec } from '../codes.ts';
import { parseMissingObject, probeOfMessage } from '../container-message.ts';
import { type Analyzer, type DraftFinding, eventsAbout, warningsAbout } from '../input.ts';
import { CRASH_CODES, dependencyIndex, namesHosts, unservedDependencies } from './pod-dependencies.ts';
import { describeVerdict, parseSchedulerMessage, type UnschedulableCause } from '../scheduler-message.ts';
import { listTrust } from '../list-trust.ts';
import {
  HIGH_RESTART_MIN_RESTARTS,
  HIGH_RESTART_RECENT_SECS,
  HIGH_RESTARTS_PER_HOUR,
  RECENT_TERMINATION_SECS,
  type ContainerFinding,
  type PodContext,
  absenceFact,
  containerFindings,
  describeMissing,
  earliestWarning,
  fact,
  quote,
  secondsSince,
} from './pod-containers.ts';

export { HIGH_RESTART_MIN_RESTARTS, HIGH_RESTART_RECENT_SECS, HIGH_RESTARTS_PER_HOUR, RECENT_TERMINATION_SECS };

/** A pod Pending this long with no better explanation is StuckPending. */
export const STUCK_PENDING_SECS = 300;
/** A scheduled pod still creating its containers this long, with mount or sandbox failures, is ContainerCreatingStuck. */
export const CONTAINER_CREATING_STUCK_SECS = 60;
/** TerminatingStuck: this long past the deletion deadline (the API server sets `deletionTimestamp` to request time + grace period, so the deadline is `deletion.at` itself). */
export const TERMINATING_STUCK_MARGIN_SECS = 60;
/** ProbeFailing: not Ready for at least this long (a normal start-up fails a few probes)... */
export const PROBE_FAILING_MIN_SECS = 60;
/** ...with an Unhealthy event seen within this window (the kubelet re-reports each failure, so a failing probe keeps it fresh). */
export const PROBE_EVENT_RECENT_SECS = 300;
/** An eviction older than this is EvictedPreviously (a note): the workload has long replaced the pod. */
export const EVICTED_RECENT_SECS = 3600;
/** At most this many nodes per scheduler reason become suspects of an unschedulable pod (cost stays bounded on large clusters). */
export const MAX_NODE_SUSPECTS = 20;

const CREATING_EVENTS = new Set(['FailedMount', 'FailedAttachVolume', 'FailedCreatePodSandBox']);

export const POD_CODES: readonly CodeSpec[] = [
  { code: 'ProbeKilled', kind: 'Pod', severity: 'critical', rule: `The kubelet restarted a container for a failed liveness or startup probe: its last termination is exit 137 or 143 (not OOMKilled), it has not run Ready for ${RECENT_TERMINATION_SECS / 60} minutes since, and within that time a Killing event says it failed that probe (or, for a pod with one container, an Unhealthy event says the liveness or startup probe failed); attributes probe and message (the last failure). Reported instead of CrashLoopBackOff, never as an OOM kill.` },
  { code: 'CrashLoopBackOff', kind: 'Pod', severity: 'critical', rule: "A container or init container waits in CrashLoopBackOff; its last termination gives the exit code, reason and signal. A Service its containers' environment or its crashed instance's last log lines name (name, name.ns, name.ns.svc[.cluster.local]) that serves no ready endpoint is its first suspect (ProbeKilled likewise)." },
  { code: 'ImagePullBackOff', kind: 'Pod', severity: 'critical', rule: 'A container waits in ImagePullBackOff: its image cannot be pulled.' },
  { code: 'ErrImagePull', kind: 'Pod', severity: 'critical', rule: 'A container waits in ErrImagePull (or ErrImageNeverPull, ImageInspectError, RegistryUnavailable, SignatureValidationFailed).' },
  { code: 'InvalidImageName', kind: 'Pod', severity: 'critical', rule: 'A container waits in InvalidImageName.' },
  { code: 'CreateContainerConfigError', kind: 'Pod', severity: 'critical', rule: 'A container waits in CreateContainerConfigError; the ConfigMap, Secret or key it misses is read from the message and is a suspect.' },
  { code: 'CreateContainerError', kind: 'Pod', severity: 'critical', rule: 'A container waits in CreateContainerError.' },
  { code: 'RunContainerError', kind: 'Pod', severity: 'critical', rule: 'A container waits in RunContainerError.' },
  { code: 'OOMKilled', kind: 'Pod', severity: 'critical', rule: `A container's last termination was an OOM kill and it has not been running and Ready for ${RECENT_TERMINATION_SECS / 60} minutes since (a crash loop after an OOM kill is reported as OOMKilled).` },
  { code: 'Evicted', kind: 'Pod', severity: 'warning', rule: `The kubelet evicted the pod (status reason Evicted) less than ${EVICTED_RECENT_SECS / 60} minutes ago, or evicted a bare pod (no controller owns it: nothing will replace it) whenever; attribute reason is its message.` },
  { code: 'TerminatingStuck', kind: 'Pod', severity: 'warning', rule: `Deletion was requested and the pod still exists ${TERMINATING_STUCK_MARGIN_SECS}s past its deadline (deletionTimestamp); finalizers are named.` },
  { code: 'Unschedulable', kind: 'Pod', severity: 'warning', rule: "PodScheduled is False (not scheduling-gated); the scheduler's message gives the cause; suspects are the unbound claims and the nodes whose taints or cordon block it." },
  { code: 'ContainerCreatingStuck', kind: 'Pod', severity: 'warning', rule: `A scheduled Pending pod has been creating containers for ${CONTAINER_CREATING_STUCK_SECS}s or more with FailedMount, FailedAttachVolume or FailedCreatePodSandBox Warning events; the missing volume source is a suspect.` },
  { code: 'ProbeFailing', kind: 'Pod', severity: 'warning', rule: `A Running pod has not been Ready for ${PROBE_FAILING_MIN_SECS}s or more and has an Unhealthy event from the last ${PROBE_EVENT_RECENT_SECS / 60} minutes; attribute probe says which.` },
  { code: 'HighRestartRate', kind: 'Pod', severity: 'warning', rule: `A container has restarted ${HIGH_RESTART_MIN_RESTARTS}+ times at ${HIGH_RESTARTS_PER_HOUR}+ per hour since the pod started, the last within ${HIGH_RESTART_RECENT_SECS / 60} minutes, and is not in a waiting error.` },
  { code: 'PodFailed', kind: 'Pod', severity: 'critical', rule: 'The pod is in phase Failed, was not evicted, no container finding explains it, and no Job owns it (Jobs own their failed pods).' },
  { code: 'StuckPending', kind: 'Pod', severity: 'warning', rule: `The pod has been Pending for ${STUCK_PENDING_SECS / 60} minutes or more and nothing more specific explains it.` },
  { code: 'RestartedPreviously', kind: 'Pod', severity: 'info', rule: `A container restarted, but has been running and Ready for ${RECENT_TERMINATION_SECS / 60} minutes or more since (history).` },
  { code: 'OOMKilledPreviously', kind: 'Pod', severity: 'info', rule: `A container's last termination was an OOM kill, but it has been running and Ready for ${RECENT_TERMINATION_SECS / 60} minutes or more since (history).` },
  { code: 'EvictedPreviously', kind: 'Pod', severity: 'info', rule: `The kubelet evicted the pod ${EVICTED_RECENT_SECS / 60} minutes ago or more and a controller owns it: its workload has had the time to replace it (history).` },
];

/** Nodes indexed for explaining unschedulable pods, built on first need. */
interface NodeBlocks {
  /** Taint key → nodes carrying it with a NoSchedule or NoExecute effect. */
  byTaint: Map<string, string[]>;
  anyTaint: string[];
  cordoned: string[];
  /** Every node, by name order: a node selector's candidates are picked from these. */
  nodes: readonly NodeObject[];
}

const hardTaints = (n: NodeObject) => n.taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');

function indexNodes(nodes: readonly NodeObject[]): NodeBlocks {
  const sorted = [...nodes].sort((a, b) => a.name.localeCompare(b.name));
  const blocks: NodeBlocks = { byTaint: new Map(), anyTaint: [], cordoned: [], nodes: sorted };
  for (const n of sorted) {
    const id = nodeId('Node', null, n.name);
    if (n.unschedulable) blocks.cordoned.push(id);
    const hard = hardTaints(n);
    if (hard.length > 0) blocks.anyTaint.push(id);
    for (const t of hard) {
      const list = blocks.byTaint.get(t.key) ?? [];
      if (!list.includes(id)) list.push(id);
      blocks.byTaint.set(t.key, list);
    }
  }
  return blocks;
}

function lazy<T>(make: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: make() }).v;
}

export const analyzePods: Analyzer = (input) => {
  const nodeBlocks = lazy(() => indexNodes(input.view.nodes()));
  // Absence is only known from a list that synced and RBAC allowed in the pod's namespace.
  const trusted = lazy(() => listTrust(input));
  const existing = lazy(() => ({
    configMaps: new Set(input.view.configMaps().map((o) => `${o.namespace}/${o.name}`)),
    secrets: new Set(input.view.secrets().map((o) => `${o.namespace}/${o.name}`)),
  }));
  const exists: PodContext['exists'] = (kind, namespace, name) => {
    if (!trusted()(kind === 'ConfigMap' ? 'configmaps' : 'secrets', namespace)) return null;
    return (kind === 'ConfigMap' ? existing().configMaps : existing().secrets).has(`${namespace}/${name}`);
  };
  const dependencies = lazy(() => dependencyIndex(input));
  const findings: DraftFinding[] = [];
  for (const pod of input.view.pods()) {
    const ctx: PodContext = { pod, id: nodeId('Pod', pod.namespace, pod.name), now: input.now, warnings: lazy(() => warningsAbout(input, 'Pod', pod.namespace, pod.name)), events: lazy(() => eventsAbout(input, 'Pod', pod.namespace, pod.name)), exists };
    for (const f of podFindings(ctx, nodeBlocks)) {
      // A crash loop may be a dependency that serves nothing: that Service is suspected first.
      const named = CRASH_CODES.has(f.code) && namesHosts(input, pod) ? unservedDependencies(input, dependencies(), pod) : null;
      findings.push(named === null || named.suspects.length === 0 ? f : { ...f, evidence: [...f.evidence, ...named.evidence], suspects: unique([...named.suspects, ...f.suspects]) });
    }
  }
  return findings;
};

/** The suspects every finding of this pod ends with: its claims, then its node. */
function trailingSuspects(pod: PodObject): string[] {
  return [...pod.refs.pvcs.map((c) => nodeId('PersistentVolumeClaim', pod.namespace, c)), ...(pod.nodeName ? [nodeId('Node', null, pod.nodeName)] : [])];
}

function unique<T>(ids: readonly T[]): T[] {
  return [...new Set(ids)];
}

function draft(ctx: PodContext, f: Omit<DraftFinding, 'id' | 'object' | 'namespace'>): DraftFinding {
  return { id: `${ctx.id}#${f.code}`, object: ctx.id, namespace: ctx.pod.namespace, ...f, suspects: unique([...f.suspects, ...trailingSuspects(ctx.pod)]) };
}

/** One finding per code: containers with the same problem become one finding with all their evidence. */
function foldContainers(ctx: PodContext, found: readonly ContainerFinding[]): DraftFinding[] {
  const byCode = new Map<string, ContainerFinding[]>();
  for (const f of found) byCode.set(f.code, [...(byCode.get(f.code) ?? []), f]);
  return [...byCode.values()].map((group) => {
    const [first, ...rest] = group as [ContainerFinding, ...ContainerFinding[]];
    const since = group.map((g) => g.since).filter((s): s is string => s !== null).sort()[0] ?? null;
    return draft(ctx, {
      code: first.code,
      severity: first.severity,
      summary: rest.length === 0 ? first.summary : `${first.summary} (and ${rest.length} more container${rest.length > 1 ? 's' : ''})`,
      evidence: group.flatMap((g) => g.evidence),
      since,
      attributes: rest.length === 0 ? first.attributes : { ...first.attributes, containers: group.map((g) => g.container).join(',') },
      suspects: group.flatMap((g) => g.suspects),
    });
  });
}

function podFindings(ctx: PodContext, nodeBlocks: () => NodeBlocks): DraftFinding[] {
  const { pod } = ctx;
  // A pod on its way out says nothing about the present but that it may be stuck leaving.
  if (pod.deletion) return terminatingStuck(ctx);
  if (pod.statusReason?.reason === 'Evicted') return [evicted(ctx)];
  if (pod.phase === 'Succeeded') return [];
  // A Job owns its failed pods (JobFailed explains them); anything said here would repeat it.
  if (pod.phase === 'Failed' && pod.owner?.kind === 'Job') return [];

  const found = foldContainers(ctx, containerFindings(ctx));
  const present = () => found.some((f) => f.severity !== 'info');
  if (pod.phase === 'Failed' && !present()) found.push(podFailed(ctx));
  if (pod.phase === 'Pending') {
    if (pod.unschedulable && pod.unschedulable.reason !== 'SchedulingGated') found.push(unschedulable(ctx, nodeBlocks()));
    else if (!present()) {
      const creating = containerCreatingStuck(ctx);
      if (creating) found.push(creating);
    }
    if (!present()) {
      const pending = stuckPending(ctx);
      if (pending) found.push(pending);
    }
  }
  if (pod.phase === 'Running' && !pod.ready && !present()) {
    const probe = probeFailing(ctx);
    if (probe) found.push(probe);
  }
  return found;
}

function terminatingStuck(ctx: PodContext): DraftFinding[] {
  const { pod, now } = ctx;
  if (!pod.deletion) return [];
  const past = secondsSince(pod.deletion.at, now);
  if (past === null || past < TERMINATING_STUCK_MARGIN_SECS) return [];
  const finalizers = pod.finalizers.length > 0 ? `, finalizers ${pod.finalizers.join(', ')}` : '';
  return [
    draft(ctx, {
      code: 'TerminatingStuck',
      severity: 'warning',
      summary: `${pod.name} stuck terminating ${shortAge(pod.deletion.at, now)} past its deadline${finalizers}`,
      evidence: [
        fact(ctx.id, `deletion requested${pod.deletion.graceSecs !== null ? ` with a ${pod.deletion.graceSecs}s grace period` : ''}, deadline ${pod.deletion.at}${finalizers}`, 'status'),
      ],
      since: pod.deletion.at,
      attributes: { finalizers: pod.finalizers.join(','), ...(pod.deletion.graceSecs !== null ? { grace_secs: pod.deletion.graceSecs } : {}), ...(pod.nodeName ? { node: pod.nodeName } : {}) },
      suspects: [],
    }),
  ];
}

/** When the eviction happened: the latest container termination, else the Ready condition's change. */
function evictedAt(pod: PodObject): string | null {
  const ends = [...pod.statuses, ...pod.initStatuses].map((s) => s.terminated?.finishedAt ?? null).filter((t): t is string => t !== null).sort();
  return ends[ends.length - 1] ?? pod.readySince;
}

function evicted(ctx: PodContext): DraftFinding {
  const { pod, now } = ctx;
  const message = pod.statusReason?.message ? quote(pod.statusReason.message) : 'evicted by the kubelet';
  const at = evictedAt(pod);
  const age = secondsSince(at, now);
  // A bare pod (no controller owns it) is gone for good: it stays a problem whatever its age.
  const bare = pod.owner === null;
  const recent = age === null || age < EVICTED_RECENT_SECS;
  const resource = /low on resource: ([\w.-]+?)\.?(?:\s|$)/.exec(message)?.[1] ?? null;
  const why = resource ? `the node was low on ${resource}` : message;
  const summary = bare
    ? `${pod.name} ${recent ? 'evicted' : `was evicted ${shortAge(at, now)} ago`} and nothing will replace it (no controller owns it): ${why}`
    : recent
      ? `${pod.name} evicted: ${why}`
      : `${pod.name} was evicted ${shortAge(at, now)} ago: ${why}`;
  return draft(ctx, {
    code: recent || bare ? 'Evicted' : 'EvictedPreviously',
    severity: recent || bare ? 'warning' : 'info',
    summary,
    evidence: [fact(ctx.id, `status reason Evicted: ${message}`, 'status')],
    since: at,
    attributes: { reason: message, ...(resource ? { resource } : {}), ...(bare ? { controller: false } : {}) },
    suspects: [],
  });
}

function podFailed(ctx: PodContext): DraftFinding {
  const { pod } = ctx;
  const ended = [...pod.initStatuses, ...pod.statuses].find((s) => s.terminated !== null && s.terminated.exitCode !== 0);
  const evidence: Evidence[] = [fact(ctx.id, `phase Failed${pod.statusReason ? `, status reason ${pod.statusReason.reason}` : ''}`, 'status')];
  if (pod.statusReason?.message) evidence.push(fact(ctx.id, quote(pod.statusReason.message), 'status'));
  const attributes: Record<string, string | number | boolean> = {};
  let why = 'failed';
  if (pod.statusReason) {
    attributes.reason = pod.statusReason.reason;
    why = `failed: ${pod.statusReason.reason}`;
  } else if (ended?.terminated) {
    const t = ended.terminated;
    Object.assign(attributes, { container: ended.name, exit_code: t.exitCode, ...(t.reason ? { reason: t.reason } : {}) });
    why = `failed: container ${ended.name} exited ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}`;
    evidence.push(fact(ctx.id, `container ${ended.name} terminated: exit ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}${t.finishedAt ? ` at ${t.finishedAt}` : ''}`, 'status'));
  }
  return draft(ctx, { code: 'PodFailed', severity: 'critical', summary: `${pod.name} ${why}`, evidence, since: ended?.terminated?.finishedAt ?? pod.readySince, attributes, suspects: [] });
}

/** Suspects for one scheduler cause, most specific first. */
function causeSuspects(cause: UnschedulableCause, pod: PodObject, claims: readonly string[], taintKeys: readonly string[], blocks: NodeBlocks): string[] {
  switch (cause) {
    case 'unbound_pvc':
      return [...claims, ...pod.refs.pvcs].map((c) => nodeId('PersistentVolumeClaim', pod.namespace, c));
    case 'taint': {
      const tainted = taintKeys.length > 0 ? taintKeys.flatMap((k) => blocks.byTaint.get(k) ?? []) : blocks.anyTaint;
      return tainted.slice(0, MAX_NODE_SUSPECTS);
    }
    case 'node_unschedulable':
      return blocks.cordoned.slice(0, MAX_NODE_SUSPECTS);
    default:
      return [];
  }
}

/**
 * The scheduler counts a node under the first filter it fails, cordon and taints before the
 * node selector, so on a shared cluster its counts mix in nodes the pod never wanted. For a
 * pod with a node selector, the nodes it picks say more: when every one of them is cordoned
 * (or carries a hard taint), that is the cause and they are the suspects. Unbound claims keep
 * precedence: they block the pod on every node.
 */
function selectorPlacement(pod: PodObject, blocks: NodeBlocks, parsed: UnschedulableCause): { cause: UnschedulableCause; nodes: string[] } | null {
  const selector = Object.entries(pod.nodeSelector);
  if (selector.length === 0 || parsed === 'unbound_pvc') return null;
  const picked = blocks.nodes.filter((n) => selector.every(([k, v]) => n.labels[k] === v));
  if (picked.length === 0) return null;
  const ids = (nodes: readonly NodeObject[]) => nodes.slice(0, MAX_NODE_SUSPECTS).map((n) => nodeId('Node', null, n.name));
  if (picked.every((n) => n.unschedulable)) return { cause: 'node_unschedulable', nodes: ids(picked) };
  if (picked.every((n) => hardTaints(n).length > 0)) return { cause: 'taint', nodes: ids(picked) };
  return null;
}

function unschedulable(ctx: PodContext, blocks: NodeBlocks): DraftFinding {
  const { pod } = ctx;
  const message = pod.unschedulable?.message ?? null;
  const parsed = parseSchedulerMessage(message);
  const placement = selectorPlacement(pod, blocks, parsed.cause);
  const verdict = placement ? { ...parsed, cause: placement.cause } : parsed;
  // Only the main cause's objects may explain it: a cordoned or tainted node that turned the
  // pod away too does not, when every other node lacks the room it asks for (the pod's own
  // request is then the root, whatever else the cluster holds).
  const suspects = placement ? placement.nodes : causeSuspects(verdict.cause, pod, verdict.claims, verdict.taintKeys, blocks);
  const attributes: Record<string, string | number | boolean> = { cause: verdict.cause };
  if (verdict.totalNodes !== null) attributes.nodes_total = verdict.totalNodes;
  if (verdict.taintKeys.length > 0) attributes.taints = verdict.taintKeys.join(',');
  if (verdict.claims.length > 0) attributes.claims = verdict.claims.join(',');
  const evidence = [fact(ctx.id, `PodScheduled=False (${pod.unschedulable?.reason ?? 'Unschedulable'}): ${message ? quote(message) : 'no message'}`, 'status')];
  const nodeSelector = Object.entries(pod.nodeSelector);
  if (verdict.cause === 'node_affinity' && nodeSelector.length > 0) {
    evidence.push(fact(ctx.id, `node selector ${nodeSelector.map(([k, v]) => `${k}=${v}`).join(', ')}`, 'spec'));
  }
  return draft(ctx, {
    code: 'Unschedulable',
    severity: 'warning',
    summary: `${pod.name} unschedulable: ${describeVerdict(verdict)}`,
    evidence,
    since: earliestWarning(ctx, new Set(['FailedScheduling'])) ?? pod.createdAt,
    attributes,
    suspects,
  });
}

function containerCreatingStuck(ctx: PodContext): DraftFinding | null {
  const { pod, now } = ctx;
  if (!pod.nodeName) return null;
  const all = [...pod.initStatuses, ...pod.statuses];
  const creating = all.length === 0 || all.some((s) => s.waiting?.reason === 'ContainerCreating' || s.waiting?.reason === 'PodInitializing');
  const started = pod.startedAt ?? pod.createdAt;
  const age = secondsSince(started, now);
  if (!creating || age === null || age < CONTAINER_CREATING_STUCK_SECS) return null;
  const events = ctx.warnings().filter((e) => CREATING_EVENTS.has(e.reason));
  const newest = events[0];
  if (!newest) return null;
  const evidence: Evidence[] = [fact(ctx.id, `containers still being created ${shortAge(started, now)} after the pod started`, 'status')];
  for (const e of events.slice(0, 3)) evidence.push(fact(ctx.id, `${e.reason}${e.count > 1 ? ` (x${e.count})` : ''}: ${quote(e.message)}`, 'event'));
  const suspects: string[] = [];
  const attributes: Record<string, string | number | boolean> = { event_reason: newest.reason };
  let what = newest.reason === 'FailedCreatePodSandBox' ? 'sandbox creation failing' : 'volume mount failing';
  const missing = events.map((e) => parseMissingObject(e.message)).find((m) => m !== null) ?? null;
  if (missing) {
    const namespace = missing.namespace ?? pod.namespace;
    attributes.missing_kind = missing.kind;
    if (missing.name !== null) attributes.missing_name = missing.name;
    if (missing.key !== null) attributes.missing_key = missing.key;
    if (missing.volume !== null) attributes.volume = missing.volume;
    if (missing.name !== null) {
      const id = nodeId(missing.kind, namespace, missing.name);
      suspects.push(id);
      evidence.push(fact(id, absenceFact(missing, namespace), 'absence'));
    }
    what = describeMissing(missing);
  }
  return draft(ctx, {
    code: 'ContainerCreatingStuck',
    severity: 'warning',
    summary: `${pod.name} stuck creating containers for ${shortAge(started, now)}: ${what}`,
    evidence,
    since: earliestWarning(ctx, CREATING_EVENTS) ?? started,
    attributes,
    suspects,
  });
}

function probeFailing(ctx: PodContext): DraftFinding | null {
  const { pod, now } = ctx;
  const notReadyFor = secondsSince(pod.readySince ?? pod.startedAt, now);
  if (notReadyFor === null || notReadyFor < PROBE_FAILING_MIN_SECS) return null;
  const unhealthy = ctx.warnings().filter((e) => {
    if (e.reason !== 'Unhealthy') return false;
    const age = secondsSince(e.lastSeen ?? e.firstSeen, now);
    return age !== null && age <= PROBE_EVENT_RECENT_SECS;
  });
  const newest = unhealthy[0];
  if (!newest) return null;
  const probe = probeOfMessage(newest.message);
  const container = pod.statuses.find((s) => !s.ready)?.name ?? null;
  return draft(ctx, {
    code: 'ProbeFailing',
    severity: 'warning',
    summary: `${pod.name} not ready for ${shortAge(pod.readySince ?? pod.startedAt, now)}: ${probe ?? 'a'} probe failing${container ? ` (container ${container})` : ''}`,
    evidence: [
      fact(ctx.id, `Running, not Ready since ${pod.readySince ?? 'start'}`, 'status'),
      ...unhealthy.slice(0, 3).map((e) => fact(ctx.id, `Unhealthy${e.count > 1 ? ` (x${e.count})` : ''}: ${quote(e.message)}`, 'event')),
    ],
    since: pod.readySince,
    attributes: { ...(probe ? { probe } : {}), ...(container ? { container } : {}) },
    suspects: [],
  });
}

function stuckPending(ctx: PodContext): DraftFinding | null {
  const { pod, now } = ctx;
  const age = secondsSince(pod.createdAt, now);
  if (age === null || age < STUCK_PENDING_SECS) return null;
  const where = pod.nodeName ? `on node ${pod.nodeName}` : 'not scheduled';
  return draft(ctx, {
    code: 'StuckPending',
    severity: 'warning',
    summary: `${pod.name} pending for ${shortAge(pod.createdAt, now)} (${where})`,
    evidence: [fact(ctx.id, `phase Pending since ${pod.createdAt ?? 'unknown'}, ${where}${pod.unschedulable ? `, ${pod.unschedulable.reason}` : ''}`, 'status')],
    since: pod.createdAt,
    attributes: { scheduled: pod.nodeName !== null, ...(pod.unschedulable ? { reason: pod.unschedulable.reason } : {}) },
    suspects: [],
  });
}
