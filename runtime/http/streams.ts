// Streamed routes (a declaration's `stream`): the runtime drives the handler's StreamAnswer as
// Server-Sent Events (or its one JSON answer), after the whole policy chain ran. While the
// stream is open the runtime re-checks the policies the chain's stages registered (./env.ts
// Keeper: IP access, the credential, its scope, the role, the kill switch) and closes the
// stream when one no longer holds. Open streams are capped per user and in total; they are
// outside load shedding's in-flight cap. docs/api.md "Streamed routes".
import type { Context } from 'hono';
import type { AppError } from '../../handlers/result.ts';
import type { Route, StreamAnswer, StreamDeclaration } from '../../handlers/route.ts';
import type { Logger } from '../log.ts';
import type { AppEnv, Keeper } from './env.ts';
import { errorBody, errorResponse } from './status.ts';

export interface StreamOptions {
  /** Open streams one user (or, on a public route, one client address) may hold. */
  maxPerUser: number;
  /** Open streams across the agent. */
  maxTotal: number;
  /** How often an open stream's policies are re-checked (revocation, deactivation, demotion, expiry, bans close it within this, plus CREDENTIAL_CACHE_MS for changes made by another process). */
  recheckMs: number;
  /** How often an idle stream sends the `: ping` comment, so proxies keep it open. */
  heartbeatMs: number;
  /** Retry-After of the 429 past a cap. */
  retryAfterSecs: number;
}

/** The limits in force (docs/api.md); tests shorten the intervals. */
export const STREAM_LIMITS: StreamOptions = { maxPerUser: 5, maxTotal: 200, recheckMs: 10_000, heartbeatMs: 15_000, retryAfterSecs: 5 };

/**
 * Whether the client asks for the events (`Accept: text/event-stream`). Such a request holds a
 * stream slot while open and is outside load shedding; one asking for the JSON answer is an
 * ordinary request (in the in-flight cap, no slot), unless the route has no JSON answer.
 */
export function acceptsEvents(c: Context<AppEnv>): boolean {
  return (c.req.header('accept') ?? '').includes('text/event-stream');
}

/** Registers one policy a stage applied, to be re-checked while the route's stream or WebSocket is open (nothing for a JSON route). */
export function keepWhileOpen(c: Context<AppEnv>, route: Route, keeper: Keeper): void {
  if (route.stream === null && route.socket === null) return;
  const keepers = c.get('keepers');
  if (keepers === undefined) c.set('keepers', [keeper]);
  else keepers.push(keeper);
}

/** Slots for open streams: per key (a user) and in total. */
export class StreamSlots {
  private readonly open = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: Pick<StreamOptions, 'maxPerUser' | 'maxTotal' | 'retryAfterSecs'>) {}

  /** A release function (call it once, when the stream ends), or the 429 when a cap is reached. */
  acquire(key: string): { ok: true; release: () => void } | { ok: false; error: AppError } {
    const mine = this.open.get(key) ?? 0;
    if (mine >= this.limits.maxPerUser) {
      return { ok: false, error: { code: 'rate_limited', message: `at most ${this.limits.maxPerUser} streams may be open at once per user; close one first`, retryAfterSecs: this.limits.retryAfterSecs } };
    }
    if (this.total >= this.limits.maxTotal) {
      return { ok: false, error: { code: 'rate_limited', message: 'the agent has as many streams open as it serves; retry shortly', retryAfterSecs: this.limits.retryAfterSecs } };
    }
    this.open.set(key, mine + 1);
    this.total++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.open.get(key) ?? 1) - 1;
        if (left <= 0) this.open.delete(key);
        else this.open.set(key, left);
      },
    };
  }

  /** Streams open now (for tests and metrics). */
  count(key?: string): number {
    return key === undefined ? this.total : (this.open.get(key) ?? 0);
  }
}

