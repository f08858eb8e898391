// `capstan terminal`: the terminal sidecar (runtime/terminal/sidecar.ts), configured from the
// environment the chart gives its container. Its environment holds no secret but the key the
// agent authenticates with (a file), and the shells' environment is an allowlist anyway.
import { readFileSync } from 'node:fs';
import { parseListen } from '../agent.ts';
import { createLogger } from '../log.ts';
import { startSidecar } from '../terminal/sidecar.ts';
import { DEFAULT_REATTACH_GRACE_SECS, DEFAULT_SIDECAR_LISTEN, TERMINAL_MAX_TOTAL } from '../terminal/limits.ts';
import { untilSignal } from './signals.ts';

function wholeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${value}"`);
  return n;
}

export async function runTerminalCommand(_args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const keyFile = env.CAPSTAN_TERMINAL_KEY_FILE;
  if (!keyFile) throw new Error('CAPSTAN_TERMINAL_KEY_FILE is required: the key the agent authenticates with');
  // Read per connection: the agent may write a new one when it restarts.
  const key = (): string | null => {
    try {
      const text = readFileSync(keyFile, 'utf8').trim();
      return text.length >= 32 ? text : null;
    } catch {
      return null;
    }
  };
  const listen = parseListen(env.CAPSTAN_TERMINAL_LISTEN ?? DEFAULT_SIDECAR_LISTEN);
  if (listen.hostname !== '127.0.0.1' && listen.hostname !== '::1') throw new Error(`CAPSTAN_TERMINAL_LISTEN must be a loopback address (the agent is in the same pod), got "${listen.hostname}"`);
  const log = createLogger('capstan-terminal');
  const sidecar = await startSidecar({
    listen,
    key,
    home: env.CAPSTAN_TERMINAL_HOME ?? '/home/capstan',
    idleTimeoutSecs: wholeNumber(env.CAPSTAN_TERMINAL_IDLE_TIMEOUT_SECS, 0, 'CAPSTAN_TERMINAL_IDLE_TIMEOUT_SECS'),
    reattachGraceSecs: wholeNumber(env.CAPSTAN_TERMINAL_REATTACH_GRACE_SECS, DEFAULT_REATTACH_GRACE_SECS, 'CAPSTAN_TERMINAL_REATTACH_GRACE_SECS'),
    maxSessions: TERMINAL_MAX_TOTAL,
    parentEnv: env,
    log,
  });
  await untilSignal();
  await sidecar.close();
  return 0;
}
