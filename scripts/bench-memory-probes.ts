// What `npm run bench:memory` reads from an agent beside its RSS samples (issue 13): where the
// resident memory is (file-backed, the malloc arena, the rest), a load phase of mixed reads
// with an API key, and a heap snapshot taken through `--heapsnapshot-signal`.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { closedLoop, type ClosedLoopResult } from './bench-load.ts';

const round = (n: number) => Math.round(n * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where a process's resident memory is, in MiB, from /proc/<pid>/status and smaps. */
export interface RssComposition {
  rss_mib: number;
  /** Mapped files: the node binary's pages, libsql's native library. */
  file_mib: number;
  anonymous_mib: number;
  /** Of the anonymous: glibc's main malloc arena ([heap]), where Buffers and native allocations live. */
  malloc_arena_mib: number;
}

export function rssComposition(pid: number): RssComposition {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  // The [heap] mapping's Rss line: the first Rss after its header.
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const heap = /\[heap\]\n(?:.*\n)*?Rss:\s+(\d+) kB/.exec(smaps);
  return { rss_mib: round(field('VmRSS')), file_mib: round(field('RssFile')), anonymous_mib: round(field('RssAnon')), malloc_arena_mib: round(Number(heap?.[1] ?? 0) / 1024) };
}

export interface LoadPhase extends ClosedLoopResult {
  paths: string[];
  duration_secs: number;
}

/**
 * `total` GETs, one at a time, cycling /overview, /incidents and /namespaces/<ns>/pods over the
 * namespaces the key may see, with an API key minted for the purpose (the path automation
 * takes). Sequential so it measures what serving leaves behind, not a queue.
 */
export async function loadPhase(url: string, cookie: string, total: number): Promise<LoadPhase> {
  const minted = await fetch(`${url}/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench-memory', scopes: ['workloads:read'] }) });
  if (!minted.ok) throw new Error(`minting an API key answered ${minted.status}`);
  const auth = { authorization: `Bearer ${((await minted.json()) as { key: string }).key}` };
  const listed = await fetch(`${url}/namespaces`, { headers: auth });
  if (!listed.ok) throw new Error(`GET /namespaces answered ${listed.status}`);
  const namespaces = ((await listed.json()) as { namespaces: { name: string }[] }).namespaces.map((n) => n.name);
  if (namespaces.length === 0) throw new Error('the API key sees no namespace');
  let i = 0;
  const pathOf = (n: number) => (n % 3 === 0 ? '/overview' : n % 3 === 1 ? '/incidents' : `/namespaces/${namespaces[Math.floor(n / 3) % namespaces.length] ?? ''}/pods`);
  const started = performance.now();
  const result = await closedLoop(() => fetch(url + pathOf(i++), { headers: auth }), 1, total);
  return { ...result, paths: ['/overview', '/incidents', '/namespaces/<ns>/pods'], duration_secs: round((performance.now() - started) / 1000) };
}

function lastByte(path: string, size: number): string {
  const fd = openSync(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/**
 * Sends SIGUSR2 to an agent started with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=dir`
 * and waits for the snapshot file to be complete (its size stops changing and the JSON is closed). V8 collects
 * garbage before writing it, so it holds live objects only.
 */
export async function takeHeapSnapshot(pid: number, dir: string, timeoutMs = 300_000): Promise<string> {
  const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  let file: string | undefined;
  let lastSize = -1;
  while (Date.now() < deadline) {
    await sleep(1000);
    file ??= readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    const path = join(dir, file);
    const size = statSync(path).size;
    if (size > 0 && size === lastSize && lastByte(path, size) === '}') return path;
    lastSize = size;
  }
  throw new Error(`no complete heap snapshot in ${dir} after ${timeoutMs / 1000} s`);
}
