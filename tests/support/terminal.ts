// The terminal sidecar as the real process (`capstan terminal`) with the environment the chart
// gives its container, and a browser-like client of `/terminal/ws` whose screen is rendered
// by xterm's headless terminal, so tests read what a person would see.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, linkSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The package is CommonJS without named exports Node can see: its default is the module object.
import xtermHeadless from '@xterm/headless';
import WebSocket from 'ws';

const { Terminal } = xtermHeadless;
type Terminal = InstanceType<typeof Terminal>;

export interface StartedSidecar {
  url: string;
  key: string;
  home: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `capstan terminal` on a free loopback port; `extraEnv` stands for whatever else the
 * pod's environment holds. With `uid` (the suite runs as root) it runs as that Unix user and
 * group, as the chart's container does, and its directory (key and home) is that user's alone
 * (0700): what another user's shell finds of it is what the kernel lets it read.
 */
export async function startSidecarProcess(options: { idleTimeoutSecs?: number; graceSecs?: number; extraEnv?: Record<string, string>; path: string; uid?: number }): Promise<StartedSidecar> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-terminal-'));
  const key = randomBytes(32).toString('hex');
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, key, { mode: 0o600 });
  if (options.uid !== undefined) {
    chmodSync(dir, 0o700);
    chownSync(dir, options.uid, options.uid);
    chownSync(keyFile, options.uid, options.uid);
  }
  const home = join(dir, 'home');
  const child = spawn(process.execPath, ['bin/capstan.js', 'terminal'], {
    env: {
      PATH: options.path,
      LANG: 'C.UTF-8',
      CAPSTAN_TERMINAL_KEY_FILE: keyFile,
      CAPSTAN_TERMINAL_HOME: home,
      CAPSTAN_TERMINAL_LISTEN: '127.0.0.1:0',
      CAPSTAN_TERMINAL_IDLE_TIMEOUT_SECS: String(options.idleTimeoutSecs ?? 0),
      CAPSTAN_TERMINAL_REATTACH_GRACE_SECS: String(options.graceSecs ?? 60),
      ...options.extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Node drops root's supplementary groups with these: the user's own group only.
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`capstan terminal did not start: ${log}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const found = /"url":"(ws:\/\/127\.0\.0\.1:[0-9]+)"/.exec(log);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`capstan terminal exited ${String(code)}: ${log}`)));
  });
  return {
    url,
    key,
    home,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A directory any user may run these tools from (the suite's bin directory is under root's
 * home, which other users cannot enter): hard links where the filesystem allows, else copies.
 */
export function toolsForAnyUser(binDir: string, names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-tools-'));
  chmodSync(dir, 0o755);
  for (const name of names) {
    const source = realpathSync(join(binDir, name));
    try {
      linkSync(source, join(dir, name));
    } catch {
      copyFileSync(source, join(dir, name));
      chmodSync(join(dir, name), 0o755);
    }
  }
  return dir;
}

export interface TerminalClient {
  ws: WebSocket;
  session: string;
  screen: Terminal;
  exited: Promise<{ code: number | null; reason: string }>;
  /** Everything the screen shows now, lines joined. */
  text(): string;
  type(data: string): void;
  /** Waits until the screen matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Connects as a browser would; rejects with the HTTP status when the upgrade is refused. */
export function openTerminal(url: string, headers: Record<string, string>, cols = 120, rows = 40): Promise<TerminalClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const screen = new Terminal({ cols, rows, allowProposedApi: true });
    let exit: (value: { code: number | null; reason: string }) => void = () => undefined;
    const exited = new Promise<{ code: number | null; reason: string }>((r) => (exit = r));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${String(res.statusCode)}`), { status: res.statusCode })));
    ws.once('error', reject);
    ws.on('message', (raw: Buffer) => {
      const message = JSON.parse(raw.toString()) as { type: string; id?: string; data?: string; code?: number | null; reason?: string };
      if (message.type === 'session' && message.id) {
        const client: TerminalClient = {
          ws,
          session: message.id,
          screen,
          exited,
          text: () => {
            const lines: string[] = [];
            const buffer = screen.buffer.active;
            for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
            return lines.join('\n');
          },
          type: (data) => ws.send(JSON.stringify({ type: 'input', data })),
          waitFor: async (pattern, timeoutMs = 15_000) => {
            const deadline = Date.now() + timeoutMs;
            while (Date.now() < deadline) {
              await new Promise<void>((r) => screen.write('', r));
              if (pattern.test(client.text())) return;
              await new Promise((r) => setTimeout(r, 50));
            }
            throw new Error(`the screen never matched ${String(pattern)}:\n${client.text()}`);
          },
          close: () =>
            new Promise((r) => {
              if (ws.readyState === WebSocket.CLOSED) return r();
              ws.once('close', () => r());
              ws.close();
            }),
        };
        resolve(client);
      } else if (message.type === 'output' && message.data !== undefined) screen.write(message.data);
      else if (message.type === 'exit') exit({ code: message.code ?? null, reason: message.reason ?? '' });
    });
  });
}
