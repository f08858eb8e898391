// The license heartbeat (spec §1 "Tiers and licensing"; docs/licensing.md, "Heartbeat"): once a
// day, jittered, POST {fingerprint, license_key} to `license.apiUrl`/heartbeat, and nothing
// else. Nothing waits on it: timers are unref'd, a request is bounded, a failure is logged
// once (and the recovery once), and with no key installed nothing is sent at all. A key an
// admin installs or replaces is reported a few seconds later rather than at the next daily
// beat, without the install request waiting for it.
import type { LicenseHeartbeat } from '../../schema/license.ts';
import type { Logger } from '../log.ts';

export const HEARTBEAT_INTERVAL_MS = 24 * 3600 * 1000;
/** Spread so a fleet started together does not call the service in the same second. */
export const HEARTBEAT_JITTER_MS = 3600 * 1000;
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * After an admin installs or replaces a key, the next beat comes this soon instead of at the
 * daily time (then the daily cadence resumes from it). Not immediate on purpose: keys replaced
 * in quick succession (a typo fixed) make one beat, with the key that ended up in force. No
 * jitter is needed here: installs are one admin's action, not a fleet starting together.
 */
export const HEARTBEAT_AFTER_INSTALL_MS = 5_000;

export interface Timers {
  setTimeout(fn: () => void, ms: number): { unref?(): unknown };
  clearTimeout(handle: { unref?(): unknown }): void;
}

const nodeTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface HeartbeatOptions {
  /** `license.apiUrl`; the heartbeat goes to `<apiUrl>/heartbeat`. */
  apiUrl: string;
  /** The key in force (null: nothing is sent). */
  key: () => string | null;
  fingerprint: () => Promise<string>;
  log: Logger;
  intervalMs?: number;
  jitterMs?: number;
  afterInstallMs?: number;
  /** Subscribes the heartbeat to key installs (LicenseManager.onInstall): each brings the next beat forward. */
  installs?: (listener: () => void) => void;
  /** [0, 1); tests pin it. */
  random?: () => number;
  timers?: Timers;
  post?: (url: string, body: string, signal: AbortSignal) => Promise<{ ok: boolean; status: number }>;
}

export interface Heartbeat {
  /** One beat now (what the timer runs); resolves when it is sent or given up, never rejects. */
  beat(): Promise<'sent' | 'skipped' | 'failed'>;
  /** A key was installed or replaced: the next beat comes `afterInstallMs` from now (never blocks the caller). */
  keyInstalled(): void;
  stop(): void;
}

const defaultPost: NonNullable<HeartbeatOptions['post']> = async (url, body, signal) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal, redirect: 'error' });
  await res.body?.cancel();
  return { ok: res.ok, status: res.status };
};

export function heartbeatUrl(apiUrl: string): string {
  return new URL('heartbeat', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`).toString();
}

/** The first beat comes within `jitterMs` of the start, then every `intervalMs` plus up to `jitterMs`. */
export function startHeartbeat(o: HeartbeatOptions): Heartbeat {
  const interval = o.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const jitter = o.jitterMs ?? HEARTBEAT_JITTER_MS;
  const random = o.random ?? Math.random;
  const timers = o.timers ?? nodeTimers;
  const post = o.post ?? defaultPost;
  const url = heartbeatUrl(o.apiUrl);
  const log = o.log;
  let failing = false;
  let stopped = false;
  let handle: { unref?(): unknown } | null = null;
  // Each schedule supersedes the one before: a beat in flight when a key is installed does not
  // schedule its daily successor, so there is only ever one chain of beats.
  let generation = 0;

  const failed = (why: string): 'failed' => {
    if (!failing) log.warn('license heartbeat failed; retrying at the next beat, quietly until one succeeds', { url, error: why });
    failing = true;
    return 'failed';
  };

  const beat = async (): Promise<'sent' | 'skipped' | 'failed'> => {
    const key = o.key();
    if (key === null) return 'skipped';
    try {
      const body: LicenseHeartbeat = { fingerprint: await o.fingerprint(), license_key: key };
      const res = await post(url, JSON.stringify(body), AbortSignal.timeout(REQUEST_TIMEOUT_MS));
      if (!res.ok) return failed(`the license service answered ${res.status}`);
    } catch (err) {
      return failed(err instanceof Error ? err.message : String(err));
    }
    if (failing) log.info('license heartbeat delivered again', { url });
    failing = false;
    return 'sent';
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    if (handle) timers.clearTimeout(handle);
    const mine = ++generation;
    handle = timers.setTimeout(() => {
      handle = null;
      void beat().finally(() => {
        if (mine === generation) schedule(interval + Math.floor(random() * jitter));
      });
    }, ms);
    handle.unref?.();
  };
  schedule(Math.floor(random() * jitter));
  // Never later than the regular period would have come (tests run with periods under a second).
  const afterInstall = o.afterInstallMs ?? Math.min(HEARTBEAT_AFTER_INSTALL_MS, interval);
  const keyInstalled = () => schedule(afterInstall);
  o.installs?.(keyInstalled);

  return {
    beat,
    keyInstalled,
    stop: () => {
      stopped = true;
      if (handle) timers.clearTimeout(handle);
    },
  };
}
