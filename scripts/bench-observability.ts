// `npm run bench:observability` (and a phase of `npm run bench`, BENCH_OBSERVABILITY): the
// guarded PromQL proxy against the same query sent straight to Prometheus, side by side in one
// run, and the guard's own cost on a short and a long query. A local control plane (the demo
// scenario) comes up with Debian's prometheus scraping its API server; this tree's agent runs as
// its own process, licensed for `observability` by a throwaway issuer, the loopback dev switch on
// (Prometheus is on loopback). The proxied query is an admin's API-key call; the direct one is
// the exact query the guard printed, form-encoded to Prometheus' /api/v1/query, by the same
// client. Reports, never asserts: errors are counted and a run with any is left without figures.
//
// Knobs: BENCH_OBS_REQUESTS (per run, default 400), BENCH_OBS_CONCURRENCY (default 1,4: the
// proxy allows 4 queries per user at once), BENCH_OBS_GUARD_RUNS (default 2000),
// BENCH_OUT_DIR (default tests/bench). Writes results/observability.json and observability.md.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { down, up } from '../dev/localcluster/cluster.ts';
import { startPrometheus, type RunningPrometheus } from '../dev/localcluster/prometheus.ts';
import { guardPromql } from '../domain/observability/promql-guard.ts';
import { testIssuer } from '../tests/support/license-keys.ts';
import { signIn, startAgent, stop, type Started } from './bench-agent.ts';
import { closedLoop, httpFetcher, type ClosedLoopResult } from './bench-load.ts';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const REQUESTS = Number(env('BENCH_OBS_REQUESTS', '400'));
const CONCURRENCY = env('BENCH_OBS_CONCURRENCY', '1,4').split(',').map(Number);
const GUARD_RUNS = Number(env('BENCH_OBS_GUARD_RUNS', '2000'));
const OUT_DIR = env('BENCH_OUT_DIR', 'tests/bench');
const say = (line: string) => process.stderr.write(`[bench:observability] ${line}\n`);

/** The query measured: what the API-server panel asks, a realistic aggregation over a real series. */
const QUERY = 'sum by (verb) (rate(apiserver_request_total[5m]))';
/** A long query for the guard's cost: 60 selectors in one sum, about 5 KB. */
const LONG_QUERY = Array.from({ length: 60 }, (_, i) => `rate(http_requests_total{job="api-${String(i)}",code=~"5..",handler!="/healthz"}[5m])`).join(' + ');

interface PairRun {
  concurrency: number;
  capstan: ClosedLoopResult;
  direct: ClosedLoopResult;
  /** Capstan's p50 over the direct p50, when both were served. */
  p50_ratio: number | null;
  throughput_ratio: number | null;
}

function guardCost(query: string, runs: number): { chars: number; median_us: number; p99_us: number } {
  const visibility = { namespaces: Array.from({ length: 50 }, (_, i) => `team-${String(i)}`), unnamespaced: true };
  for (let i = 0; i < 200; i++) guardPromql(query, visibility);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = guardPromql(query, visibility);
    samples.push((performance.now() - t) * 1000);
    if (!r.ok) throw new Error(`the guard refused the benchmark's query: ${r.message}`);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => Math.round(samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)] ?? 0);
  return { chars: query.length, median_us: at(0.5), p99_us: at(0.99) };
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : Math.round((a / b) * 100) / 100);

