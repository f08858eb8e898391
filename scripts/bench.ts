// `npm run bench`: the read-path benchmark of issues 4 and 13, at each scale in turn. A local
// control plane comes up with the smallest scale's scenario and is grown into each larger one;
// once the scenario has settled, this tree's agent starts as its own process, its cold sync and
// RSS are measured, and every read is measured against the floor (a bare Hono app serving the
// agent's own answer bytes, scripts/bench-floor.ts) with the same client, back to back. Then
// the history store and the dashboard, and everything is torn down. Writes
// results/latest.json and README.md under BENCH_OUT_DIR, keeping the README's hand-written
// profile findings, and exits non-zero when any measured run failed (a non-2xx answer), after
// writing them. Progress goes to stderr. Reports, never asserts.
//
// Knobs (environment):
//   BENCH_READS                  the reads to measure, by id (default pods,incidents,overview,subgraph,mcp,posture,findings;
//                                scripts/bench-measure.ts readsFor)
//   BENCH_SCALES                 scales to run, in order (default 1000,5000,20000 → tests/scenarios/scale-N.yaml);
//                                a scale smaller than the one before starts a new control plane
//   BENCH_FULL_SCALE             the scale that gets the full measured set (default 5000; none: no
//                                full set): both credentials, every concurrency and rate; the others
//                                get the reduced one: cold sync, RSS, 10 clients per read (API key),
//                                open loop on the pods list
//   BENCH_CONCURRENCY            closed-loop clients of the full set (default 1,10,50)
//   BENCH_REQUESTS               requests per closed-loop run, each of Capstan and the floor (default 5000,
//                                so even the floor's run, at over 10,000 req/s, lasts long enough to read)
//   BENCH_WARMUP                 unreported requests per read and target before its runs (default 200)
//   BENCH_OPEN_RATES             open-loop offered rates, req/s, full set (default 100,500,1000)
//   BENCH_OPEN_SECS              seconds per open-loop run (default 5)
//   BENCH_OPEN_MAX_OUTSTANDING   unanswered requests past which the generator holds back and the
//                                rate counts as not sustained (default 250, under the agent's
//                                CAPSTAN_MAX_IN_FLIGHT of 256, so the agent never sheds the bench)
//   BENCH_SCALE_OPEN_RATE        open-loop rate of the reduced set's pods list (default 500)
//   BENCH_RSS_SAMPLES            VmRSS samples per figure, median reported (default 5)
//   BENCH_RSS_INTERVAL_MS        between samples (default 2000)
//   BENCH_SETTLE_TIMEOUT_SECS    at most this long for a scenario's pods to be created and settle (default 1500)
//   BENCH_GROW                   1: each scale grows the previous scale's control plane (its scenario
//                                begins with the smaller one's objects) instead of starting a new one
//                                and creating every pod again (default 1; 0: a new control plane each)
//   BENCH_DIRECT_LIST            1: also LIST the namespace's pods from the API server on the full set (default 1)
//   BENCH_LIST_REQUESTS          requests per direct-LIST run (default 200)
//   BENCH_HISTORY                1: run the history-store benchmark (default 1; about four minutes)
//   BENCH_OBSERVABILITY          1: run the guarded PromQL proxy benchmark (default 1; scripts/bench-observability.ts,
//                                its own small control plane and Prometheus; writes observability.md beside README.md)
//   BENCH_DASHBOARD              1: the dashboard bundle, cold load and list renders in chromium (default 1; builds ui/web/dist
//                                when missing; adds a 500-pod namespace to the full scale's cluster for its Pods list)
//   BENCH_OUT_DIR                where README.md and results/latest.json go (default tests/bench)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeConfig } from '../runtime/kube/client.ts';
import { down } from '../dev/localcluster/cluster.ts';
import { kubectl, waitFor } from '../dev/localcluster/kubectl.ts';
import { ADMIN_PASSWORD, createApiKey, sampleRss, signIn, startAgent, stop, stopAll, waitForAllPods, type Started } from './bench-agent.ts';
import { bringUp } from './bench-cluster.ts';
import { benchDashboard } from './bench-dashboard.ts';
import { closedLoop, type Fetcher } from './bench-load.ts';
import { takeHeapSnapshot } from './bench-memory-probes.ts';
import { measureReads, readsFor, type MeasurePlan } from './bench-measure.ts';
import { failures, markdownReport, withProfileFindings, type BenchReport, type ScaleRun, type SecurityAtRun } from './bench-report.ts';
import { heapSummaryMarkdown, summarizeHeapSnapshotFile } from './heap-summary.ts';
import { namespaceName, PODS_PER_NAMESPACE, scaleShape } from './generate-scale-scenario.ts';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const list = (name: string, fallback: string) => env(name, fallback).split(',').map((s) => s.trim()).filter((s) => s !== '');
const positive = (name: string, fallback: number) => {
  const n = Number(env(name, String(fallback)));
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
};

