// The pods analyzer's container half: what each container and init container says about
// itself (waiting reasons, terminations, restarts). pods.ts merges these per code and adds
// the pod-level findings; the shared vocabulary (context, clock helpers) lives here.
import type { ContainerStatus, EventObject, PodObject, Termination } from '../../cluster/model.ts';
import { nodeId } from '../../cluster/node-id.ts';
import { shortAge } from '../../resources/age.ts';
import { redactText } from '../../redaction/redact.ts';
import type { Severity } from '../../../schema/common.ts';
import type { Evidence } from '../../../schema/diagnosis.ts';
import { parseMissingObject, type MissingObject } from '../container-message.ts';

/**
 * A termination is recent until its container has been running and Ready for this long
 * since: an OOM kill within it is OOMKilled (critical), older ones are OOMKilledPreviously
 * (a note); restarts are RestartedPreviously only once the container has been this stable.
 * Ten minutes is the kubelet's own bound: a container that has run that long without
 * trouble gets its crash back-off reset, i.e. the kubelet itself stops treating it as crashing.
 */
export const RECENT_TERMINATION_SECS = 600;
/** HighRestartRate: at least this many restarts of one container... */
export const HIGH_RESTART_MIN_RESTARTS = 3;
/** ...at this many per hour or more since the pod started... */
export const HIGH_RESTARTS_PER_HOUR = 3;
/** ...and its last termination no longer ago than this (a rate from last week is history). */
export const HIGH_RESTART_RECENT_SECS = 900;
/** Longest cluster message (redacted) quoted in a fact or attribute. */
export const MESSAGE_CLIP = 300;

