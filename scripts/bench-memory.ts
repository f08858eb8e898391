// `npm run bench:memory`: the agent's resident memory on the scale-5000 scenario, and
// `/diagnosis` latency there (issue 12). Starts its own local control plane, then runs the
// agent of this tree as a separate process, waits until it is ready and its pod informer holds
// every pod of the scenario, and samples VmRSS from /proc (no forced GC) seven times over 30 s;
// the median is the figure. It then measures the same way, on the same control plane, the agents
// of the commits BENCH_MEMORY_COMPARE lists (comma-separated refs; by default the last commit
// before issue 12's informers and `main`; `none` for none), so the figures differ by the code
// only. Writes tests/bench/results/memory.json and memory.md. Reports, never asserts.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { down, up } from '../runtime/localcluster/cluster.ts';
import { kubectl, waitFor } from '../runtime/localcluster/kubectl.ts';

const PASSWORD = 'bench-memory-admin-password';
const SCENARIO = 'scale-5000';
/** The last commit before issue 12 added the diagnosis informers (the 291 MiB of tests/bench/README.md), and main. */
const DEFAULT_COMPARE = '6380540,main';
const RSS_SAMPLES = 7;
const RSS_INTERVAL_MS = 5000;
const DIAGNOSIS_REQUESTS = Number(process.env.BENCH_DIAGNOSIS_REQUESTS ?? 200);
/** Issue 12: no higher than before the new informers; the standing target is 200 MiB. */
const RSS_CEILING_MIB = 291;
const RSS_TARGET_MIB = 200;
const MARKDOWN = 'tests/bench/results/memory.md';
const NOTES_MARKER = '<!-- notes: kept across runs -->';

const round = (n: number) => Math.round(n * 100) / 100;
const say = (line: string) => process.stderr.write(`bench:memory: ${line}\n`);

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return round(Number(match?.[1] ?? 0) / 1024);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : round(((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2);
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0);
}

interface AgentRun {
  label: string;
  commit: string;
  /** listening → /readyz 200 */
  ready_secs: number;
  /** listening → the pod informer holds every scenario pod (as /overview counts them) */
  all_pods_secs: number;
  pods_seen: number;
  rss_mib_samples: number[];
  rss_mib_median: number;
  diagnosis: DiagnosisLatency | { available: false; reason: string } | null;
  rss_mib_after_diagnosis: number | null;
}

interface DiagnosisLatency {
  available: true;
  requests: number;
  cold_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  root_causes: number | null;
}

interface MemoryReport {
  generated_at: string;
  scenario: string;
  machine: string;
  cluster: Record<string, number>;
  runs: AgentRun[];
}

interface StartedAgent {
  child: ChildProcess;
  url: string;
  listeningAt: number;
  log: () => string;
}

async function startAgentProcess(tree: string, kubeconfig: string, dataDir: string): Promise<StartedAgent> {
  const child = spawn(process.execPath, [join(tree, 'bin/capstan.js'), 'agent', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
    cwd: tree,
    env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Only the tail is kept: the log of a long run must not grow this process.
  let tail = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000);
      const match = /"message":"agent listening","url":"([^"]+)"/.exec(tail);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`agent exited (${String(code)}): ${tail}`)));
  });
  return { child, url, listeningAt: performance.now(), log: () => tail };
}

async function stopAgent(agent: StartedAgent): Promise<void> {
  if (agent.child.exitCode !== null) return;
  const exited = new Promise((r) => agent.child.once('exit', r));
  agent.child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!stopped) agent.child.kill('SIGKILL');
}

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/** Pods the agent holds in visible namespaces, as /overview counts them (cached 30 s there). */
async function podsSeen(url: string, cookie: string): Promise<number> {
  const res = await fetch(`${url}/overview`, { headers: { cookie } });
  if (!res.ok) return -1;
  const body = (await res.json()) as { namespaces: { pods_total: number }[] };
  return body.namespaces.reduce((n, ns) => n + ns.pods_total, 0);
}

