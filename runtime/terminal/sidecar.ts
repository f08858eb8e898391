// `capstan terminal`: the terminal sidecar. It runs shells in PTYs for the agent, and only for
// the agent: it listens on loopback (the pod's network), takes a key the agent sends, and
// holds nothing a shell could use against anyone else: no agent token, no database, no
// encryption key (its container gets none of them). Per session the agent sends the
// kubeconfig the shell's kubectl uses; the sidecar writes it under the session's own
// directory and deletes it when the session ends.
//
// Protocol (one WebSocket per attached session, JSON text frames): the agent opens or
// re-attaches a session, then relays input and resizes; the sidecar sends output, each
// command line read from the shell's marks (already redacted), and the exit. docs/terminal.md.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';
import * as v from 'valibot';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { redactCommand } from '../../domain/terminal/command-redaction.ts';
import { terminalEnvironment } from '../../domain/terminal/environment.ts';
import { createMarkReader } from '../../domain/terminal/shell-marks.ts';
import type { Logger } from '../log.ts';
import { sessionRcFile } from './rc-file.ts';

export const TERMINAL_KEY_HEADER = 'x-capstan-terminal-key';

export interface SidecarOptions {
  listen: { hostname: string; port: number };
  /**
   * The key the agent sends, read again for every connection: the agent writes a fresh one
   * each time it starts (the chart shares it through a volume), and the sidecar outlives it.
   * Null: no key yet, every connection refused.
   */
  key: () => string | null;
  /** Where users' homes and sessions' directories live (the terminal PVC). */
  home: string;
  /** 0: never; otherwise a session with no PTY input or output this long is ended. */
  idleTimeoutSecs: number;
  /** How long a session whose agent connection dropped waits to be re-attached. */
  reattachGraceSecs: number;
  /** Sessions at once in this pod. */
  maxSessions: number;
  /** The environment the shell's allowlist is read from (process.env in the container). */
  parentEnv: Readonly<Record<string, string | undefined>>;
  shell?: string;
  log: Logger;
}

/** Output kept for a detached session until it is re-attached (older output is dropped). */
const DETACHED_BUFFER_CHARS = 256 * 1024;
/** Output queued towards the agent past which the PTY is paused. */
const HIGH_WATER = 512 * 1024;
const LOW_WATER = 64 * 1024;

const OpenMessage = v.object({
  type: v.literal('open'),
  session: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16,64}$/)),
  user: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  userId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  namespace: v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/), v.maxLength(63)),
  cols: v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(500)),
  rows: v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(300)),
  kubeconfig: v.pipe(v.string(), v.maxLength(64 * 1024)),
});
const AttachMessage = v.object({ type: v.literal('attach'), session: OpenMessage.entries.session, cols: OpenMessage.entries.cols, rows: OpenMessage.entries.rows });
const ControlMessage = v.variant('type', [
  v.object({ type: v.literal('input'), data: v.pipe(v.string(), v.maxLength(64 * 1024)) }),
  v.object({ type: v.literal('resize'), cols: OpenMessage.entries.cols, rows: OpenMessage.entries.rows }),
  v.object({ type: v.literal('pause') }),
  v.object({ type: v.literal('resume') }),
  v.object({ type: v.literal('close') }),
]);

export type SidecarEvent =
  | { type: 'opened'; session: string; reattached: boolean }
  | { type: 'output'; data: string }
  | { type: 'command'; command: string; at: string }
  | { type: 'exit'; code: number | null; reason: 'exited' | 'idle' | 'detached_too_long' | 'closed' | 'sidecar_stopping' }
  | { type: 'error'; message: string };

interface Session {
  id: string;
  pty: IPty;
  dir: string;
  attached: WebSocket | null;
  detachedOutput: string;
  lastIo: number;
  graceTimer: NodeJS.Timeout | null;
  queued: number;
  pausedByFlow: boolean;
  pausedByAgent: boolean;
  historyFile: string;
}

export interface RunningSidecar {
  url: string;
  sessions(): number;
  close(): Promise<void>;
}

