// The measured reads of `npm run bench` and how each is measured: the agent's answer is
// captured once per credential, a floor process serves those bytes, and every run asks the
// agent and then the floor with the same client (`fetch`), the same headers and the same
// concurrency or offered rate, back to back.
import { join } from 'node:path';
import { startFloor, stop, type Started } from './bench-agent.ts';
import { closedLoop, httpFetcher, openLoop, type Fetcher } from './bench-load.ts';
import type { CaptureFailure, ClosedRow, Credential, OpenRow, OpenSkipped, ReadInfo } from './bench-report.ts';

export interface Read extends ReadInfo {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

/**
 * The issues' reads: a namespace's pods, incidents, the cached overview, a 2-hop subgraph, MCP
 * `list_pods` (issues 4 and 13), and the security posture and the first 50-row page of the
 * findings from the built-in checks over every workload (issue 16), and the first pages of
 * `/resources` for a namespace's pods and the cluster's events (issue 28).
 */
export function readsFor(namespace: string): Read[] {
  const focus = encodeURIComponent(`namespace:${namespace}`);
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_pods', arguments: { namespace } } };
  return [
    { id: 'pods', label: `GET /namespaces/${namespace}/pods`, method: 'GET', path: `/namespaces/${namespace}/pods` },
    { id: 'incidents', label: 'GET /incidents', method: 'GET', path: '/incidents' },
    { id: 'overview', label: 'GET /overview', method: 'GET', path: '/overview' },
    { id: 'subgraph', label: `GET /graph/subgraph?focus=namespace:${namespace}&hops=2&budget=4000`, method: 'GET', path: `/graph/subgraph?focus=${focus}&hops=2&budget=4000` },
    { id: 'mcp', label: 'POST /mcp tools/call list_pods', method: 'POST', path: '/mcp', body: JSON.stringify(call) },
    { id: 'posture', label: 'GET /security/posture', method: 'GET', path: '/security/posture' },
    { id: 'findings', label: 'GET /security/findings?page=1&page_size=50', method: 'GET', path: '/security/findings?page=1&page_size=50' },
    // Issue 28's browsing lists: a namespace's first page of pods, and the cluster's newest events.
    { id: 'resource-pods', label: `GET /resources/pods?namespace=${namespace}`, method: 'GET', path: `/resources/pods?namespace=${namespace}` },
    { id: 'resource-events', label: 'GET /resources/events?sort=age', method: 'GET', path: '/resources/events?sort=age' },
  ];
}

function requestOf(read: Read, auth: Record<string, string>): { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string } {
  // The MCP endpoint is stateless Streamable HTTP: JSON in, and the client must accept both answer forms.
  const headers = read.method === 'POST' ? { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : auth;
  return read.body === undefined ? { method: read.method, headers } : { method: read.method, headers, body: read.body };
}

/** The same request, to the agent or the floor, over the same kind of client: the floor is sent the credential too, so the client does the same work. */
export function fetcherFor(base: string, read: Read, auth: Record<string, string>): Fetcher {
  return httpFetcher(base + read.path, requestOf(read, auth));
}

/** The agent's answer to `read`, or why it is not one to measure (a non-2xx, or an MCP tool error inside a 200). */
export async function capture(base: string, read: Read, auth: Record<string, string>): Promise<{ body: string } | { status: string; detail: string }> {
  let res: Response;
  try {
    res = await fetch(base + read.path, requestOf(read, auth));
  } catch (err) {
    return { status: 'network', detail: err instanceof Error ? err.message : String(err) };
  }
  const body = await res.text();
  if (!res.ok) return { status: String(res.status), detail: body.slice(0, 300) };
  if (read.id === 'mcp') {
    let parsed: { result?: { isError?: boolean }; error?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      return { status: `${res.status} not JSON`, detail: `${res.headers.get('content-type') ?? ''}: ${body.slice(0, 300)}` };
    }
    if (parsed.error !== undefined || parsed.result?.isError === true) return { status: `${res.status} tool error`, detail: body.slice(0, 300) };
  }
  return { body };
}

export interface MeasurePlan {
  credentials: Credential[];
  concurrencies: number[];
  requests: number;
  warmup: number;
  /** Open-loop runs (API key only): the rates, and which reads; none when `openRates` is empty. */
  openRates: number[];
  openReads: string[];
  openSecs: number;
  maxOutstanding: number;
}

/** Open-loop rates above this share of the floor's closed-loop saturation rate (same read, same credential) are not offered. */
export const OPEN_RATE_SHARE_OF_FLOOR = 0.8;

export interface Measured {
  closed: ClosedRow[];
  open: OpenRow[];
  open_skipped: OpenSkipped[];
  capture_failures: CaptureFailure[];
}

const rate = (rps: number | null) => (rps === null ? 'failed' : `${rps} req/s`);

export async function measureReads(agentUrl: string, reads: Read[], auth: Record<Credential, Record<string, string>>, plan: MeasurePlan, tmp: string, say: (line: string) => void): Promise<Measured> {
  const out: Measured = { closed: [], open: [], open_skipped: [], capture_failures: [] };
  for (const credential of plan.credentials) {
    const headers = auth[credential];
    const captured: Read[] = [];
    const answers: { method: 'GET' | 'POST'; path: string; body: string }[] = [];
    for (const read of reads) {
      const got = await capture(agentUrl, read, headers);
      if ('body' in got) {
        captured.push(read);
        answers.push({ method: read.method, path: read.path, body: got.body });
        say(`captured ${read.label} (${credential}): ${Buffer.byteLength(got.body)} bytes`);
      } else {
        out.capture_failures.push({ read: read.id, credential, ...got });
        say(`NOT captured ${read.label} (${credential}): ${got.status} ${got.detail}`);
      }
    }
    if (captured.length === 0) continue;
    let floor: Started | null = null;
    try {
      floor = await startFloor(answers, join(tmp, `floor-${credential}.json`));
      const floorUrl = floor.url;
      for (const read of captured) {
        const agentFetch = fetcherFor(agentUrl, read, headers);
        const floorFetch = fetcherFor(floorUrl, read, headers);
        // Warm both (JIT, connections) before anything is measured; the warm-up is not reported.
        if (plan.warmup > 0) {
          await closedLoop(agentFetch, 10, plan.warmup);
          await closedLoop(floorFetch, 10, plan.warmup);
        }
        for (const concurrency of plan.concurrencies) {
          const agent = await closedLoop(agentFetch, concurrency, plan.requests);
          const floorRun = await closedLoop(floorFetch, concurrency, plan.requests);
          out.closed.push({ read: read.id, credential, concurrency, agent, floor: floorRun });
          say(`${read.label} (${credential}) ×${concurrency}: Capstan ${rate(agent.throughput_rps)}, floor ${rate(floorRun.throughput_rps)}${agent.errors + floorRun.errors > 0 ? ` — ERRORS ${JSON.stringify(agent.statuses)} / ${JSON.stringify(floorRun.statuses)}` : ''}`);
        }
        if (credential !== 'api-key' || !plan.openReads.includes(read.id)) continue;
        const floorSaturation = Math.max(0, ...out.closed.filter((r) => r.read === read.id && r.credential === credential).map((r) => r.floor.throughput_rps ?? 0));
        for (const offered of plan.openRates) {
          // A rate the bare framework itself cannot serve on this machine measures the machine,
          // and piles hundreds of large answers up in both processes: not offered, and said so.
          if (offered > OPEN_RATE_SHARE_OF_FLOOR * floorSaturation) {
            out.open_skipped.push({ read: read.id, credential, offered_rps: offered, floor_saturation_rps: floorSaturation });
            say(`${read.label} open loop at ${offered} req/s: not offered, above ${OPEN_RATE_SHARE_OF_FLOOR * 100} % of the floor's ${floorSaturation} req/s`);
            continue;
          }
          const options = { ratePerSec: offered, durationSecs: plan.openSecs, maxOutstanding: plan.maxOutstanding };
          const agent = await openLoop(agentFetch, options);
          const floorRun = await openLoop(floorFetch, options);
          out.open.push({ read: read.id, credential, offered_rps: offered, agent, floor: floorRun });
          say(`${read.label} open loop at ${offered} req/s: Capstan p99 ${String(agent.p99_ms)} ms (not sent ${agent.not_sent}, errors ${agent.errors}), floor p99 ${String(floorRun.p99_ms)} ms`);
        }
      }
    } finally {
      await stop(floor);
    }
  }
  return out;
}