/** The namespace the dashboard's Pods list is measured on, and its pod count (issue 28: "a 500-pod namespace"). */
const BIG_NAMESPACE = 'bench-500';
const BIG_NAMESPACE_PODS = 500;

const SETTINGS = {
  BENCH_READS: list('BENCH_READS', 'pods,incidents,overview,subgraph,mcp,posture,findings').join(','),
  BENCH_SCALES: list('BENCH_SCALES', '1000,5000,20000').join(','),
  BENCH_FULL_SCALE: env('BENCH_FULL_SCALE', '5000'),
  BENCH_CONCURRENCY: list('BENCH_CONCURRENCY', '1,10,50').join(','),
  BENCH_REQUESTS: positive('BENCH_REQUESTS', 5000),
  BENCH_WARMUP: positive('BENCH_WARMUP', 200),
  BENCH_OPEN_RATES: list('BENCH_OPEN_RATES', '100,500,1000').join(','),
  BENCH_OPEN_SECS: positive('BENCH_OPEN_SECS', 5),
  BENCH_OPEN_MAX_OUTSTANDING: positive('BENCH_OPEN_MAX_OUTSTANDING', 250),
  BENCH_SCALE_OPEN_RATE: positive('BENCH_SCALE_OPEN_RATE', 500),
  BENCH_RSS_SAMPLES: positive('BENCH_RSS_SAMPLES', 5),
  BENCH_RSS_INTERVAL_MS: positive('BENCH_RSS_INTERVAL_MS', 2000),
  BENCH_SETTLE_TIMEOUT_SECS: positive('BENCH_SETTLE_TIMEOUT_SECS', 1500),
  BENCH_GROW: env('BENCH_GROW', '1'),
  BENCH_DIRECT_LIST: env('BENCH_DIRECT_LIST', '1'),
  BENCH_LIST_REQUESTS: positive('BENCH_LIST_REQUESTS', 200),
  BENCH_HISTORY: env('BENCH_HISTORY', '1'),
  BENCH_OBSERVABILITY: env('BENCH_OBSERVABILITY', '1'),
  BENCH_DASHBOARD: env('BENCH_DASHBOARD', '1'),
};
const OUT_DIR = env('BENCH_OUT_DIR', 'tests/bench');
/** Heap types listed in the report. */
const HEAP_TOP_TYPES = 15;
const numbers = (csv: string) => csv.split(',').map(Number);

const began = performance.now();
const say = (line: string) => process.stderr.write(`bench [${Math.round((performance.now() - began) / 1000)} s]: ${line}\n`);
const round = (n: number) => Math.round(n * 100) / 100;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function plan(full: boolean): MeasurePlan {
  const common = { requests: SETTINGS.BENCH_REQUESTS, warmup: SETTINGS.BENCH_WARMUP, openSecs: SETTINGS.BENCH_OPEN_SECS, maxOutstanding: SETTINGS.BENCH_OPEN_MAX_OUTSTANDING };
  if (full) return { ...common, credentials: ['api-key', 'session'], concurrencies: numbers(SETTINGS.BENCH_CONCURRENCY), openRates: numbers(SETTINGS.BENCH_OPEN_RATES), openReads: ['pods', 'incidents', 'overview', 'subgraph', 'mcp'] };
  return { ...common, credentials: ['api-key'], concurrencies: [10], openRates: [SETTINGS.BENCH_SCALE_OPEN_RATE], openReads: ['pods'] };
}

