// The worker thread of ./index-parse.ts: parses one repository index.yaml and answers only the
// versions of the chart asked for, so a 32 MiB index neither blocks the agent's event loop nor
// crosses back whole.
import { parentPort, workerData } from 'node:worker_threads';
import { parse } from 'yaml';
import type { IndexEntry, IndexParseAnswer, IndexParseRequest } from './index-parse.ts';

const { text, name } = workerData as IndexParseRequest;
let answer: IndexParseAnswer;
try {
  const index = (parse(text) ?? {}) as { entries?: Record<string, unknown> };
  const versions = index.entries?.[name];
  const entries: IndexEntry[] = Array.isArray(versions)
    ? versions
        .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
        .map((e) => ({
          ...(typeof e.version === 'string' ? { version: e.version } : {}),
          ...(Array.isArray(e.urls) ? { urls: e.urls.filter((u): u is string => typeof u === 'string') } : {}),
          ...(typeof e.digest === 'string' ? { digest: e.digest } : {}),
        }))
    : [];
  answer = { ok: true, entries };
} catch (err) {
  answer = { ok: false, message: err instanceof Error ? err.message : String(err) };
}
parentPort?.postMessage(answer);
