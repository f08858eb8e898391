// WebSocket routes (a declaration's `websocket: true`): the chain ran before this; here the
// Origin is checked, a slot taken under the stream caps and the handler asked what to do,
// all before the upgrade is accepted (a refusal is an HTTP status: @hono/node-server answers
// a non-upgrade response to an upgrade request with that status). While open, the policies
// the chain's stages registered are re-checked as for a stream (./streams.ts); the first
// that fails sends `{"type":"error",...}` and closes the socket with 1008 (policy violation).
import type { Context } from 'hono';
import { upgradeWebSocket, type WebSocketServerLike } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import type { AppError } from '../../handlers/result.ts';
import type { SocketAnswer, SocketPeer } from '../../handlers/route.ts';
import type { Logger } from '../log.ts';
import { requestOrigin, type AppEnv } from './env.ts';
import { errorBody } from './status.ts';
import type { StreamOptions } from './streams.ts';

/** Largest message the agent's WebSocket server takes (ws' own default is 100 MiB). */
export const WEBSOCKET_MAX_PAYLOAD_BYTES = 1024 * 1024;

/** The server `serve({ websocket: { server } })` hands accepted upgrades to (the agent's, and tests'). */
export function webSocketServer(): WebSocketServerLike {
  return new WebSocketServer({ noServer: true, maxPayload: WEBSOCKET_MAX_PAYLOAD_BYTES });
}

/** How long an accepted upgrade may take to become an open socket. */
const HANDSHAKE_MS = 10_000;

/** Policy violation (RFC 6455 §7.4.1): the socket's credential or address no longer holds. */
const POLICY_CLOSE = 1008;

/**
 * A browser sends its cookies with a WebSocket upgrade from any page, and no CORS preflight
 * guards it: an Origin other than the request's own or a configured CORS origin is refused
 * (403 cross_site_request). No Origin (not a browser) passes: it carries no ambient cookie.
 */
export function socketOriginRefusal(c: Context<AppEnv>, corsOrigins: readonly string[]): AppError | null {
  const origin = c.req.header('origin');
  if (origin === undefined || origin === requestOrigin(c) || corsOrigins.includes(origin)) return null;
  return { code: 'cross_site_request', message: `a WebSocket from ${origin} is not accepted here` };
}

/** The `ws` socket's unsent bytes (hono's WSContext types its raw socket loosely). */
function bufferedOf(raw: unknown): number {
  return typeof raw === 'object' && raw !== null && 'bufferedAmount' in raw && typeof raw.bufferedAmount === 'number' ? raw.bufferedAmount : 0;
}

interface SocketDrive {
  options: StreamOptions;
  log: Logger;
  release: () => void;
}

/** Accepts the upgrade and runs the handler's answer on it until either side, or policy, closes it. */
export async function acceptSocket(c: Context<AppEnv>, answer: SocketAnswer, drive: SocketDrive): Promise<Response> {
  const keepers = c.get('keepers') ?? [];
  const abort = new AbortController();
  const state: { closed: boolean; recheck: ReturnType<typeof setInterval> | null } = { closed: false, recheck: null };
  const finish = () => {
    if (state.closed) return;
    state.closed = true;
    if (state.recheck !== null) clearInterval(state.recheck);
    drive.release();
    abort.abort('the socket closed');
  };
  let peer: SocketPeer | null = null;
  // A handshake that never completes (the client went away first) calls none of the events
  // below: its slot is freed after this long.
  setTimeout(() => {
    if (peer === null) finish();
  }, HANDSHAKE_MS).unref();
  return upgradeWebSocket(c, {
    onOpen(_event, ws) {
      if (state.closed) {
        ws.close(POLICY_CLOSE, 'handshake_timeout');
        return;
      }
      const open = peer ?? {
        send: (text: string) => {
          if (!state.closed) ws.send(text);
        },
        close: () => ws.close(),
        buffered: () => bufferedOf(ws.raw),
        signal: abort.signal,
      };
      peer = open;
      let checking = false;
      state.recheck = setInterval(() => {
        if (checking || state.closed) return;
        checking = true;
        void (async () => {
          try {
            for (const keep of keepers) {
              const refused = await keep();
              if (refused !== null) {
                ws.send(JSON.stringify({ type: 'error', ...errorBody(refused) }));
                ws.close(POLICY_CLOSE, refused.code);
                finish();
                return;
              }
            }
          } catch (err) {
            drive.log.error('socket re-check failed', { error: err instanceof Error ? err.message : String(err) });
            ws.close(POLICY_CLOSE, 'internal');
            finish();
          } finally {
            checking = false;
          }
        })();
      }, drive.options.recheckMs);
      answer.open(open);
    },
    // Typed by what is read of it: the hono helper's MessageEvent is the DOM's, not in this project's libs.
    onMessage(event: { data: unknown }) {
      if (peer === null || state.closed || answer.message === undefined) return;
      if (typeof event.data === 'string') answer.message(event.data, peer);
    },
    onClose: finish,
    onError: finish,
  });
}
