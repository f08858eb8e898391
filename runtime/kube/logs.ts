// Container logs from the API server (`/api/v1/namespaces/{ns}/pods/{pod}/log`), the one
// place the agent reads them: incident details, the logs route, MCP's get_logs, the crash-log
// reader. Every read is bounded: a tail by its bytes and a timeout; a follow by a byte cap the
// API server itself enforces (`limitBytes`), a time cap, the client going away, and the logs
// route's StreamCaps (how many may be open, held by the runtime).
import fetch, { Headers } from 'node-fetch';
import { refusalMessage, type KubeAccess } from './client.ts';
import type { FollowChunk, PodLogs } from '../../handlers/logs/service.ts';

/** Caps what one tail may pull into memory, whatever the caller asks. */
export const MAX_TAIL_BYTES = 4 * 1024 * 1024;
/** The default cap of a tail (incident details, the crash-log reader ask for less). */
const DEFAULT_TAIL_BYTES = 256 * 1024;
export interface FollowLimits {
  /** Bytes one follow may carry, tail included; it ends with `byte_cap` there. */
  maxBytes: number;
  /** How long one follow may stay open; it ends with `max_duration` then (the client may open another). */
  maxDurationMs: number;
  /** A line longer than this is cut (a log without newlines cannot grow a buffer without bound). */
  maxLineChars: number;
}
export const FOLLOW_LIMITS: FollowLimits = { maxBytes: 16 * 1024 * 1024, maxDurationMs: 3_600_000, maxLineChars: 16 * 1024 };

function logUrl(server: string, namespace: string, pod: string, params: Record<string, string | number | boolean | undefined>): string {
  const url = new URL(`${server}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== false) url.searchParams.set(key, String(value));
  return url.toString();
}

async function refusal(response: { status: number; statusText: string; text(): Promise<string> }): Promise<string> {
  return `API server answered ${response.status}: ${refusalMessage(await response.text(), response.statusText)}`;
}

export function createPodLogs(kc: KubeAccess, timeoutMs = 5000, limits: FollowLimits = FOLLOW_LIMITS): PodLogs {
  const server = kc.getCurrentCluster()?.server;
  const request = async (signal: AbortSignal) => {
    const init = await kc.applyToFetchOptions({});
    return { ...init, method: 'GET', headers: new Headers(init.headers), signal };
  };

  return {
    async tail(namespace, pod, container, { previous, lines, limitBytes = DEFAULT_TAIL_BYTES, sinceSeconds }) {
      if (!server) return { ok: false, reason: 'no API server configured' };
      const url = logUrl(server, namespace, pod, { container, tailLines: lines, limitBytes: Math.min(limitBytes, MAX_TAIL_BYTES), previous, sinceSeconds });
      try {
        const response = await fetch(url, await request(AbortSignal.timeout(timeoutMs)));
        if (!response.ok) return { ok: false, reason: await refusal(response) };
        return { ok: true, text: await response.text() };
      } catch (err) {
        return { ok: false, reason: err instanceof Error ? err.message : String(err) };
      }
    },

    follow(namespace, pod, container, { tailLines, sinceSeconds }, signal) {
      if (!server) return endsAt('no API server configured');
      const url = logUrl(server, namespace, pod, { container, follow: true, tailLines, sinceSeconds, limitBytes: limits.maxBytes });
      return { [Symbol.asyncIterator]: () => followLines(url, request, signal, limits, timeoutMs)[Symbol.asyncIterator]() };
    },
  };
}

async function* followLines(
  url: string,
  request: (signal: AbortSignal) => Promise<Parameters<typeof fetch>[1]>,
  clientSignal: AbortSignal,
  limits: FollowLimits,
  connectTimeoutMs: number,
): AsyncGenerator<FollowChunk> {
  const stop = new AbortController();
  // Set from timers (an object, so the checks after the awaits are not narrowed away).
  const state = { timedOut: false, unanswered: false };
  const onClientGone = () => stop.abort();
  clientSignal.addEventListener('abort', onClientGone, { once: true });
  if (clientSignal.aborted) stop.abort();
  const cap = setTimeout(() => {
    state.timedOut = true;
    stop.abort();
  }, limits.maxDurationMs);
  cap.unref();
  // Only the answer's headers are timed: the body of a follow is open-ended by design.
  const connecting = setTimeout(() => {
    state.unanswered = true;
    stop.abort();
  }, connectTimeoutMs);
  try {
    let response;
    try {
      response = await fetch(url, await request(stop.signal));
    } catch (err) {
      if (!clientSignal.aborted) yield { type: 'end', reason: 'error', message: state.unanswered ? `the API server did not answer within ${connectTimeoutMs} ms` : err instanceof Error ? err.message : String(err) };
      return;
    } finally {
      clearTimeout(connecting);
    }
    if (!response.ok) {
      yield { type: 'end', reason: 'error', message: await refusal(response) };
      return;
    }
    const decoder = new TextDecoder();
    let bytes = 0;
    let pending = '';
    let cutting = false;
    try {
      for await (const chunk of response.body) {
        const data = chunk as Uint8Array;
        bytes += data.length;
        pending += decoder.decode(data, { stream: true });
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) {
          if (!cutting) yield { type: 'line', line: line.length > limits.maxLineChars ? line.slice(0, limits.maxLineChars) : line };
          cutting = false;
        }
        // A line that never ends is sent cut, and the rest of it dropped up to its newline.
        if (pending.length > limits.maxLineChars) {
          if (!cutting) yield { type: 'line', line: pending.slice(0, limits.maxLineChars) };
          cutting = true;
          pending = '';
        }
      }
    } catch (err) {
      if (clientSignal.aborted) return;
      if (!state.timedOut) {
        yield { type: 'end', reason: 'error', message: err instanceof Error ? err.message : String(err) };
        return;
      }
    }
    if (pending !== '' && !cutting) yield { type: 'line', line: pending };
    if (clientSignal.aborted) return;
    if (state.timedOut) yield { type: 'end', reason: 'max_duration', message: `a follow stays open at most ${Math.round(limits.maxDurationMs / 60_000)} minutes; open it again to go on` };
    else if (bytes >= limits.maxBytes) yield { type: 'end', reason: 'byte_cap', message: `a follow carries at most ${limits.maxBytes} bytes; open it again to go on` };
    else yield { type: 'end', reason: 'ended', message: null };
  } finally {
    clearTimeout(cap);
    clientSignal.removeEventListener('abort', onClientGone);
    stop.abort();
  }
}

/** A follow that cannot start: its one event says why. */
function endsAt(message: string): AsyncIterable<FollowChunk> {
  return {
    async *[Symbol.asyncIterator]() {
      await Promise.resolve();
      yield { type: 'end', reason: 'error', message } satisfies FollowChunk;
    },
  };
}

/** For tests and installs without a cluster. */
export const noPodLogs: PodLogs = {
  tail: () => Promise.resolve({ ok: false, reason: 'no cluster' }),
  follow: () => endsAt('no cluster'),
};