async function measureDiagnosis(url: string, cookie: string): Promise<AgentRun['diagnosis']> {
  const first = performance.now();
  const probe = await fetch(`${url}/diagnosis`, { headers: { cookie } });
  const coldMs = performance.now() - first;
  if (probe.status === 404) {
    await probe.body?.cancel();
    return { available: false, reason: 'GET /diagnosis answers 404: the engine is not on this tree yet' };
  }
  if (!probe.ok) throw new Error(`GET /diagnosis answered ${probe.status}: ${(await probe.text()).slice(0, 500)}`);
  const body = (await probe.json()) as { root_causes?: unknown[] };
  const latencies: number[] = [];
  for (let i = 0; i < DIAGNOSIS_REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/diagnosis`, { headers: { cookie } });
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    if (!res.ok) throw new Error(`GET /diagnosis answered ${res.status} on request ${i + 1}: a measured run counts only served answers`);
  }
  return {
    available: true,
    requests: DIAGNOSIS_REQUESTS,
    cold_ms: round(coldMs),
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    max_ms: round(Math.max(...latencies)),
    root_causes: Array.isArray(body.root_causes) ? body.root_causes.length : null,
  };
}

async function measureAgent(label: string, commit: string, tree: string, kubeconfig: string, dataDir: string, expectedPods: number): Promise<AgentRun> {
  say(`${label}: starting the agent of ${commit}`);
  const agent = await startAgentProcess(tree, kubeconfig, dataDir);
  try {
    const pid = agent.child.pid ?? 0;
    await waitFor(`${label} agent /readyz`, async () => (await fetch(`${agent.url}/readyz`)).ok, 300_000, 100);
    const readySecs = round((performance.now() - agent.listeningAt) / 1000);
    const cookie = await signIn(agent.url);
    let seen = 0;
    await waitFor(`${label}: the pod informer to hold all ${expectedPods} pods`, async () => {
      seen = await podsSeen(agent.url, cookie);
      return seen >= expectedPods;
    }, 900_000, 5000).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)} (last count ${seen}); agent log tail: ${agent.log()}`);
    });
    const allPodsSecs = round((performance.now() - agent.listeningAt) / 1000);
    say(`${label}: ready in ${readySecs}s, all ${seen} pods after ${allPodsSecs}s; sampling RSS`);
    const samples: number[] = [];
    for (let i = 0; i < RSS_SAMPLES; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, RSS_INTERVAL_MS));
      samples.push(rssMiB(pid));
    }
    const run: AgentRun = { label, commit, ready_secs: readySecs, all_pods_secs: allPodsSecs, pods_seen: seen, rss_mib_samples: samples, rss_mib_median: median(samples), diagnosis: null, rss_mib_after_diagnosis: null };
    if (label === 'this tree') {
      say(`${label}: ${DIAGNOSIS_REQUESTS} sequential GET /diagnosis`);
      run.diagnosis = await measureDiagnosis(agent.url, cookie);
      if (run.diagnosis?.available) run.rss_mib_after_diagnosis = rssMiB(pid);
    }
    say(`${label}: RSS median ${run.rss_mib_median} MiB (${samples.join(', ')})`);
    return run;
  } finally {
    await stopAgent(agent);
  }
}

