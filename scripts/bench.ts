// `npm run bench`: the read-path benchmark of issue 4 on the scale-5000 scenario. Starts its
// own local control plane and an agent process, measures, writes
// tests/bench/results/latest.json and the markdown table in tests/bench/README.md, and
// tears everything down. Targets are reported, never asserted: this is not a test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeConfig } from '../runtime/kube/client.ts';
import { down, up } from '../runtime/localcluster/cluster.ts';
import { waitFor } from '../runtime/localcluster/kubectl.ts';
import { benchDashboard } from './bench-dashboard.ts';
import { markdownReport, type BenchReport, type LoadResult } from './bench-report.ts';
import { closedLoop as load, type Fetcher } from './bench-load.ts';

const PASSWORD = 'bench-admin-password';
const CONCURRENCY = [1, 10, 50] as const;
const REQUESTS_PER_LEVEL = Number(process.env.BENCH_REQUESTS ?? 2000);
const LIST_REQUESTS_PER_LEVEL = Number(process.env.BENCH_LIST_REQUESTS ?? 100);

const round = (n: number) => Math.round(n * 100) / 100;

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return round(Number(match?.[1] ?? 0) / 1024);
}

async function startAgentProcess(kubeconfig: string, dataDir: string): Promise<{ child: ChildProcess; url: string; startedAt: number; listeningAt: number }> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['bin/capstan.js', 'agent', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
    env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD, CAPSTAN_MAX_IN_FLIGHT: '1024' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"message":"agent listening","url":"([^"]+)"/.exec(log);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`agent exited (${String(code)}): ${log.slice(-2000)}`)));
  });
  return { child, url, startedAt, listeningAt: performance.now() };
}

/** The same question asked of the API server directly, with the kubeconfig's client certificate. */
async function directFetcher(kubeconfig: string, path: string): Promise<Fetcher> {
  const kc = loadKubeConfig(kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? '';
  const { default: nodeFetch } = await import('node-fetch');
  const init = await kc.applyToFetchOptions({});
  return async () => {
    const res = await nodeFetch(server + path, { ...init, method: 'GET' });
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status });
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-'));
  const report: BenchReport = { generated_at: new Date().toISOString(), scenario: 'scale-5000', machine: `${String(os().cpus)} CPU, node ${process.version}`, endpoints: [], rss_mib_after_sync: 0, rss_mib_after_load: 0, cold_sync_secs: 0, history: null, dashboard: null, subgraph: [] };
  let agent: ChildProcess | null = null;
  try {
    process.stderr.write('bench: starting the scale-5000 control plane (about two minutes)\n');
    const cluster = await up({ dir, scenario: 'scale-5000', progress: (m) => process.stderr.write(`  ${m}\n`) });
    const a = await startAgentProcess(cluster.kubeconfig, join(dir, 'agent-data'));
    agent = a.child;
    await waitFor('agent /readyz', async () => (await fetch(`${a.url}/readyz`)).ok, 120_000, 100);
    report.cold_sync_secs = round((performance.now() - a.listeningAt) / 1000);
    const login = await fetch(`${a.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const key = ((await (await fetch(`${a.url}/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', scopes: ['workloads:read', 'topology:read'] }) })).json()) as { key: string }).key;

    // Let KWOK finish moving pods to Running, so the numbers are about a settled cluster.
    let lastRunning = -1;
    await waitFor('pods to settle', async () => {
      const overview = (await (await fetch(`${a.url}/overview`, { headers: { 'x-api-key': key } })).json()) as { namespaces: { pods_running: number }[] };
      await new Promise((r) => setTimeout(r, 31_000)); // past the overview cache
      const running = overview.namespaces.reduce((n, ns) => n + ns.pods_running, 0);
      const settled = running === lastRunning;
      lastRunning = running;
      return settled;
    }, 600_000, 0);
    report.rss_mib_after_sync = rssMiB(a.child.pid ?? 0);

    const namespaces = (await (await fetch(`${a.url}/overview`, { headers: { 'x-api-key': key } })).json()) as { namespaces: { namespace: string; pods_total: number }[] };
    const busiest = [...namespaces.namespaces].sort((x, y) => y.pods_total - x.pods_total)[0]?.namespace ?? 'default';
    // The agent is asked with an API key: the credential path a script or the MCP server takes.
    const agentGet = (path: string): Fetcher => () => fetch(a.url + path, { headers: { 'x-api-key': key } });
    const questions = [
      { endpoint: '/overview', direct: '/api/v1/pods' },
      { endpoint: '/incidents', direct: '/api/v1/pods' },
      { endpoint: `/namespaces/${busiest}/pods`, direct: `/api/v1/namespaces/${busiest}/pods` },
    ];
    for (const q of questions) {
      const agentLevels: LoadResult[] = [];
      const directLevels: LoadResult[] = [];
      const direct = await directFetcher(cluster.kubeconfig, q.direct);
      for (const c of CONCURRENCY) {
        process.stderr.write(`bench: ${q.endpoint} at concurrency ${c}\n`);
        agentLevels.push(await load(agentGet(q.endpoint), c, REQUESTS_PER_LEVEL));
        directLevels.push(await load(direct, c, Math.max(c, LIST_REQUESTS_PER_LEVEL)));
      }
      report.endpoints.push({ endpoint: q.endpoint, direct_list: q.direct, agent: agentLevels, direct: directLevels });
    }
    // The cluster model has no direct-LIST equivalent: the agent's own numbers only.
    const focus = encodeURIComponent(`namespace:${busiest}`);
    const subgraphLevels: LoadResult[] = [];
    report.subgraph = subgraphLevels;
    for (const c of CONCURRENCY) {
      process.stderr.write(`bench: /graph/subgraph (2 hops, 4k tokens) at concurrency ${c}\n`);
      subgraphLevels.push(await load(agentGet(`/graph/subgraph?focus=${focus}&hops=2&budget=4000`), c, REQUESTS_PER_LEVEL));
    }
    report.rss_mib_after_load = rssMiB(a.child.pid ?? 0);
    process.stderr.write('bench: dashboard bundle and cold load of /overview in chromium\n');
    try {
      report.dashboard = await benchDashboard(a.url, 'admin', PASSWORD);
    } catch (err) {
      process.stderr.write(`bench: dashboard benchmark failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  } finally {
    agent?.kill('SIGTERM');
    await down(dir);
    rmSync(dir, { recursive: true, force: true });
  }

  process.stderr.write('bench: history store, 7 days of 5000 pods (synthesized)\n');
  const history = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'scripts/bench-history.ts', '--pods', '5000', '--days', '7'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (history.status === 0) report.history = JSON.parse(history.stdout) as BenchReport['history'];
  else process.stderr.write(`bench: history benchmark failed: ${history.stderr.slice(-2000)}\n`);

  mkdirSync('tests/bench/results', { recursive: true });
  writeFileSync('tests/bench/results/latest.json', JSON.stringify(report, null, 2) + '\n');
  writeFileSync('tests/bench/README.md', markdownReport(report));
  process.stdout.write(markdownReport(report));
}

function os(): { cpus: number } {
  return { cpus: (readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm) ?? []).length };
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
