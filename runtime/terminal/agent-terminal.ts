// The agent's side of the browser terminal: a table of sessions (at most 5 per user and 20 in
// all, detached ones included, over both sidecars), each one WebSocket to its sidecar that the
// agent keeps while the browser comes and goes. A detached session's output is kept (up to a
// cap) for the grace period, then the session is ended. Each session gets its own kubectl
// credential, minted for it (./session-credentials.ts).
//
// Sessions are separated by privilege: with an admin sidecar configured (`terminal.enabled`
// and `rbac.allowWrites`), an admin's session runs there, under another Unix user and behind
// another key, with a token for the writer account; every other session (and every session
// without it) runs in the terminal sidecar with the read-only account. A session is re-attached
// only by its owner at the privilege it was opened with, so a demoted admin cannot take back a
// shell holding a write token. What happens is recorded: `terminal_session_start` in the
// general audit log (with the identity the session got), the session in the terminal session
// audit, each command (redacted by the sidecar) in the command record. docs/terminal.md.
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { fail, ok, type Result } from '../../handlers/result.ts';
import type { TerminalEvents, TerminalHandle, TerminalOpenRequest, TerminalService } from '../../handlers/terminal/service.ts';
import { textOf, TERMINAL_KEY_HEADER, type SidecarEvent } from './sidecar.ts';
import type { SessionCredentials } from './session-credentials.ts';
import type { SessionRecords } from './session-records.ts';

/** One sidecar: where it listens, the key it takes, and the credentials its sessions get. */
export interface SidecarTarget {
  /** The sidecar's WebSocket address (loopback in the pod). */
  sidecarUrl: string;
  key: string;
  credentials: SessionCredentials;
}

export interface TerminalConfig extends SidecarTarget {
  /** The admin sidecar (write verbs); null or absent: admins' sessions run in the one above, read-only. */
  admin?: SidecarTarget | null;
  maxPerUser: number;
  maxTotal: number;
  reattachGraceSecs: number;
}

/** Output kept for a detached session (older output is dropped). */
const DETACHED_OUTPUT_CHARS = 256 * 1024;
const SIDECAR_OPEN_TIMEOUT_MS = 10_000;

interface Live {
  id: string;
  userId: number;
  /** On the admin sidecar, with the writer account's token. */
  privileged: boolean;
  socket: WebSocket;
  events: TerminalEvents | null;
  detachedOutput: string;
  grace: NodeJS.Timeout | null;
  /** Why the agent ended it, when it did (the sidecar only hears `close`). */
  endReason: string | null;
}

export interface RunningTerminal extends TerminalService {
  stop(): void;
}