/** The same question asked of the API server directly, with the kubeconfig's client certificate. */
async function directFetcher(kubeconfig: string, path: string): Promise<Fetcher> {
  const kc = loadKubeConfig(kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? '';
  const { default: nodeFetch } = await import('node-fetch');
  const init = await kc.applyToFetchOptions({});
  return async () => {
    const res = await nodeFetch(server + path, { ...init, method: 'GET' });
    return new Response(await res.arrayBuffer(), { status: res.status });
  };
}

/** The namespace the scoped reads ask about: the one with the most pods (every namespace has the same shape; ties go by name). */
async function busiestNamespace(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/overview`, { headers });
  if (!res.ok) throw new Error(`/overview answered ${res.status}`);
  const overview = (await res.json()) as { namespaces: { namespace: string; pods_total: number }[] };
  const sorted = [...overview.namespaces].sort((x, y) => y.pods_total - x.pods_total || x.namespace.localeCompare(y.namespace));
  const first = sorted[0];
  if (!first) throw new Error('/overview lists no namespace');
  return first.namespace;
}

/**
 * The posture the security reads answer, read once before they are measured: how many workloads
 * the built-in checks covered and how many findings they gave. Null (and said) when either read
 * is refused; its capture then fails too, and is reported as a failed run.
 */
async function securityAtRun(url: string, headers: Record<string, string>): Promise<SecurityAtRun | null> {
  const [posture, findings] = await Promise.all([fetch(`${url}/security/posture`, { headers }), fetch(`${url}/security/findings?page=1&page_size=1`, { headers })]);
  if (!posture.ok || !findings.ok) {
    say(`security posture not read: /security/posture ${posture.status}, /security/findings ${findings.status}`);
    return null;
  }
  const p = (await posture.json()) as { workloads_covered: number; grade: string; score: number };
  const f = (await findings.json()) as { total: number };
  return { workloads_covered: p.workloads_covered, findings_total: f.total, grade: p.grade, score: p.score };
}

/** The control plane running now, if any: an interrupted or failed run still tears it down. */
let clusterDir: string | null = null;
async function tearDown(): Promise<void> {
  await stopAll();
  if (clusterDir === null) return;
  const dir = clusterDir;
  clusterDir = null;
  const t = performance.now();
  await down(dir).catch((err: unknown) => say(`tearing down ${dir} failed: ${message(err)}`));
  say(`control plane torn down in ${Math.round((performance.now() - t) / 1000)} s`);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping the agent, the floor and the control plane`);
    void tearDown().finally(() => process.exit(130));
  });
}

/**
 * One scale: its control plane (new, or `from`'s grown into it, in `dir`), then a new agent
 * measured on it. The control plane is left running for the next scale; the agent is not.
 */
