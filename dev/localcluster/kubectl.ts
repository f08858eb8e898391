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

/**
 * Waits until each CRD's Established condition is True. Not `kubectl wait
 * --for=condition=Established`: when it first reads a CRD whose status has no conditions yet (the
 * moment after it is created) it fails at once with ".status.conditions accessor error: <nil>"
 * instead of waiting (kubernetes/kubernetes#66439); `make demo` died on exactly that.
 */
export async function waitForCrdsEstablished(run: (args: string[]) => Promise<string>, crds: readonly string[], timeoutMs = 60_000, intervalMs = 250): Promise<void> {
  for (const crd of crds) {
    await waitFor(
      `CRD ${crd} Established`,
      async () => (await run(['get', 'crd', crd, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}'])).trim() === 'True',
      timeoutMs,
      intervalMs,
    );
  }
}

/** Waits until at least `count` nodes exist and every node's Ready condition is True (kubectl wait has the same flaw with a node KWOK has not given conditions yet). */
export async function waitForNodesReady(run: (args: string[]) => Promise<string>, count: number, timeoutMs = 120_000, intervalMs = 500): Promise<void> {
  await waitFor(
    `${count} nodes Ready`,
    async () => {
      const lines = (await run(['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}'])).split('\n').filter((l) => l.trim() !== '');
      return lines.length >= count && lines.every((l) => l.endsWith('=True'));
    },
    timeoutMs,
    intervalMs,
  );
}
