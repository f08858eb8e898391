// A chart repository's index.yaml parsed off the event loop. An index lists every version of
// every chart the repository serves (tens of MiB for the big public ones), and parsing that
// much YAML takes seconds of CPU: on the agent's thread it would stall every request, stream
// and informer meanwhile. A worker thread parses it with a memory ceiling and a deadline and
// answers the one chart's versions.
import { Worker } from 'node:worker_threads';

export interface IndexEntry {
  version?: string;
  urls?: string[];
  digest?: string;
}
export interface IndexParseRequest {
  text: string;
  name: string;
}
export type IndexParseAnswer = { ok: true; entries: IndexEntry[] } | { ok: false; message: string };

/** A 32 MiB index parses in a few seconds on a small node; past this the worker is stopped. */
export const INDEX_PARSE_TIMEOUT_MS = 30_000;
const WORKER_HEAP_MB = 512;

// The worker runs the TypeScript source as the CLI does (bin/capstan.js): through tsx's
// loader, registered in the worker before its module is imported.
const TSX = import.meta.resolve('tsx/esm/api');
const WORKER = new URL('./index-worker.ts', import.meta.url).href;
const BOOTSTRAP = `import(${JSON.stringify(TSX)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER)}); })`;

/** The versions index.yaml lists for `name` (none when it lists none); rejects when the YAML cannot be read. */
export function parseIndexEntries(text: string, name: string, timeoutMs = INDEX_PARSE_TIMEOUT_MS): Promise<IndexEntry[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { text, name } satisfies IndexParseRequest, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`parsing it took longer than ${String(timeoutMs / 1000)} s`))), timeoutMs);
    worker.once('message', (answer: IndexParseAnswer) => settle(() => (answer.ok ? resolve(answer.entries) : reject(new Error(answer.message)))));
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the parser stopped (${String(code)}) before it answered`))));
  });
}
