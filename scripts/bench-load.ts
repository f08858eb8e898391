// Closed-loop load for the benchmarks: `concurrency` clients issue `total` requests between
// them. A measured run is served work only: any non-2xx answer fails the run with its status
// histogram, so a rate limiter's 429s can never be averaged into a throughput again.
import type { LoadResult } from './bench-report.ts';

export type Fetcher = () => Promise<Response>;

const round = (n: number) => Math.round(n * 100) / 100;

export class FailedRun extends Error {
  constructor(readonly statuses: Readonly<Record<string, number>>) {
    super(`measured run had non-2xx answers: ${JSON.stringify(statuses)}`);
  }
}

export async function load(fetcher: Fetcher, concurrency: number, total: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        const res = await fetcher();
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  if (Object.keys(statuses).some((status) => !status.startsWith('2'))) throw new FailedRun(statuses);
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { concurrency, requests: latencies.length, errors: 0, p50_ms: round(pick(0.5)), p99_ms: round(pick(0.99)), throughput_rps: round(latencies.length / elapsed) };
}
