// One full garbage collection shortly after the informers first hold the cluster. Their initial
// LISTs (at scale-5000 tens of MiB of response text and parsed objects, of which the slimmed
// objects kept are a fraction) leave garbage that V8 collects only at its next major GC, and
// an agent that has synced and then idles may not run one for minutes. V8 also sizes its young
// generation by the recent allocation rate: grown to 32 MiB by the LISTs, it shrinks only at a
// collection that runs while little is being allocated. So the collection waits until the sync's
// burst is over. Measured at scale-5000 (tests/bench/results/memory.md): RSS after sync 167-187
// MiB without it, 135-140 MiB with it; run at the moment of sync it freed the garbage but left
// the young generation at 32 MiB (169 MiB).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './log.ts';

/** From the first complete sync: long enough for the sync's burst (watches starting, first polls) to end. */
export const STARTUP_COLLECTION_DELAY_MS = 10_000;

/**
 * V8's collector, without starting node with `--expose-gc`: the flag is on just long enough to
 * create one context that gets `gc` as a global, then off again, so no other context sees it.
 */
function collector(): (() => void) | null {
  const global: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as () => void;
  setFlagsFromString('--expose-gc');
  try {
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Collects everything unreachable now; logs what it returned and how long the pause was. */
export function collectGarbage(log: Logger): void {
  const gc = collector();
  if (!gc) return;
  const before = process.memoryUsage();
  const started = performance.now();
  gc();
  const after = process.memoryUsage();
  const mib = (bytes: number) => Math.round(bytes / 10485.76) / 100;
  log.info('startup garbage collected', {
    pauseMs: Math.round(performance.now() - started),
    heapUsedMiB: [mib(before.heapUsed), mib(after.heapUsed)],
    heapTotalMiB: [mib(before.heapTotal), mib(after.heapTotal)],
  });
}

/** The collection, STARTUP_COLLECTION_DELAY_MS from now; the timer does not keep the process alive. */
export function scheduleStartupCollection(log: Logger, delayMs = STARTUP_COLLECTION_DELAY_MS): NodeJS.Timeout {
  return setTimeout(() => collectGarbage(log), delayMs).unref();
}
