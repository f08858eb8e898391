import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface KubectlOptions {
  binDir: string;
  kubeconfig: string;
  /** Fed to kubectl's stdin (for `apply -f -`). */
  input?: string;
  timeoutMs?: number;
}

/** Runs the locally built kubectl against the local cluster; rejects with kubectl's own stderr. */
export function kubectl(args: string[], options: KubectlOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      join(options.binDir, 'kubectl'),
      ['--kubeconfig', options.kubeconfig, ...args],
      { timeout: options.timeoutMs ?? 120_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')}: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Polls `probe` until it returns true, or throws `what` after `timeoutMs`. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}${lastError ? `: ${lastError}` : ''}`);
}
