// `capstan agent` as its own process (the real CLI, not the in-process agent): for tests about
// what only a process shows (its logs, its files, kill -9, the environment a chart gives it).
import { spawn } from 'node:child_process';

export interface AgentProcess {
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<unknown>;
  /** Sends `signal` (SIGTERM unless told) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

const SLOW_STOP_MS = 5_000;

/** Starts `capstan agent` on a free loopback port with `env` as its whole environment; resolves once it listens. */
export async function spawnAgent(options: { kubeconfig: string; dataDir: string; env: NodeJS.ProcessEnv }): Promise<AgentProcess> {
  const child = spawn(process.execPath, ['bin/capstan.js', 'agent', '--kubeconfig', options.kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', options.dataDir], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"message":"agent listening","url":"([^"]+)"/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`agent exited early (${String(code)}): ${stderr}`)));
  });
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async (signal = 'SIGTERM') => {
      const asked = Date.now();
      child.kill(signal);
      await exited;
      // A slow stop is a defect worth its logs: the agent's last lines say which step stalled.
      if (Date.now() - asked > SLOW_STOP_MS) process.stderr.write(`agent took ${Date.now() - asked} ms to stop; its last log lines:\n${stderr.split('\n').slice(-15).join('\n')}\n`);
    },
  };
}