/** What the analyzer knows about one pod while judging it. */
export interface PodContext {
  pod: PodObject;
  /** The pod's node id. */
  id: string;
  now: Date;
  /** The pod's Warning events, newest first (computed once, on first use). */
  warnings: () => readonly EventObject[];
  /** All the pod's events (Normal too: the kubelet's Killing), newest first (computed once, on first use). */
  events: () => readonly EventObject[];
  /** Whether the view holds this ConfigMap/Secret; null when the view cannot say (RBAC). */
  exists: (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => boolean | null;
}

/** One container's problem, before pods.ts folds containers with the same code together. */
export interface ContainerFinding {
  code: string;
  severity: Severity;
  container: string;
  init: boolean;
  summary: string;
  evidence: Evidence[];
  attributes: Record<string, string | number | boolean>;
  since: string | null;
  /** Specific suspects (the ConfigMap it misses); the pod's claims and node are added by pods.ts. */
  suspects: string[];
}

export const secondsSince = (ts: string | null | undefined, now: Date): number | null => {
  if (!ts) return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : (now.getTime() - t) / 1000;
};

/** Cluster text into a fact: redacted first (it may hold a credential), then clipped. */
export function quote(text: string): string {
  const clean = redactText(text.replace(/\s+/g, ' ').trim());
  return clean.length > MESSAGE_CLIP ? `${clean.slice(0, MESSAGE_CLIP - 1)}…` : clean;
}

export const fact = (node_id: string, text: string, source: Evidence['source']): Evidence => ({ node_id, fact: text, source, link: null });

/** The earliest first sighting among the pod's Warning events (optionally of some reasons). */
export function earliestWarning(ctx: PodContext, reasons?: ReadonlySet<string>): string | null {
  let first: string | null = null;
  for (const e of ctx.warnings()) {
    if (reasons && !reasons.has(e.reason)) continue;
    const seen = e.firstSeen ?? e.lastSeen;
    if (seen !== null && (first === null || seen < first)) first = seen;
  }
  return first;
}

const WAITING_CODES = new Set(['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);
/** Pull failures the kubelet names differently; they are reported as ErrImagePull (attr waiting_reason says which). */
const OTHER_PULL_FAILURES = new Set(['ErrImageNeverPull', 'ImageInspectError', 'RegistryUnavailable', 'SignatureValidationFailed']);

function describeExit(t: Termination): string {
  return `exit ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}${t.signal ? `, signal ${t.signal}` : ''}`;
}

function terminationAttrs(t: Termination | null): Record<string, string | number> {
  if (!t) return {};
  return { exit_code: t.exitCode, ...(t.reason ? { reason: t.reason } : {}), ...(t.signal ? { signal: t.signal } : {}) };
}

const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))}Mi`;

/** Running and Ready for at least RECENT_TERMINATION_SECS: whatever happened before is history. */
function stable(s: ContainerStatus, now: Date): boolean {
  const running = secondsSince(s.runningSince, now);
  return s.ready && running !== null && running >= RECENT_TERMINATION_SECS;
}

/** HighRestartRate, as docs/diagnosis.md states it (constants above). */
export function highRestartRate(s: ContainerStatus, podStartedAt: string | null, now: Date): boolean {
  if (s.restartCount < HIGH_RESTART_MIN_RESTARTS) return false;
  const lifetime = secondsSince(podStartedAt, now);
  const lastEnded = secondsSince(s.lastTerminated?.finishedAt ?? s.terminated?.finishedAt, now);
  if (lifetime === null || lastEnded === null || lastEnded > HIGH_RESTART_RECENT_SECS) return false;
  // restarts / hours ≥ rate, without dividing: restarts × 3600 ≥ rate × seconds.
  return s.restartCount * 3600 >= HIGH_RESTARTS_PER_HOUR * Math.max(lifetime, 1);
}

/** Every container and init container of the pod with a problem, present or past. */
export function containerFindings(ctx: PodContext): ContainerFinding[] {
  const { pod } = ctx;
  const out: ContainerFinding[] = [];
  const images = new Map([...pod.initContainers, ...pod.containers].map((c) => [c.name, c.image]));
  for (const [init, statuses] of [[true, pod.initStatuses], [false, pod.statuses]] as const) {
    for (const s of statuses) {
      const found = judgeContainer(ctx, s, init, images.get(s.name) ?? null);
      if (found) out.push(found);
    }
  }
  return out;
}

function judgeContainer(ctx: PodContext, s: ContainerStatus, init: boolean, image: string | null): ContainerFinding | null {
  const { pod, now } = ctx;
  const who = `${init ? 'init container' : 'container'} ${s.name}`;
  const base = { container: s.name, init, suspects: [] as string[] };
  const attrs = (extra: Record<string, string | number | boolean>) => ({ container: s.name, init, ...extra });
  const last = s.lastTerminated ?? s.terminated;
  const waiting = s.waiting?.reason ?? null;

  // A liveness or startup probe kill is what it is, whatever the crash loop or exit code says.
  if (!init && last && s.restartCount > 0 && (waiting === null || waiting === 'CrashLoopBackOff') && last.reason !== 'OOMKilled' && (last.exitCode === 137 || last.exitCode === 143) && !stable(s, now)) {
    const kill = probeKill(ctx, s.name);
    if (kill) {
      return {
        ...base,
        code: 'ProbeKilled',
        severity: 'critical',
        summary: `${pod.name}: ${who} restarted by the kubelet: its ${kill.probe} probe failed${kill.message ? ` (${kill.message})` : ''}, ${s.restartCount} restarts`,
        evidence: [fact(ctx.id, `${who} last terminated: ${describeExit(last)}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`, 'status'), ...kill.evidence],
        attributes: attrs({ probe: kill.probe, ...(kill.message ? { message: kill.message } : {}), restarts: s.restartCount, ...terminationAttrs(last) }),
        since: earliestWarning(ctx) ?? pod.startedAt ?? pod.createdAt,
      };
    }
  }

  if (waiting !== null && (WAITING_CODES.has(waiting) || OTHER_PULL_FAILURES.has(waiting))) {
    // A crash loop whose last exit was an OOM kill is reported as what it is: OOMKilled.
    if (waiting === 'CrashLoopBackOff' && last?.reason === 'OOMKilled') return oomKilled(ctx, s, init, last, true);
    const message = s.waiting?.message ? quote(s.waiting.message) : null;
    const status = fact(ctx.id, `${who}: waiting ${waiting}${message ? `: ${message}` : ''}`, 'status');
    const since = earliestWarning(ctx) ?? pod.startedAt ?? pod.createdAt;
    if (waiting === 'CrashLoopBackOff') {
      const exit = last ? `, last ${describeExit(last)}` : '';
      const evidence = [status];
      if (last) evidence.push(fact(ctx.id, `${who} last terminated: ${describeExit(last)}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`, 'status'));
      return {
        ...base,
        code: 'CrashLoopBackOff',
        severity: 'critical',
        summary: `${pod.name}: ${who} crash-looping${exit}, ${s.restartCount} restarts`,
        evidence,
        attributes: attrs({ restarts: s.restartCount, ...terminationAttrs(last) }),
        since,
      };
    }
    if (waiting === 'InvalidImageName') {
      return { ...base, code: waiting, severity: 'critical', summary: `${pod.name}: ${who} has an invalid image name${image ? ` ${image}` : ''}`, evidence: [status], attributes: attrs(image ? { image } : {}), since };
    }
    if (waiting === 'ImagePullBackOff' || waiting === 'ErrImagePull' || OTHER_PULL_FAILURES.has(waiting)) {
      const code = waiting === 'ImagePullBackOff' ? waiting : 'ErrImagePull';
      return {
        ...base,
        code,
        severity: 'critical',
        summary: `${pod.name}: cannot pull image ${image ?? '(unknown)'} for ${who}`,
        evidence: [status],
        attributes: attrs({ ...(image ? { image } : {}), ...(code !== waiting ? { waiting_reason: waiting } : {}) }),
        since,
      };
    }
    if (waiting === 'CreateContainerConfigError') return configError(ctx, s, init, who, status, since);
    const verb = waiting === 'RunContainerError' ? 'cannot be started' : 'cannot be created';
    return { ...base, code: waiting, severity: 'critical', summary: `${pod.name}: ${who} ${verb}`, evidence: [status], attributes: attrs(message ? { message } : {}), since };
  }

  if (last?.reason === 'OOMKilled') {
    if (!stable(s, now)) return oomKilled(ctx, s, init, last, false);
    return {
      ...base,
      code: 'OOMKilledPreviously',
      severity: 'info',
      summary: `${pod.name}: ${who} was OOM-killed ${shortAge(last.finishedAt, now)} ago, ready since`,
      evidence: [fact(ctx.id, `${who} last terminated: ${describeExit(last)}${last.finishedAt ? ` at ${last.finishedAt}` : ''}; running and ready since ${s.runningSince ?? 'unknown'}`, 'status')],
      attributes: attrs({ restarts: s.restartCount, ...terminationAttrs(last) }),
      since: last.finishedAt,
    };
  }

  // Restarts of a finished init container happened before the pod went on: nothing to say.
  if (s.restartCount === 0 || (init && s.terminated?.exitCode === 0)) return null;
  if (highRestartRate(s, pod.startedAt ?? pod.createdAt, now)) {
    return {
      ...base,
      code: 'HighRestartRate',
      severity: 'warning',
      summary: `${pod.name}: ${who} restarted ${s.restartCount} times in ${shortAge(pod.startedAt ?? pod.createdAt, now)}`,
      evidence: [fact(ctx.id, `${who}: ${s.restartCount} restarts since ${pod.startedAt ?? pod.createdAt ?? 'unknown'}${last ? `, last ${describeExit(last)}${last.finishedAt ? ` at ${last.finishedAt}` : ''}` : ''}`, 'status')],
      attributes: attrs({ restarts: s.restartCount, ...terminationAttrs(last) }),
      since: pod.startedAt ?? pod.createdAt,
    };
  }
  if (stable(s, now)) {
    return {
      ...base,
      code: 'RestartedPreviously',
      severity: 'info',
      summary: `${pod.name}: ${who} restarted ${s.restartCount} times, ready for ${shortAge(s.runningSince, now)} since`,
      evidence: [fact(ctx.id, `${who}: ${s.restartCount} restarts${last ? `, last ${describeExit(last)}` : ''}; running and ready since ${s.runningSince ?? 'unknown'}`, 'status')],
      attributes: attrs({ restarts: s.restartCount, ...terminationAttrs(last) }),
      since: last?.finishedAt ?? null,
    };
  }
  return null;
}

/**
 * The kubelet's word, from the last RECENT_TERMINATION_SECS, that it killed `container` for a
 * failed liveness or startup probe: its Killing event names the container; with one container
 * only, an Unhealthy event about either probe says as much. The message is the last failure's.
 */
function probeKill(ctx: PodContext, container: string): { probe: 'liveness' | 'startup'; message: string | null; evidence: Evidence[] } | null {
  const recent = ctx.events().filter((e) => (secondsSince(e.lastSeen ?? e.firstSeen, ctx.now) ?? Number.POSITIVE_INFINITY) <= RECENT_TERMINATION_SECS);
  const killing = recent.find((e) => e.reason === 'Killing' && e.message.startsWith(`Container ${container} failed `) && /failed (liveness|startup) probe/.test(e.message));
  const failures = recent.filter((e) => e.reason === 'Unhealthy' && /^(Liveness|Startup) probe failed/.test(e.message));
  const probe = killing ? (/failed (liveness|startup) probe/.exec(killing.message)?.[1] ?? null) : ctx.pod.containers.length === 1 ? (/^(Liveness|Startup)/.exec(failures[0]?.message ?? '')?.[1]?.toLowerCase() ?? null) : null;
  if (probe !== 'liveness' && probe !== 'startup') return null;
  const prefix = `${probe === 'liveness' ? 'Liveness' : 'Startup'} probe failed:`;
  const lastFailure = failures.find((e) => e.message.startsWith(prefix));
  const evidence = [killing, lastFailure].filter((e): e is EventObject => e !== undefined).map((e) => fact(ctx.id, `${e.reason}${e.count > 1 ? ` (x${e.count})` : ''}: ${quote(e.message)}`, 'event'));
  return { probe, message: lastFailure ? quote(lastFailure.message.slice(prefix.length)) : null, evidence };
}

function oomKilled(ctx: PodContext, s: ContainerStatus, init: boolean, last: Termination, crashLooping: boolean): ContainerFinding {
  const { pod } = ctx;
  const who = `${init ? 'init container' : 'container'} ${s.name}`;
  const limit = pod.containers.find((c) => c.name === s.name)?.resources.memLimitBytes ?? null;
  const evidence = [fact(ctx.id, `${who} last terminated: ${describeExit(last)}${last.finishedAt ? ` at ${last.finishedAt}` : ''}, ${s.restartCount} restarts`, 'status')];
  if (limit !== null) evidence.push(fact(ctx.id, `${who} memory limit ${mib(limit)}`, 'spec'));
  return {
    container: s.name,
    init,
    code: 'OOMKilled',
    severity: 'critical',
    summary: `${pod.name}: ${who} OOM-killed${limit !== null ? ` at its ${mib(limit)} limit` : ''}, ${s.restartCount} restarts`,
    evidence,
    attributes: { container: s.name, init, restarts: s.restartCount, crash_looping: crashLooping, ...terminationAttrs(last), ...(limit !== null ? { memory_limit_bytes: limit } : {}) },
    since: last.finishedAt,
    suspects: [],
  };
}

function configError(ctx: PodContext, s: ContainerStatus, init: boolean, who: string, status: Evidence, since: string | null): ContainerFinding {
  const { pod } = ctx;
  const missing = parseMissingObject(s.waiting?.message ?? null);
  const attributes: Record<string, string | number | boolean> = { container: s.name, init };
  const evidence = [status];
  const suspects: string[] = [];
  let what: string | null = null;
  if (missing && missing.kind !== 'PersistentVolumeClaim' && missing.name !== null) {
    const namespace = missing.namespace ?? pod.namespace;
    const id = nodeId(missing.kind, namespace, missing.name);
    attributes.missing_kind = missing.kind;
    attributes.missing_name = missing.name;
    if (missing.key !== null) attributes.missing_key = missing.key;
    // The kubelet retries on its own schedule: an object created since its last attempt
    // exists already, which the fact says rather than claim an absence that is over.
    const nowExists = missing.key === null && ctx.exists(missing.kind, namespace, missing.name) === true;
    evidence.push(nowExists ? fact(id, `${absenceFact(missing, namespace)} at the kubelet's last attempt; it exists now`, 'status') : fact(id, absenceFact(missing, namespace), 'absence'));
    suspects.push(id);
    what = missing.key !== null ? `key ${missing.key} of ${missing.kind} ${missing.name}` : `${missing.kind} ${missing.name}`;
  } else {
    // The message names nothing we can read: the referenced objects the view lacks are the suspects.
    for (const [kind, names] of [['ConfigMap', pod.refs.configMaps], ['Secret', pod.refs.secrets]] as const) {
      for (const name of names) {
        if (ctx.exists(kind, pod.namespace, name) !== false) continue;
        const id = nodeId(kind, pod.namespace, name);
        evidence.push(fact(id, `${kind} ${pod.namespace}/${name} does not exist`, 'absence'));
        suspects.push(id);
      }
    }
  }
  return {
    container: s.name,
    init,
    code: 'CreateContainerConfigError',
    severity: 'critical',
    summary: what !== null ? `${pod.name}: ${who} misses ${what}` : `${pod.name}: ${who} has a bad configuration`,
    evidence,
    attributes,
    since,
    suspects,
  };
}

/** "ConfigMap app-config not found", "key url of ConfigMap app-config missing", for a summary. */
export function describeMissing(missing: MissingObject): string {
  const object = missing.name === null ? `a ${missing.kind}` : `${missing.kind} ${missing.name}`;
  return missing.key !== null ? `key ${missing.key} of ${object} missing` : `${object} not found`;
}

export function absenceFact(missing: MissingObject, namespace: string): string {
  const name = missing.name === null ? missing.kind : `${missing.kind} ${namespace}/${missing.name}`;
  return missing.key !== null ? `${name} has no key ${missing.key}` : `${name} not found`;
}
