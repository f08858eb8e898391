// Load generators for the benchmarks. Both report what was served and what was not: a run with
// any non-2xx answer is marked failed with its status histogram, and its latencies and rate are
// left out (null), so a rate limiter's 429s can never be averaged into a throughput again.
//
// - closedLoop: `concurrency` clients issue `total` requests between them, each waiting for its
//   answer before the next. Its throughput is the saturation rate; its latency includes the
//   queue the clients themselves build, so it is not the figure to quote for latency.
// - openLoop: requests are sent at a fixed offered rate whatever the answers do, and each one's
//   latency is counted from when it was due, not when it went out, so a stalled server cannot
//   hide its stall by slowing the client down (coordinated omission).
import http from 'node:http';

/** What a load run needs of an answer: its status, and its body read to the end. A fetch `Response` is one. */
export interface Answer {
  status: number;
  arrayBuffer(): Promise<unknown>;
  /** Sent again on a new connection after a reused keep-alive one was reset (httpFetcher). */
  retried?: boolean;
}
export type Fetcher = () => Promise<Answer>;

/**
 * A fetcher over node:http with one keep-alive agent (up to `maxSockets` connections). The
 * measured reads use it rather than `fetch`: undici's fetch, in the same process, tops out near
 * 4,000 small answers a second on this machine, where node:http reaches about 12,000 against the
 * same bare Hono route, so with fetch the floor would measure the client, not the server.
 */
export function httpFetcher(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }, maxSockets = 256): Fetcher {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  const headers = body === undefined ? init.headers : { ...init.headers, 'content-length': String(body.length) };
  const once = () =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(url, { method: init.method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const whole = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, arrayBuffer: () => Promise.resolve(whole) });
        });
      });
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
  // A keep-alive connection the server closed as idle just as the client reused it answers
  // ECONNRESET before any response: Node's documented remedy is to send the request again on a
  // new connection. Done once, and counted (`retries`), never hidden; the latency includes it.
  return async () => {
    try {
      return await once();
    } catch (err) {
      const e = err as { code?: unknown; reusedSocket?: unknown };
      if (e.reusedSocket !== true || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err;
      return { ...(await once()), retried: true };
    }
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** A measured run: what was asked, what came back, and the figures when every answer was served. */
export interface RunOutcome {
  requests: number;
  /** Non-2xx answers and requests that failed without one (`statuses.network`). */
  errors: number;
  /** Answers by status code; `network` for a request that got no HTTP answer at all. */
  statuses: Record<string, number>;
  /** Requests sent again on a new connection after a reused keep-alive one was reset before any answer (httpFetcher). */
  retries: number;
  /** False when any answer was an error: then the figures below are null, never averaged in. */
  served: boolean;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface ClosedLoopResult extends RunOutcome {
  concurrency: number;
  throughput_rps: number | null;
}

export interface OpenLoopResult extends RunOutcome {
  offered_rps: number;
  duration_secs: number;
  /** Answers completed per second of the run. */
  achieved_rps: number | null;
  p999_ms: number | null;
  /** Requests never sent because `maxOutstanding` were already waiting: the rate was not sustained. */
  not_sent: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0);
}

/** A request that got no HTTP answer: `network`, with the error's code when it has one (`network ECONNRESET`). */
function networkStatus(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : null;
  return code === null ? 'network' : `network ${code}`;
}

/** Sends one request, drains its body, and records its status (or `network …`). */
async function ask(fetcher: Fetcher, statuses: Record<string, number>, retried: { count: number }): Promise<boolean> {
  let status: string;
  try {
    const res = await fetcher();
    await res.arrayBuffer();
    if (res.retried === true) retried.count++;
    status = String(res.status);
  } catch (err) {
    status = networkStatus(err);
  }
  statuses[status] = (statuses[status] ?? 0) + 1;
  return status.startsWith('2');
}

function outcome(latencies: number[], statuses: Record<string, number>, retried: { count: number }): RunOutcome {
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = Object.entries(statuses).reduce((n, [status, count]) => (status.startsWith('2') ? n : n + count), 0);
  const served = errors === 0 && requests > 0;
  latencies.sort((a, b) => a - b);
  return { requests, errors, statuses, retries: retried.count, served, p50_ms: served ? percentile(latencies, 0.5) : null, p99_ms: served ? percentile(latencies, 0.99) : null };
}

export async function closedLoop(fetcher: Fetcher, concurrency: number, total: number): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const retried = { count: 0 };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        await ask(fetcher, statuses, retried);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const result = outcome(latencies, statuses, retried);
  return { ...result, concurrency, throughput_rps: result.served ? round(result.requests / elapsed) : null };
}

export interface OpenLoopOptions {
  ratePerSec: number;
  durationSecs: number;
  /** Past this many unanswered requests the generator stops sending (default 2000), so an overloaded server cannot exhaust the client. */
  maxOutstanding?: number;
}

export async function openLoop(fetcher: Fetcher, options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { ratePerSec, durationSecs } = options;
  const maxOutstanding = options.maxOutstanding ?? 2000;
  const due = Math.round(ratePerSec * durationSecs);
  const intervalMs = 1000 / ratePerSec;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const retried = { count: 0 };
  const inFlight = new Set<Promise<void>>();
  let notSent = 0;
  const started = performance.now();
  for (let i = 0; i < due; ) {
    const now = performance.now();
    // Every request due by now goes out now, each timed from its own due time.
    while (i < due && started + i * intervalMs <= now) {
      const dueAt = started + i * intervalMs;
      i++;
      if (inFlight.size >= maxOutstanding) {
        notSent++;
        continue;
      }
      const request = ask(fetcher, statuses, retried).then(() => {
        latencies.push(performance.now() - dueAt);
        inFlight.delete(request);
      });
      inFlight.add(request);
    }
    if (i < due) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + i * intervalMs - performance.now())));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  const result = outcome(latencies, statuses, retried);
  const servedAll = result.served && notSent === 0;
  return {
    ...result,
    served: servedAll,
    offered_rps: ratePerSec,
    duration_secs: durationSecs,
    achieved_rps: servedAll ? round(result.requests / elapsed) : null,
    p999_ms: servedAll ? percentile(latencies, 0.999) : null,
    p50_ms: servedAll ? result.p50_ms : null,
    p99_ms: servedAll ? result.p99_ms : null,
    not_sent: notSent,
  };
}