async function runScale(scenario: string, from: string | null, full: boolean, dir: string, report: BenchReport): Promise<ScaleRun> {
  const run: ScaleRun = { scenario, full, cluster: null, namespace: null, reads: [], ready_secs: null, all_pods_secs: null, pods_seen: null, rss_mib_after_sync: null, rss_mib_samples_after_sync: [], rss_mib_after_load: null, rss_mib_samples_after_load: [], closed: [], open: [], open_skipped: [], capture_failures: [], direct_list: null, security: null, error: null };
  let agent: Started | null = null;
  const phase = (name: string, started: number) => say(`${scenario}: ${name} took ${Math.round((performance.now() - started) / 1000)} s`);
  try {
    let t = performance.now();
    say(`${scenario}: ${from === null ? 'starting a control plane' : `growing the ${from} control plane`}`);
    clusterDir = dir;
    const { cluster, bringUp: b } = await bringUp(scenario, from, dir, SETTINGS.BENCH_SETTLE_TIMEOUT_SECS, (m) => say(`  ${m}`));
    run.cluster = b;
    phase('control plane up and settled', t);

    t = performance.now();
    const snapshotDir = join(dir, `heap-${scenario}`);
    mkdirSync(snapshotDir, { recursive: true });
    agent = await startAgent(cluster.kubeconfig, join(dir, `agent-data-${scenario}`), full ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []);
    const a = agent;
    await waitFor('agent /readyz', async () => (await fetch(`${a.url}/readyz`)).ok, 600_000, 100);
    run.ready_secs = round((performance.now() - a.listeningAt) / 1000);
    const cookie = await signIn(a.url);
    const key = await createApiKey(a.url, cookie);
    const shape = scaleShape(scenario);
    const namespaces = Array.from({ length: shape.namespaces }, (_, i) => namespaceName(i + 1));
    run.pods_seen = await waitForAllPods(a.url, { 'x-api-key': key }, namespaces, PODS_PER_NAMESPACE, 600_000);
    run.all_pods_secs = round((performance.now() - a.listeningAt) / 1000);
    say(`${scenario}: agent ready after ${run.ready_secs} s, lists all ${run.pods_seen} pods after ${run.all_pods_secs} s`);
    const pid = a.child.pid ?? 0;
    // After sync means after the agent's one startup collection (10 s after its informers first
    // synced, runtime/memory.ts), not in the garbage the sync left behind.
    await waitFor('the agent\'s startup garbage collection', () => Promise.resolve(a.collectedAt() !== null), 60_000, 200).catch(() => say(`${scenario}: the agent logged no startup collection within 60 s; sampling RSS anyway`));
    const afterSync = await sampleRss(pid, SETTINGS.BENCH_RSS_SAMPLES, SETTINGS.BENCH_RSS_INTERVAL_MS);
    run.rss_mib_after_sync = afterSync.median;
    run.rss_mib_samples_after_sync = afterSync.samples;
    say(`${scenario}: RSS after sync ${afterSync.median} MiB (${afterSync.samples.join(', ')})`);
    phase('agent sync and RSS', t);

    t = performance.now();
    const apiKey = { 'x-api-key': key };
    run.namespace = await busiestNamespace(a.url, apiKey);
    const wanted = SETTINGS.BENCH_READS.split(',');
    const reads = readsFor(run.namespace).filter((r) => wanted.includes(r.id));
    if (reads.some((r) => r.id === 'posture' || r.id === 'findings')) {
      run.security = await securityAtRun(a.url, apiKey);
      if (run.security) say(`${scenario}: security posture over ${run.security.workloads_covered} workloads, ${run.security.findings_total} findings, grade ${run.security.grade}`);
    }
    run.reads = reads.map((r) => ({ id: r.id, label: r.label }));
    const measured = await measureReads(a.url, reads, { 'api-key': apiKey, session: { cookie } }, plan(full), dir, (m) => say(`${scenario}: ${m}`));
    Object.assign(run, measured);
    phase(full ? 'full measured set' : 'reduced measured set', t);

    if (full && SETTINGS.BENCH_DIRECT_LIST === '1') {
      t = performance.now();
      const path = `/api/v1/namespaces/${run.namespace}/pods`;
      const direct = await directFetcher(cluster.kubeconfig, path);
      const runs = [];
      for (const c of numbers(SETTINGS.BENCH_CONCURRENCY)) runs.push(await closedLoop(direct, c, Math.max(c, SETTINGS.BENCH_LIST_REQUESTS)));
      run.direct_list = { path, runs };
      phase('direct LIST', t);
    }

    const afterLoad = await sampleRss(pid, SETTINGS.BENCH_RSS_SAMPLES, SETTINGS.BENCH_RSS_INTERVAL_MS);
    run.rss_mib_after_load = afterLoad.median;
    run.rss_mib_samples_after_load = afterLoad.samples;
    say(`${scenario}: RSS after the load ${afterLoad.median} MiB (${afterLoad.samples.join(', ')})`);

    // The heap by object type, of the agent just measured, after the load: taken only now, since
    // writing a snapshot raises the RSS of the process that writes it.
    if (full) {
      t = performance.now();
      try {
        const file = await takeHeapSnapshot(pid, snapshotDir);
        const summary = summarizeHeapSnapshotFile(file, HEAP_TOP_TYPES);
        rmSync(file, { force: true });
        report.heap_summary = { ...summary, markdown: heapSummaryMarkdown(summary) };
      } catch (err) {
        say(`heap snapshot failed: ${message(err)}`);
      }
      phase('heap snapshot', t);
    }

    if (full && SETTINGS.BENCH_DASHBOARD === '1') {
      t = performance.now();
      try {
        // The Pods list of a 500-pod namespace: no scenario has one (tenants hold 10), so it is
        // made here, after the API reads were measured, and removed with the control plane.
        const k = { binDir: cluster.binDir, kubeconfig: cluster.kubeconfig };
        await kubectl(['create', 'namespace', BIG_NAMESPACE], k);
        await kubectl(['create', 'deployment', 'bulk', '-n', BIG_NAMESPACE, '--image=ghcr.io/acme/bulk:1.0.0', `--replicas=${BIG_NAMESPACE_PODS}`], k);
        await waitFor(`${BIG_NAMESPACE_PODS} pods of ${BIG_NAMESPACE} listed by the agent`, async () => {
          const res = await fetch(`${a.url}/resources/pods?namespace=${BIG_NAMESPACE}&limit=1`, { headers: apiKey });
          return res.ok && ((await res.json()) as { total: number }).total >= BIG_NAMESPACE_PODS;
        }, 300_000, 2000);
        report.dashboard = await benchDashboard(a.url, 'admin', ADMIN_PASSWORD, BIG_NAMESPACE);
      } catch (err) {
        say(`dashboard benchmark failed: ${message(err)}`);
      }
      phase('dashboard', t);
    }
  } catch (err) {
    run.error = message(err);
    say(`${scenario}: stopped early: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}${agent ? `\nagent log tail: ${agent.log()}` : ''}`);
  } finally {
    await stop(agent);
  }
  return run;
}

