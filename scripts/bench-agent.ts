// The processes `npm run bench` measures: the agent of this tree (its own process, its rate
// limit lifted by the documented startup option, never by code) and the floor
// (scripts/bench-floor.ts) serving bytes the agent answered. Plus the agent-side facts the
// bench reads: RSS from /proc, the credentials it measures with, and when the agent lists
// every pod of the scenario.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export const ADMIN_PASSWORD = 'bench-admin-password';
/** The scopes the measured reads need: pods, incidents and overview (workloads), the subgraph (topology), MCP, the security posture and findings (scanning). */
export const API_KEY_SCOPES = ['workloads:read', 'topology:read', 'mcp:read', 'scanning:read'] as const;

export interface Started {
  child: ChildProcess;
  url: string;
  /** When the process said it was listening (performance.now()). */
  listeningAt: number;
  /** When the agent logged its one startup garbage collection (runtime/memory.ts), or null before. */
  collectedAt: () => number | null;
  log: () => string;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Every process started and not yet stopped, so an interrupted bench can stop them all. */
const running = new Set<Started>();

function waitForLine(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<Started> {
  // Only the tail is kept: the log of a long run must not grow this process.
  let tail = '';
  let collectedAt: number | null = null;
  let resolved = false;
  const output = stream === 'stdout' ? child.stdout : child.stderr;
  return new Promise((resolve, reject) => {
    output?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000);
      if (collectedAt === null && tail.includes('"message":"startup garbage collected"')) collectedAt = performance.now();
      const match = resolved ? null : pattern.exec(tail);
      if (match?.[1]) {
        resolved = true;
        const started: Started = { child, url: match[1], listeningAt: performance.now(), collectedAt: () => collectedAt, log: () => tail };
        running.add(started);
        resolve(started);
      }
    });
    child.on('exit', (code) => reject(new Error(`${what} exited (${String(code)}): ${tail}`)));
  });
}

/** `nodeArgs` go to node before the CLI (the bench passes `--heapsnapshot-signal` so it can snapshot the agent after its RSS is measured). */
export function startAgent(kubeconfig: string, dataDir: string, nodeArgs: readonly string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, 'bin/capstan.js', 'agent', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
    // The read class is lifted so the limiter is not what is measured (docs/configuration.md);
    // everything else, load shedding included, is as a user runs it.
    env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: ADMIN_PASSWORD, CAPSTAN_RATE_LIMITS: 'read=10000000' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return waitForLine(child, 'stderr', /"message":"agent listening","url":"([^"]+)"/, 'agent');
}

export interface FloorAnswer {
  method: 'GET' | 'POST';
  path: string;
  body: string;
}

/** A floor process serving `answers` (written to `file` for it). */
export function startFloor(answers: FloorAnswer[], file: string): Promise<Started> {
  writeFileSync(file, JSON.stringify(answers));
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench-floor.ts', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  return waitForLine(child, 'stdout', /floor listening (\S+)/, 'floor');
}

export async function stop(p: Started | null): Promise<void> {
  if (p === null) return;
  running.delete(p);
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!stopped) {
    p.child.kill('SIGKILL');
    await exited;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => stop(p)));
}

export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return round(Number(match?.[1] ?? 0) / 1024);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : round(((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2);
}

/** VmRSS `count` times `intervalMs` apart (no forced GC); the median is the figure. */
export async function sampleRss(pid: number, count: number, intervalMs: number): Promise<{ median: number; samples: number[] }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, intervalMs));
    samples.push(rssMiB(pid));
  }
  return { median: median(samples), samples };
}

export async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (cookie === '') throw new Error('sign-in set no cookie');
  return cookie;
}

export async function createApiKey(url: string, cookie: string): Promise<string> {
  const res = await fetch(`${url}/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: API_KEY_SCOPES }) });
  if (!res.ok) throw new Error(`creating the bench API key answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  return ((await res.json()) as { key: string }).key;
}

/**
 * Waits until the agent lists `perNamespace` pods in every one of `namespaces`. First one
 * /overview (computed on its first request, so current; then cached 30 s), which usually shows
 * every namespace complete; a namespace it shows short is then asked through its own pods
 * list (uncached) until complete. Returns the pods seen.
 */
export async function waitForAllPods(url: string, headers: Record<string, string>, namespaces: readonly string[], perNamespace: number, timeoutMs: number): Promise<number> {
  const counts = new Map<string, number>(namespaces.map((ns) => [ns, 0]));
  const deadline = performance.now() + timeoutMs;
  const overview = await fetch(`${url}/overview`, { headers });
  if (overview.ok) {
    for (const ns of ((await overview.json()) as { namespaces: { namespace: string; pods_total: number }[] }).namespaces) {
      if (counts.has(ns.namespace)) counts.set(ns.namespace, ns.pods_total);
    }
  } else {
    await overview.arrayBuffer();
  }
  let pending = namespaces.filter((ns) => (counts.get(ns) ?? 0) < perNamespace);
  while (pending.length > 0) {
    const still: string[] = [];
    // A few at a time: the agent is still warming up, and this is not the load test.
    for (let i = 0; i < pending.length; i += 8) {
      await Promise.all(
        pending.slice(i, i + 8).map(async (ns) => {
          const res = await fetch(`${url}/namespaces/${ns}/pods`, { headers });
          const n = res.ok ? ((await res.json()) as { pods?: unknown[] }).pods?.length ?? 0 : (await res.arrayBuffer(), 0);
          counts.set(ns, n);
          if (n < perNamespace) still.push(ns);
        }),
      );
    }
    pending = still;
    if (pending.length === 0) break;
    if (performance.now() > deadline) throw new Error(`the agent lists ${[...counts.values()].reduce((a, b) => a + b, 0)} pods; ${pending.length} namespaces are short (first: ${pending[0] ?? ''})`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return [...counts.values()].reduce((a, b) => a + b, 0);
}