export function createTerminal(config: TerminalConfig, records: SessionRecords): RunningTerminal {
  const live = new Map<string, Live>();
  const admin = config.admin ?? null;
  /** Whether this request's session belongs on the admin sidecar: an admin's, when there is one. */
  const privileged = (request: TerminalOpenRequest): boolean => admin !== null && request.user.role === 'admin';

  // Sessions an earlier run of the agent left open ended with it (their sidecar connection did).
  records.closeLeftOpen('sidecar');

  const send = (entry: Live, message: Record<string, unknown>): void => {
    if (entry.socket.readyState === WebSocket.OPEN) entry.socket.send(JSON.stringify(message));
  };

  const handle = (entry: Live, reattached: boolean): TerminalHandle => ({
    id: entry.id,
    reattached,
    write: (data) => send(entry, { type: 'input', data }),
    resize: (cols, rows) => send(entry, { type: 'resize', cols, rows }),
    pause: () => send(entry, { type: 'pause' }),
    resume: () => send(entry, { type: 'resume' }),
    end: () => {
      entry.endReason = 'closed';
      send(entry, { type: 'close' });
    },
    detach: () => {
      if (live.get(entry.id) !== entry) return;
      entry.events = null;
      // Whatever the browser had paused flows again into the detached buffer.
      send(entry, { type: 'resume' });
      entry.grace = setTimeout(() => {
        entry.endReason = 'detached_too_long';
        send(entry, { type: 'close' });
      }, config.reattachGraceSecs * 1000);
    },
  });

  const ended = (entry: Live, code: number | null, reason: string): void => {
    if (live.get(entry.id) !== entry) return;
    live.delete(entry.id);
    if (entry.grace !== null) clearTimeout(entry.grace);
    const why = entry.endReason ?? reason;
    entry.events?.exit(code, why);
    entry.socket.close();
    records.ended(entry.id, why);
  };

  const reattach = (request: TerminalOpenRequest, events: TerminalEvents): Result<TerminalHandle> => {
    const entry = live.get(request.reattach ?? '');
    // Someone else's session id, one that ended, or one opened at another privilege (an admin's
    // shell after a demotion) is the same answer: nothing to attach.
    if (entry === undefined || entry.userId !== request.user.id || entry.privileged !== privileged(request)) return fail({ code: 'not_found', message: 'no such terminal session of yours (it may have ended)' });
    if (entry.events !== null) return fail({ code: 'conflict', field: 'session', message: 'that session is attached in another tab' });
    if (entry.grace !== null) clearTimeout(entry.grace);
    entry.grace = null;
    entry.events = events;
    send(entry, { type: 'resize', cols: request.cols, rows: request.rows });
    const kept = entry.detachedOutput;
    entry.detachedOutput = '';
    if (kept !== '') queueMicrotask(() => events.output(kept));
    return ok(handle(entry, true));
  };

  /**
   * Opens a session on the sidecar: resolves once it says `opened`, or with why not. Frames
   * after `opened` (the first prompt) are queued until `listen` is called, so none is lost
   * while the session is being recorded.
   */
  const connect = (target: SidecarTarget, id: string, request: TerminalOpenRequest, kubeconfig: string): Promise<Result<{ socket: WebSocket; listen: (handler: (event: SidecarEvent) => void) => void }>> =>
    new Promise((resolve) => {
      const socket = new WebSocket(target.sidecarUrl, { headers: { [TERMINAL_KEY_HEADER]: target.key }, handshakeTimeout: SIDECAR_OPEN_TIMEOUT_MS });
      const timer = setTimeout(() => {
        socket.terminate();
        resolve(fail({ code: 'not_ready', message: 'the terminal sidecar did not answer in time' }));
      }, SIDECAR_OPEN_TIMEOUT_MS);
      let opened = false;
      const queued: SidecarEvent[] = [];
      let forward: ((event: SidecarEvent) => void) | null = null;
      const listen = (handler: (event: SidecarEvent) => void) => {
        forward = handler;
        for (const event of queued.splice(0)) handler(event);
      };
      socket.once('open', () => socket.send(JSON.stringify({ type: 'open', session: id, user: request.user.username, userId: request.user.id, namespace: request.namespace, cols: request.cols, rows: request.rows, kubeconfig })));
      socket.on('message', (raw) => {
        let event: SidecarEvent;
        try {
          event = JSON.parse(textOf(raw)) as SidecarEvent;
        } catch {
          return;
        }
        if (opened) {
          if (forward === null) queued.push(event);
          else forward(event);
          return;
        }
        clearTimeout(timer);
        if (event.type === 'opened') {
          opened = true;
          resolve(ok({ socket, listen }));
        } else {
          socket.close();
          resolve(fail({ code: 'overloaded', message: event.type === 'error' ? event.message : 'the terminal sidecar refused the session', retryAfterSecs: 30 }));
        }
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        resolve(fail({ code: 'not_ready', message: `the terminal sidecar cannot be reached: ${err.message}` }));
      });
    });

  return {
    async open(request, events) {
      if (request.reattach !== null) return reattach(request, events);
      const mine = [...live.values()].filter((s) => s.userId === request.user.id).length;
      if (mine >= config.maxPerUser) return fail({ code: 'rate_limited', message: `at most ${config.maxPerUser} terminal sessions per user may be open at once (detached ones count until their grace period ends); close one first`, retryAfterSecs: config.reattachGraceSecs });
      if (live.size >= config.maxTotal) return fail({ code: 'rate_limited', message: `at most ${config.maxTotal} terminal sessions may be open at once; try again later`, retryAfterSecs: 60 });
      const onAdmin = privileged(request);
      const target = onAdmin && admin !== null ? admin : config;
      const credential = await target.credentials.kubeconfigFor(request);
      if (!credential.ok) return fail({ code: 'not_ready', message: `no kubectl credential for the session: ${credential.reason}` });
      const id = randomBytes(18).toString('base64url');
      const connected = await connect(target, id, request, credential.kubeconfig);
      if (!connected.ok) return connected;
      const { socket, listen } = connected.value;
      const entry: Live = { id, userId: request.user.id, privileged: onAdmin, socket, events, detachedOutput: '', grace: null, endReason: null };
      live.set(id, entry);
      socket.on('close', () => ended(entry, null, 'sidecar_gone'));
      const recorded = { id, user: request.user, namespace: request.namespace, clientIp: request.clientIp, target: null, credential: credential.describe };
      // Recorded before any of its events is handled (they wait in listen's queue).
      await records.started(recorded);
      listen((event) => {
        if (event.type === 'output') {
          if (entry.events !== null) entry.events.output(event.data);
          else entry.detachedOutput = (entry.detachedOutput + event.data).slice(-DETACHED_OUTPUT_CHARS);
        } else if (event.type === 'command') {
          records.command(recorded, event.command);
        } else if (event.type === 'exit') ended(entry, event.code, event.reason);
      });
      return ok(handle(entry, false));
    },

    recent: (limit) => records.recent(limit),

    stop() {
      for (const entry of [...live.values()]) {
        entry.endReason = 'agent_stopping';
        send(entry, { type: 'close' });
        ended(entry, null, 'agent_stopping');
      }
    },
  };
}

/** The terminal when the install has none (terminal sidecar not configured): its audit is still read (pod shells). */
export function noTerminal(records: SessionRecords): TerminalService {
  return {
    open: () => Promise.resolve(fail({ code: 'not_ready', message: 'this install runs no terminal sidecar (CAPSTAN_TERMINAL_URL is not set)' })),
    recent: (limit) => records.recent(limit),
  };
}