const sameKey = (given: string, key: string): boolean => {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(key).digest();
  return timingSafeEqual(a, b);
};

/** A frame's text, whichever way ws handed it over. */
export const textOf = (raw: RawData): string => (Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(new Uint8Array(raw))).toString('utf8');

/** A user's home under the terminal home: one directory per Capstan account, by id. */
export const userHome = (home: string, userId: number): string => join(home, 'users', String(userId));

export async function startSidecar(options: SidecarOptions): Promise<RunningSidecar> {
  const sessions = new Map<string, Session>();
  const { log } = options;
  mkdirSync(join(options.home, 'sessions'), { recursive: true, mode: 0o700 });
  mkdirSync(join(options.home, 'users'), { recursive: true, mode: 0o700 });

  const send = (ws: WebSocket | null, event: SidecarEvent, session?: Session): void => {
    if (ws === null || ws.readyState !== ws.OPEN) return;
    const text = JSON.stringify(event);
    if (session !== undefined) {
      session.queued += text.length;
      if (session.queued > HIGH_WATER && !session.pausedByFlow) {
        session.pausedByFlow = true;
        session.pty.pause();
      }
    }
    ws.send(text, () => {
      if (session === undefined) return;
      session.queued -= text.length;
      if (session.pausedByFlow && session.queued < LOW_WATER) {
        session.pausedByFlow = false;
        if (!session.pausedByAgent) session.pty.resume();
      }
    });
  };

  const end = (session: Session, reason: Extract<SidecarEvent, { type: 'exit' }>['reason'], code: number | null): void => {
    if (!sessions.delete(session.id)) return;
    if (session.graceTimer !== null) clearTimeout(session.graceTimer);
    try {
      session.pty.kill('SIGHUP');
    } catch {
      // Already gone.
    }
    rmSync(session.dir, { recursive: true, force: true });
    send(session.attached, { type: 'exit', code, reason });
    session.attached?.close();
    log.info('terminal session ended', { session: session.id, reason });
  };

  const attach = (session: Session, ws: WebSocket, reattached: boolean): void => {
    if (session.graceTimer !== null) clearTimeout(session.graceTimer);
    session.graceTimer = null;
    session.attached?.close();
    session.attached = ws;
    session.queued = 0;
    send(ws, { type: 'opened', session: session.id, reattached });
    if (session.detachedOutput !== '') send(ws, { type: 'output', data: session.detachedOutput }, session);
    session.detachedOutput = '';
    ws.on('message', (raw) => {
      let parsed: v.SafeParseResult<typeof ControlMessage>;
      try {
        parsed = v.safeParse(ControlMessage, JSON.parse(textOf(raw)));
      } catch {
        return;
      }
      if (!parsed.success || sessions.get(session.id) !== session) return;
      const message = parsed.output;
      if (message.type === 'input') {
        session.lastIo = Date.now();
        session.pty.write(message.data);
      } else if (message.type === 'resize') session.pty.resize(message.cols, message.rows);
      else if (message.type === 'pause') {
        session.pausedByAgent = true;
        session.pty.pause();
      } else if (message.type === 'resume') {
        session.pausedByAgent = false;
        if (!session.pausedByFlow) session.pty.resume();
      } else end(session, 'closed', null);
    });
    ws.on('close', () => {
      if (session.attached !== ws || sessions.get(session.id) !== session) return;
      // The browser (or the agent) went away: the shell waits to be re-attached, output kept.
      session.attached = null;
      session.pausedByAgent = false;
      session.pausedByFlow = false;
      session.pty.resume();
      session.graceTimer = setTimeout(() => end(session, 'detached_too_long', null), options.reattachGraceSecs * 1000);
    });
  };

  const open = (message: v.InferOutput<typeof OpenMessage>, ws: WebSocket): void => {
    if (sessions.has(message.session)) {
      send(ws, { type: 'error', message: 'that session exists already' });
      ws.close();
      return;
    }
    if (sessions.size >= options.maxSessions) {
      send(ws, { type: 'error', message: `at most ${options.maxSessions} terminal sessions may run in this pod at once` });
      ws.close();
      return;
    }
    const home = userHome(options.home, message.userId);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const dir = join(options.home, 'sessions', message.session);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, message.kubeconfig, { mode: 0o600 });
    const historyFile = join(home, '.capstan_history');
    const nonce = randomBytes(16).toString('hex');
    const rcFile = join(dir, 'bashrc');
    writeFileSync(rcFile, sessionRcFile({ nonce, historyFile, userRc: join(home, '.bashrc') }), { mode: 0o600 });
    chmodSync(dir, 0o700);
    const env = terminalEnvironment(options.parentEnv, { home, user: message.user, kubeconfig, namespace: message.namespace });
    const pty = spawn(options.shell ?? '/bin/bash', ['--rcfile', rcFile, '-i'], { name: 'xterm-256color', cols: message.cols, rows: message.rows, cwd: home, env });
    const session: Session = { id: message.session, pty, dir, attached: null, detachedOutput: '', lastIo: Date.now(), graceTimer: null, queued: 0, pausedByFlow: false, pausedByAgent: false, historyFile };
    sessions.set(session.id, session);
    const marks = createMarkReader(nonce);
    pty.onData((data) => {
      session.lastIo = Date.now();
      for (const mark of marks(data)) {
        if (mark.kind !== 'command') continue;
        const command = redactCommand(mark.command);
        // The user's history holds the redacted line only; bash never writes its own (rc-file.ts).
        try {
          appendFileSync(historyFile, `${command.replaceAll('\n', ' ')}\n`, { mode: 0o600 });
        } catch (err) {
          log.warn('could not append to the terminal history', { error: err instanceof Error ? err.message : String(err) });
        }
        send(session.attached, { type: 'command', command, at: new Date().toISOString() });
      }
      if (session.attached !== null) send(session.attached, { type: 'output', data }, session);
      else session.detachedOutput = (session.detachedOutput + data).slice(-DETACHED_BUFFER_CHARS);
    });
    pty.onExit(({ exitCode }) => end(session, 'exited', exitCode));
    log.info('terminal session started', { session: session.id, user: message.user, namespace: message.namespace });
    attach(session, ws, false);
  };

  const idleSweep = setInterval(() => {
    if (options.idleTimeoutSecs <= 0) return;
    const cutoff = Date.now() - options.idleTimeoutSecs * 1000;
    for (const session of [...sessions.values()]) if (session.lastIo < cutoff) end(session, 'idle', null);
  }, 1000);
  idleSweep.unref();

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  const server: Server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only\n');
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const given = req.headers[TERMINAL_KEY_HEADER];
    const key = options.key();
    if (typeof given !== 'string' || key === null || !sameKey(given, key)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.once('message', (raw) => {
        let first: unknown;
        try {
          first = JSON.parse(textOf(raw));
        } catch {
          first = null;
        }
        const opening = v.safeParse(OpenMessage, first);
        if (opening.success) return open(opening.output, ws);
        const attaching = v.safeParse(AttachMessage, first);
        const session = attaching.success ? sessions.get(attaching.output.session) : undefined;
        if (!attaching.success || session === undefined) {
          send(ws, { type: 'error', message: attaching.success ? 'no such session (it ended)' : 'the first message must open or attach a session' });
          ws.close();
          return;
        }
        session.pty.resize(attaching.output.cols, attaching.output.rows);
        attach(session, ws, true);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.listen.port, options.listen.hostname, resolve));
  const port = (server.address() as AddressInfo).port;
  log.info('terminal sidecar listening', { url: `ws://${options.listen.hostname}:${port}`, home: options.home, idleTimeoutSecs: options.idleTimeoutSecs });
  return {
    url: `ws://${options.listen.hostname}:${port}`,
    sessions: () => sessions.size,
    async close() {
      clearInterval(idleSweep);
      for (const session of [...sessions.values()]) end(session, 'sidecar_stopping', null);
      sockets.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