function markdown(report: { generated_at: string; query: string; guarded_query: string; runs: PairRun[]; guard: { short: ReturnType<typeof guardCost>; long: ReturnType<typeof guardCost> } }): string {
  const cell = (r: ClosedLoopResult, v: number | null) => (r.served ? String(v ?? '–') : `failed (${String(r.errors)} errors: ${JSON.stringify(r.statuses)})`);
  const lines = [
    '# Observability benchmark',
    '',
    `Generated ${report.generated_at} by \`npm run bench:observability\`. The query \`${report.query}\`, as an admin's API-key call through the guarded proxy, and the guarded query (\`${report.guarded_query.slice(0, 120)}${report.guarded_query.length > 120 ? '…' : ''}\`) sent straight to Prometheus by the same client, back to back.`,
    '',
    '| Clients | Capstan p50 ms | Capstan p99 ms | Capstan req/s | Prometheus p50 ms | Prometheus p99 ms | Prometheus req/s | p50 ratio | throughput ratio |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.runs.map((r) => `| ${String(r.concurrency)} | ${cell(r.capstan, r.capstan.p50_ms)} | ${cell(r.capstan, r.capstan.p99_ms)} | ${cell(r.capstan, r.capstan.throughput_rps)} | ${cell(r.direct, r.direct.p50_ms)} | ${cell(r.direct, r.direct.p99_ms)} | ${cell(r.direct, r.direct.throughput_rps)} | ${String(r.p50_ratio ?? '–')} | ${String(r.throughput_ratio ?? '–')} |`),
    '',
    '| Guard (parse, confine to 50 namespaces, print) | Characters | Median µs | p99 µs |',
    '|---|---|---|---|',
    `| short query | ${String(report.guard.short.chars)} | ${String(report.guard.short.median_us)} | ${String(report.guard.short.p99_us)} |`,
    `| long query (60 selectors) | ${String(report.guard.long.chars)} | ${String(report.guard.long.median_us)} | ${String(report.guard.long.p99_us)} |`,
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-obs-'));
  let agent: Started | null = null;
  let prometheus: RunningPrometheus | null = null;
  try {
    say('local control plane (demo scenario)');
    const cluster = await up({ dir: join(dir, 'cluster'), scenario: 'demo', progress: (m) => say(m) });
    prometheus = await startPrometheus(cluster);
    const issuer = testIssuer();
    process.env.CAPSTAN_OUTBOUND_ALLOW_LOOPBACK = '1';
    process.env.CAPSTAN_LICENSE_PUBLIC_KEY = issuer.publicKeyPem;
    agent = await startAgent(cluster.kubeconfig, join(dir, 'agent-data'));
    const cookie = await signIn(agent.url);
    const call = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${agent?.url ?? ''}${path}`, { method, headers: { cookie, origin: agent?.url ?? '', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${method} ${path} answered ${String(res.status)}: ${(await res.text()).slice(0, 300)}`);
      return (await res.json()) as Record<string, unknown>;
    };
    await call('PUT', '/admin/license', { key: issuer.key({ id: 'lic_bench', tier: 'pro', licensee: 'Capstan benchmark' }) });
    await call('PUT', '/admin/observability/sources', { prometheus: { url: prometheus.url } });
    const key = String((await call('POST', '/me/api-keys', { name: 'bench-observability', scopes: ['metrics:read'] })).key);
    const first = await fetch(`${agent.url}/observability/prom/query`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    const guarded = ((await first.json()) as { query?: string }).query ?? '';
    if (!first.ok || guarded === '') throw new Error(`the proxied query answered ${String(first.status)}`);

    const viaCapstan = httpFetcher(`${agent.url}/observability/prom/query`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    const direct = httpFetcher(`${prometheus.url}/api/v1/query`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: guarded, timeout: '10s' }).toString() });
    const runs: PairRun[] = [];
    for (const concurrency of CONCURRENCY) {
      say(`${String(concurrency)} clients: warm-up, then ${String(REQUESTS)} requests each way`);
      await closedLoop(viaCapstan, concurrency, 50);
      await closedLoop(direct, concurrency, 50);
      const capstan = await closedLoop(viaCapstan, concurrency, REQUESTS);
      const straight = await closedLoop(direct, concurrency, REQUESTS);
      runs.push({ concurrency, capstan, direct: straight, p50_ratio: ratio(capstan.p50_ms, straight.p50_ms), throughput_ratio: ratio(capstan.throughput_rps, straight.throughput_rps) });
    }
    const guard = { short: guardCost(QUERY, GUARD_RUNS), long: guardCost(LONG_QUERY, GUARD_RUNS) };
    const report = { generated_at: new Date().toISOString(), query: QUERY, guarded_query: guarded, runs, guard };
    mkdirSync(join(OUT_DIR, 'results'), { recursive: true });
    writeFileSync(join(OUT_DIR, 'results/observability.json'), JSON.stringify(report, null, 2) + '\n');
    const md = markdown(report);
    writeFileSync(join(OUT_DIR, 'observability.md'), md);
    process.stdout.write(md);
    const failed = runs.filter((r) => !r.capstan.served || !r.direct.served).length;
    say(failed === 0 ? 'done; every run served' : `done; ${String(failed)} runs had errors (their figures are left out)`);
    return failed === 0 ? 0 : 1;
  } finally {
    await stop(agent);
    await prometheus?.close();
    await down(join(dir, 'cluster')).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