/** One SSE message; its `event:` name is the event's `type`. */
function sse(event: unknown): string {
  const type = typeof event === 'object' && event !== null && 'type' in event && typeof event.type === 'string' ? event.type : 'message';
  return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The event that ends a stream closed by policy or failure: the spec's error shape, typed `error`. */
const errorEvent = (error: AppError) => sse({ type: 'error', ...errorBody(error) });

const ENDED = Symbol('ended');

interface Drive {
  options: StreamOptions;
  /** Check each event against the route's event schema (tests: a drift ends the stream with an internal error). */
  validate: boolean;
  log: Logger;
  /** Holds a slot (null: none was needed, the client asked for the JSON answer), or the 429 past a cap. */
  slot: () => { ok: true; release: () => void } | { ok: false; error: AppError };
}

/**
 * Answers a streamed route: SSE when the client accepts `text/event-stream` (or the route has
 * no JSON answer), else its one JSON answer. Either way the handler's signal fires when the
 * client goes away or a re-check fails, and the slot is released when the answer ends.
 */
export async function answerStream(c: Context<AppEnv>, route: Route & { stream: StreamDeclaration }, answer: StreamAnswer<unknown, unknown>, drive: Drive): Promise<Response> {
  const wantsEvents = answer.json === undefined || acceptsEvents(c);
  const slot = drive.slot();
  if (!slot.ok) return errorResponse(c, slot.error);
  const release = slot.release;
  const abort = new AbortController();
  // Set by close() from timers and callbacks (an object, so the checks below are not narrowed away).
  const state: { closedBy: AppError | null } = { closedBy: null };
  let ended = false;
  let endedNow: (value: typeof ENDED) => void = () => {};
  const whenEnded = new Promise<typeof ENDED>((resolve) => {
    endedNow = resolve;
  });
  /** Why the answer ends early (null: the client went away); the SSE writer adds its last event. */
  let onClose: (error: AppError | null) => void = () => {};
  const keepers = c.get('keepers') ?? [];
  let checking = false;
  const recheck = setInterval(() => {
    if (checking || ended) return;
    checking = true;
    void (async () => {
      try {
        for (const keep of keepers) {
          const refused = await keep();
          if (refused !== null) return close(refused);
        }
      } catch (err) {
        drive.log.error('stream re-check failed', { path: route.path, error: err instanceof Error ? err.message : String(err) });
        close({ code: 'internal', message: 'the stream could not be re-authorised' });
      } finally {
        checking = false;
      }
    })();
  }, drive.options.recheckMs);
  const clientGone = () => close(null);
  const requestSignal = c.req.raw.signal;
  requestSignal.addEventListener('abort', clientGone, { once: true });

  function finish(): void {
    if (ended) return;
    ended = true;
    clearInterval(recheck);
    requestSignal.removeEventListener('abort', clientGone);
    release();
    endedNow(ENDED);
  }
  function close(error: AppError | null): void {
    if (ended) return;
    state.closedBy = error;
    onClose(error);
    abort.abort(error === null ? 'the client went away' : error.message);
    finish();
  }

  if (!wantsEvents && answer.json !== undefined) {
    let value: unknown;
    try {
      const raced = await Promise.race([answer.json(abort.signal), whenEnded]);
      if (raced === ENDED) return errorResponse(c, state.closedBy ?? { code: 'internal', message: 'the answer was closed' });
      value = raced;
    } finally {
      finish();
    }
    if (drive.validate) {
      const mismatch = route.checkOutput(value);
      if (mismatch !== null) {
        drive.log.error('response does not match its output schema', { path: route.path, mismatch });
        return errorResponse(c, { code: 'internal', message: 'response failed its own schema' });
      }
    }
    return c.body(JSON.stringify(value), 200, { 'content-type': 'application/json' });
  }

  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const sending = { open: true };
      const write = (text: string) => {
        if (sending.open) controller.enqueue(encoder.encode(text));
      };
      const end = () => {
        if (!sending.open) return;
        sending.open = false;
        clearInterval(heartbeat);
        controller.close();
      };
      const heartbeat = setInterval(() => write(': ping\n\n'), drive.options.heartbeatMs);
      onClose = (error) => {
        if (error !== null) write(errorEvent(error));
        if (error !== null) end();
        else {
          // The client cancelled: the stream is already closed on its side.
          sending.open = false;
          clearInterval(heartbeat);
        }
      };
      const iterator = answer.events(abort.signal)[Symbol.asyncIterator]();
      void (async () => {
        try {
          while (sending.open) {
            const next = await Promise.race([iterator.next(), whenEnded]);
            if (next === ENDED || next.done === true) break;
            if (drive.validate) {
              const mismatch = route.stream.checkEvent(next.value);
              if (mismatch !== null) {
                drive.log.error('stream event does not match its schema', { path: route.path, mismatch });
                write(errorEvent({ code: 'internal', message: 'an event failed its own schema' }));
                break;
              }
            }
            write(sse(next.value));
          }
        } catch (err) {
          drive.log.error('stream failed', { path: route.path, error: err instanceof Error ? err.message : String(err) });
          write(errorEvent({ code: 'internal', message: 'internal error' }));
        } finally {
          if (ended) void iterator.return?.(undefined).catch(() => undefined);
          abort.abort('the stream ended');
          end();
          finish();
        }
      })();
    },
    // The client went away (the dock's stop button, a closed tab): the handler's signal fires.
    cancel() {
      close(null);
    },
  });
  return c.body(body, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
}