/** A commit's files, with this tree's node_modules (the dependencies did not change). */
function checkout(commit: string, into: string): string {
  const tree = join(into, `capstan-${commit}`);
  mkdirSync(tree, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], { maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', tree], { input: archive });
  symlinkSync(resolve('node_modules'), join(tree, 'node_modules'));
  return tree;
}

async function countObjects(k: { kubeconfig: string; binDir: string }): Promise<Record<string, number>> {
  const count = async (args: string[]) => (await kubectl(['get', ...args, '-o', 'name'], { ...k, timeoutMs: 300_000 })).split('\n').filter((l) => l.trim() !== '').length;
  return {
    namespaces: await count(['namespaces']),
    nodes: await count(['nodes']),
    pods: await count(['pods', '-A']),
    events: await count(['events', '-A']),
    replicasets: await count(['replicasets', '-A']),
    services: await count(['services', '-A']),
    endpointslices: await count(['endpointslices', '-A']),
    node_leases: await count(['leases', '-n', 'kube-node-lease']),
  };
}

function markdown(report: MemoryReport): string {
  const lines = [
    '# Agent memory on scale-5000',
    '',
    `\`npm run bench:memory\` on the \`${report.scenario}\` scenario, ${report.machine}; generated ${report.generated_at}.`,
    `This tree's agent, then the agent of each compared commit (\`${DEFAULT_COMPARE.split(',')[0] ?? ''}\` is the last commit before issue 12's informers), each ran`,
    `as its own process against the same local control plane, one after the other. RSS is VmRSS from`,
    `/proc, sampled ${RSS_SAMPLES} times ${RSS_INTERVAL_MS / 1000} s apart once the agent was ready and its pod informer held every`,
    'scenario pod (no GC forced); the figure is the median. Raw numbers: `results/memory.json`.',
    '',
    `Cluster at the end of the run: ${Object.entries(report.cluster).map(([k, v]) => `${v} ${k.replace('_', ' ')}`).join(', ')}.`,
    '',
    '| agent | commit | ready | all pods held | RSS median | RSS samples (MiB) |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of report.runs) lines.push(`| ${r.label} | \`${r.commit}\` | ${r.ready_secs} s | ${r.all_pods_secs} s (${r.pods_seen}) | **${r.rss_mib_median} MiB** | ${r.rss_mib_samples.join(', ')} |`);
  const current = report.runs.find((r) => r.label === 'this tree');
  const others = report.runs.filter((r) => r !== current);
  lines.push('', '| measure | value | bound |', '|---|---|---|');
  if (current) {
    const met = current.rss_mib_median <= RSS_CEILING_MIB;
    lines.push(`| agent RSS after sync | ${current.rss_mib_median} MiB | ≤ ${RSS_CEILING_MIB} MiB (issue 12): ${met ? 'met' : '**not met**'}; target ≤ ${RSS_TARGET_MIB} MiB: ${current.rss_mib_median <= RSS_TARGET_MIB ? 'met' : '**not met**'} |`);
    for (const other of others) lines.push(`| the same, ${other.label} (\`${other.commit}\`) | ${other.rss_mib_median} MiB | this tree ${round(current.rss_mib_median - other.rss_mib_median)} MiB against it |`);
    const d = current.diagnosis;
    if (d?.available) {
      lines.push(`| \`GET /diagnosis\` p50 / p99 (${d.requests} sequential, admin session) | ${d.p50_ms} / ${d.p99_ms} ms (max ${d.max_ms}, first ${d.cold_ms}) | |`);
      lines.push(`| agent RSS after the /diagnosis run | ${current.rss_mib_after_diagnosis ?? '–'} MiB | |`);
    } else {
      lines.push(`| \`GET /diagnosis\` | not measured: ${d?.reason ?? 'not run'} | |`);
    }
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const compare = (process.env.BENCH_MEMORY_COMPARE ?? DEFAULT_COMPARE).split(',').map((r) => r.trim()).filter((r) => r !== '' && r !== 'none');
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-memory-'));
  const cpus = (readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm) ?? []).length;
  const report: MemoryReport = { generated_at: new Date().toISOString(), scenario: SCENARIO, machine: `${cpus} CPU, node ${process.version}`, cluster: {}, runs: [] };
  try {
    say(`starting the ${SCENARIO} control plane (a few minutes)`);
    const cluster = await up({ dir, scenario: SCENARIO, progress: (m) => say(m) });
    const k = { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir };
    const deployments = JSON.parse(await kubectl(['get', 'deployments', '-A', '-o', 'json'], { ...k, timeoutMs: 300_000 })) as { items: { metadata: { namespace: string }; spec: { replicas?: number } }[] };
    // Every scenario pod lives in a tenant namespace, all of which the agent shows.
    const expectedPods = deployments.items.filter((d) => d.metadata.namespace.startsWith('tenant-')).reduce((n, d) => n + (d.spec.replicas ?? 1), 0);
    say(`the scenario asks for ${expectedPods} pods`);
    report.runs.push(await measureAgent('this tree', dirty ? `${head}+changes` : head, resolve('.'), cluster.kubeconfig, join(dir, 'agent-data'), expectedPods));
    for (const ref of compare) {
      const commit = execFileSync('git', ['rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
      report.runs.push(await measureAgent(ref, commit, checkout(commit, dir), cluster.kubeconfig, join(dir, `data-${commit}`), expectedPods));
    }
    report.cluster = await countObjects(k);
  } finally {
    await down(dir);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync('tests/bench/results', { recursive: true });
  writeFileSync('tests/bench/results/memory.json', JSON.stringify(report, null, 2) + '\n');
  // Hand-written notes below the marker (what the figures mean, how they were profiled) survive a rerun.
  const previous = existsSync(MARKDOWN) ? readFileSync(MARKDOWN, 'utf8') : '';
  const notes = previous.includes(NOTES_MARKER) ? previous.slice(previous.indexOf(NOTES_MARKER)) : `${NOTES_MARKER}\n`;
  writeFileSync(MARKDOWN, `${markdown(report)}\n${notes}`);
  process.stdout.write(markdown(report));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:memory failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
