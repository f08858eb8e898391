// The hosts crashed containers named in their last log lines, for the diagnosis' dependency
// rule (domain/diagnosis/analyzers/pod-dependencies.ts). A log is not something an informer
// holds, so this reads it from the API server, with a bounded cost:
// - only containers that crash now: waiting in CrashLoopBackOff, or whose last instance failed
//   in the last RECENT_CRASH_SECS (a container the kubelet restarted after a failed probe);
// - once per crash: a container is read again only when its restart count moved past the one
//   last read, so a failed read is not retried before the next crash; until the new read
//   answers, the last one's hosts stand (a container crashing every few seconds keeps them);
// - the last LOG_LINES lines of the previous instance, at most LOG_BYTES;
// - at most READS_IN_FLIGHT reads at once, and at most MAX_TRACKED containers known at a time:
//   beyond that, new crashes wait for tracked ones to end;
// - what is kept is hosts and the lines naming them (redacted, cut), never the whole log.
// The diagnosis asks on every run and takes what has been read so far: a crash is chained to its
// dependency one diagnosis after its log was read.
import type { LogHost, PodObject } from '../../domain/cluster/model.ts';
import { hostsInLogLine } from '../../domain/diagnosis/host-names.ts';
import { podKey } from '../../domain/diagnosis/input.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import type { PodLogs } from '../../handlers/logs/service.ts';
import type { Logger } from '../log.ts';

export const LOG_LINES = 20;
export const LOG_BYTES = 16 * 1024;
/** A container whose last instance failed this recently is crashing, waiting or not. */
export const RECENT_CRASH_SECS = 600;
export const READS_IN_FLIGHT = 2;
export const MAX_TRACKED = 1000;
/** Hosts kept per container: the newest lines' first. */
export const MAX_HOSTS_PER_CONTAINER = 8;
/** A line shown as evidence is cut to this many characters. */
export const MAX_LINE_CHARS = 200;

export interface CrashLogReader {
  /** The hosts read so far for the pods' crashing containers, keyed `podKey`; starts reads not yet made. */
  hostsFor(pods: readonly PodObject[], now: Date): ReadonlyMap<string, readonly LogHost[]>;
  /** Resolves when no read is queued or in flight (tests, shutdown). */
  settled(): Promise<void>;
  /** Reads already started finish; no new one starts. */
  close(): void;
}

interface Tracked {
  pod: string;
  /** What the last answered read found (none before it). */
  hosts: LogHost[];
  /** The restart count the last answered read was for; null before the first. */
  readFor: number | null;
  /** The restart count of the read queued or in flight; null when none is. */
  pending: number | null;
}

interface Crash {
  /** `namespace/pod/container`: one entry per container, whatever its restarts. */
  key: string;
  namespace: string;
  pod: string;
  container: string;
  restartCount: number;
}

/** The containers of `pod` that crash now. */
function crashesOf(pod: PodObject, now: Date): Crash[] {
  const out: Crash[] = [];
  for (const s of [...pod.initStatuses, ...pod.statuses]) {
    const last = s.lastTerminated;
    const finished = last?.finishedAt ? Date.parse(last.finishedAt) : Number.NaN;
    const recent = last !== null && last.exitCode !== 0 && now.getTime() - finished <= RECENT_CRASH_SECS * 1000;
    if (s.restartCount === 0 || (s.waiting?.reason !== 'CrashLoopBackOff' && !recent)) continue;
    out.push({ key: `${pod.namespace}/${pod.name}/${s.name}`, namespace: pod.namespace, pod: pod.name, container: s.name, restartCount: s.restartCount });
  }
  return out;
}

/** The hosts a previous instance's last lines name, the newest line first, each host once. */
export function logHostsOf(container: string, text: string): LogHost[] {
  const out: LogHost[] = [];
  const lines = text.split('\n').slice(-LOG_LINES).reverse();
  for (const raw of lines) {
    for (const host of hostsInLogLine(raw)) {
      if (out.length >= MAX_HOSTS_PER_CONTAINER) return out;
      if (out.some((h) => h.host === host)) continue;
      const line = redactText(raw.trim());
      out.push({ container, host, line: line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line });
    }
  }
  return out;
}

export function createCrashLogReader(logs: PodLogs, log: Logger): CrashLogReader {
  const tracked = new Map<string, Tracked>();
  const queue: Crash[] = [];
  let inFlight = 0;
  let closed = false;
  let warnedFull = false;
  let lastFailure: string | null = null;
  let waiters: (() => void)[] = [];

  const settle = () => {
    if (inFlight > 0 || queue.length > 0) return;
    const done = waiters;
    waiters = [];
    for (const w of done) w();
  };

  const pump = () => {
    while (!closed && inFlight < READS_IN_FLIGHT) {
      const next = queue.shift();
      if (next === undefined) break;
      // Gone before its turn (the pod was deleted, the crash loop ended): nobody wants this read.
      if (tracked.get(next.key)?.pending !== next.restartCount) continue;
      inFlight++;
      void read(next).finally(() => {
        inFlight--;
        pump();
        settle();
      });
    }
    if (closed) queue.length = 0;
    settle();
  };

  const read = async (crash: Crash) => {
    const answer = await logs.tail(crash.namespace, crash.pod, crash.container, { previous: true, lines: LOG_LINES, limitBytes: LOG_BYTES });
    const entry = tracked.get(crash.key);
    if (entry?.pending !== crash.restartCount) return;
    // One line per new reason, not per crash: a cluster-wide refusal (no pods/log grant) says so once.
    if (!answer.ok && answer.reason !== lastFailure) log.info('crash log not read', { pod: `${crash.namespace}/${crash.pod}`, container: crash.container, reason: answer.reason });
    lastFailure = answer.ok ? null : answer.reason;
    entry.hosts = answer.ok ? logHostsOf(crash.container, answer.text) : [];
    entry.readFor = crash.restartCount;
    entry.pending = null;
  };

  return {
    hostsFor(pods, now) {
      const current = new Map<string, Crash>();
      for (const pod of pods) for (const c of crashesOf(pod, now)) current.set(c.key, c);
      // A crash loop that ended is forgotten: memory follows the crashes of now.
      for (const key of tracked.keys()) if (!current.has(key)) tracked.delete(key);
      for (const [key, crash] of current) {
        if (closed) break;
        let entry = tracked.get(key);
        if (entry === undefined) {
          if (tracked.size >= MAX_TRACKED) {
            if (!warnedFull) log.warn('too many crashing containers to read all their logs', { max: MAX_TRACKED });
            warnedFull = true;
            // New crashes wait for a slot; the tracked ones still get read at their next crash.
            continue;
          }
          entry = { pod: podKey(crash.namespace, crash.pod), hosts: [], readFor: null, pending: null };
          tracked.set(key, entry);
        }
        if (entry.pending !== null || entry.readFor === crash.restartCount) continue;
        entry.pending = crash.restartCount;
        queue.push(crash);
      }
      if (tracked.size < MAX_TRACKED) warnedFull = false;
      pump();
      const out = new Map<string, LogHost[]>();
      for (const t of tracked.values()) if (t.hosts.length > 0) out.set(t.pod, [...(out.get(t.pod) ?? []), ...t.hosts]);
      return out;
    },
    settled() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        settle();
      });
    },
    close() {
      closed = true;
      queue.length = 0;
      settle();
    },
  };
}

/** For installs and tests that read no logs. */
export const noCrashLogs: CrashLogReader = { hostsFor: () => new Map(), settled: () => Promise.resolve(), close: () => undefined };