function buildUiIfMissing(): void {
  if (existsSync('ui/web/dist/index.html')) return;
  say('building the dashboard (ui/web/dist is missing)');
  const built = spawnSync('npm', ['run', 'build:ui'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (built.status !== 0) say(`dashboard build failed: ${built.stderr.slice(-2000)}`);
}

async function main(): Promise<number> {
  const cpus = (readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm) ?? []).length;
  const report: BenchReport = { generated_at: new Date().toISOString(), machine: `${cpus} CPU, node ${process.version}`, settings: SETTINGS, scales: [], heap_summary: null, history: null, dashboard: null };
  const scales = list('BENCH_SCALES', '1000,5000,20000');
  for (const s of scales) scaleShape(`scale-${s}`);
  const known = readsFor('ns').map((r) => r.id);
  for (const id of SETTINGS.BENCH_READS.split(',')) if (!known.includes(id)) throw new Error(`BENCH_READS: no read ${id} (known: ${known.join(', ')})`);
  if (SETTINGS.BENCH_DASHBOARD === '1' && scales.includes(SETTINGS.BENCH_FULL_SCALE)) buildUiIfMissing();
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
  try {
    let previous: string | null = null;
    for (const s of scales) {
      const scenario = `scale-${s}`;
      const grow = SETTINGS.BENCH_GROW === '1' && previous !== null && scaleShape(previous).namespaces < scaleShape(scenario).namespaces;
      if (!grow) await tearDown();
      const run = await runScale(scenario, grow ? previous : null, s === SETTINGS.BENCH_FULL_SCALE, join(dir, 'cluster'), report);
      report.scales.push(run);
      previous = scenario;
      // A scale that stopped early leaves its control plane in no known state: the next starts anew.
      if (run.error !== null) {
        await tearDown();
        previous = null;
      }
    }
  } finally {
    await tearDown();
    rmSync(dir, { recursive: true, force: true });
  }

  if (SETTINGS.BENCH_HISTORY === '1') {
    const t = performance.now();
    say('history store, 7 days of 5000 pods (synthesized)');
    const history = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'scripts/bench-history.ts', '--pods', '5000', '--days', '7'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    if (history.status === 0) report.history = JSON.parse(history.stdout) as BenchReport['history'];
    else say(`history benchmark failed: ${history.stderr.slice(-2000)}`);
    say(`history took ${Math.round((performance.now() - t) / 1000)} s`);
  }

  if (SETTINGS.BENCH_OBSERVABILITY === '1') {
    const t = performance.now();
    say('guarded PromQL proxy against Prometheus straight');
    const observability = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench-observability.ts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 });
    if (observability.status !== 0) say('observability benchmark failed or had failed runs (tests/bench/observability.md says which)');
    say(`observability took ${Math.round((performance.now() - t) / 1000)} s`);
  }

  mkdirSync(join(OUT_DIR, 'results'), { recursive: true });
  writeFileSync(join(OUT_DIR, 'results/latest.json'), JSON.stringify(report, null, 2) + '\n');
  const readme = join(OUT_DIR, 'README.md');
  const generated = markdownReport(report);
  writeFileSync(readme, withProfileFindings(generated, existsSync(readme) ? readFileSync(readme, 'utf8') : ''));
  process.stdout.write(generated);
  const failed = failures(report);
  say(`done in ${Math.round((performance.now() - began) / 1000)} s; ${failed.length === 0 ? 'no failed runs' : `${failed.length} failed runs:\n  ${failed.join('\n  ')}`}`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
