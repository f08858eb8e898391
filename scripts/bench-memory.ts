// `npm run bench:memory`: the agent's resident memory on the scale-5000 scenario, and
// `/diagnosis` latency there (issues 12 and 13). Starts its own local control plane, then runs
// the agent of this tree as a separate process, waits until it is ready and its pod informer
// holds every pod of the scenario, and samples VmRSS from /proc (no forced GC) seven times over
// 30 s; the median is the figure. For this tree it then records where that memory is (files,
// malloc arena, the rest), runs a load phase (BENCH_MEMORY_LOAD_REQUESTS mixed GETs with an API
// key, 5000 by default) and samples RSS again, times /diagnosis, and finally starts the agent
// once more to write a heap snapshot after sync, summarized by object type (a snapshot raises
// the RSS of the process that writes it, so it is never taken in the measured one). It then
// measures the agents of the commits BENCH_MEMORY_COMPARE lists (comma-separated refs; by
// default the last commit before issue 13; `none` for none) the same way on the same control
// plane, so the figures differ by the code only. Writes tests/bench/results/memory.json and
// memory.md. Reports, never asserts.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { down, up } from '../dev/localcluster/cluster.ts';
import { kubectl, waitFor } from '../dev/localcluster/kubectl.ts';
import { median, rssMiB } from './bench-agent.ts';
import { percentile } from './bench-load.ts';
import { loadPhase, rssComposition, takeHeapSnapshot, type LoadPhase, type RssComposition } from './bench-memory-probes.ts';
import { heapSummaryMarkdown, summarizeHeapSnapshotFile, type HeapSummary } from './heap-summary.ts';

const PASSWORD = 'bench-memory-admin-password';
const SCENARIO = 'scale-5000';
/** The last commit before issue 13's memory work. */
const DEFAULT_COMPARE = '3aedf7d';
const RSS_SAMPLES = 7;
const RSS_INTERVAL_MS = 5000;
const DIAGNOSIS_REQUESTS = Number(process.env.BENCH_DIAGNOSIS_REQUESTS ?? 200);
const LOAD_REQUESTS = Number(process.env.BENCH_MEMORY_LOAD_REQUESTS ?? 5000);
const LOAD_RSS_SAMPLES = 3;
/** Issue 13: serving a load may grow RSS, but not past 1.5 times what the agent held after sync. */
const LOAD_RSS_RATIO_BOUND = 1.5;
const HEAP_TOP_TYPES = 15;
/** Issue 12: no higher than before the new informers; the standing target is 200 MiB. */
const RSS_CEILING_MIB = 291;
const RSS_TARGET_MIB = 200;
const MARKDOWN = 'tests/bench/results/memory.md';
const NOTES_MARKER = '<!-- notes: kept across runs -->';

const round = (n: number) => Math.round(n * 100) / 100;
const say = (line: string) => process.stderr.write(`bench:memory: ${line}\n`);

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
  /** This tree only: where the RSS was at the last sample after sync. */
  composition_after_sync: RssComposition | null;
  load: LoadPhase | null;
  /** Sampled 2 s apart right after the load phase; the median is the figure. */
  rss_mib_after_load_samples: number[] | null;
  rss_mib_after_load: number | null;
  /** What the agent logged about its startup collection, when it did. */
  startup_collection: Record<string, unknown> | null;
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
  /** A second start of this tree's agent: its heap after sync by object type. */
  heap_after_sync: (HeapSummary & { rss_mib_before_snapshot: number }) | null;
}

interface StartedAgent {
  child: ChildProcess;
  url: string;
  listeningAt: number;
  log: () => string;
  collection: () => Record<string, unknown> | null;
}

async function startAgentProcess(tree: string, kubeconfig: string, dataDir: string, nodeArgs: string[] = []): Promise<StartedAgent> {
  const child = spawn(process.execPath, [...nodeArgs, join(tree, 'bin/capstan.js'), 'agent', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', dataDir], {
    cwd: tree,
    // The read limit lifted by configuration, as `npm run bench` does: the load phase and the /diagnosis run measure the agent, not its limiter.
    env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD, CAPSTAN_RATE_LIMITS: 'read=10000000' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Only the tail is kept: the log of a long run must not grow this process.
  let tail = '';
  let collection: Record<string, unknown> | null = null;
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8000);
      const logged = /\{[^\n]*"message":"startup garbage collected"[^\n]*\}/.exec(tail);
      if (logged) collection = JSON.parse(logged[0]) as Record<string, unknown>;
      const match = /"message":"agent listening","url":"([^"]+)"/.exec(tail);
      if (match?.[1]) resolveUrl(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`agent exited (${String(code)}): ${tail}`)));
  });
  return { child, url, listeningAt: performance.now(), log: () => tail, collection: () => collection };
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
  const sorted = latencies.sort((x, y) => x - y);
  return {
    available: true,
    requests: DIAGNOSIS_REQUESTS,
    cold_ms: round(coldMs),
    p50_ms: percentile(sorted, 0.5) ?? 0,
    p99_ms: percentile(sorted, 0.99) ?? 0,
    max_ms: round(Math.max(...latencies)),
    root_causes: Array.isArray(body.root_causes) ? body.root_causes.length : null,
  };
}

/** Starts an agent and waits until it is ready and holds every scenario pod. */
async function startSynced(label: string, tree: string, kubeconfig: string, dataDir: string, expectedPods: number, nodeArgs: string[] = []) {
  const agent = await startAgentProcess(tree, kubeconfig, dataDir, nodeArgs);
  try {
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
    return { agent, pid: agent.child.pid ?? 0, cookie, seen, readySecs, allPodsSecs: round((performance.now() - agent.listeningAt) / 1000) };
  } catch (err) {
    await stopAgent(agent);
    throw err;
  }
}

async function sampleRss(pid: number, count: number, intervalMs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, intervalMs));
    samples.push(rssMiB(pid));
  }
  return samples;
}

async function measureAgent(label: string, commit: string, tree: string, kubeconfig: string, dataDir: string, expectedPods: number): Promise<AgentRun> {
  say(`${label}: starting the agent of ${commit}`);
  const { agent, pid, cookie, seen, readySecs, allPodsSecs } = await startSynced(label, tree, kubeconfig, dataDir, expectedPods);
  try {
    say(`${label}: ready in ${readySecs}s, all ${seen} pods after ${allPodsSecs}s; sampling RSS`);
    const samples = await sampleRss(pid, RSS_SAMPLES, RSS_INTERVAL_MS);
    const run: AgentRun = {
      label,
      commit,
      ready_secs: readySecs,
      all_pods_secs: allPodsSecs,
      pods_seen: seen,
      rss_mib_samples: samples,
      rss_mib_median: median(samples),
      diagnosis: null,
      rss_mib_after_diagnosis: null,
      composition_after_sync: null,
      load: null,
      rss_mib_after_load_samples: null,
      rss_mib_after_load: null,
      startup_collection: agent.collection(),
    };
    if (label === 'this tree') {
      run.composition_after_sync = rssComposition(pid);
      say(`${label}: load phase, ${LOAD_REQUESTS} sequential GETs with an API key`);
      run.load = await loadPhase(agent.url, cookie, LOAD_REQUESTS);
      run.rss_mib_after_load_samples = await sampleRss(pid, LOAD_RSS_SAMPLES, 2000);
      run.rss_mib_after_load = median(run.rss_mib_after_load_samples);
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

/** This tree's agent once more, synced, writing one heap snapshot; summarized, then deleted. */
async function heapAfterSync(tree: string, kubeconfig: string, dataDir: string, snapshotDir: string, expectedPods: number): Promise<MemoryReport['heap_after_sync']> {
  say('this tree: a second start for a heap snapshot after sync');
  mkdirSync(snapshotDir, { recursive: true });
  const { agent, pid } = await startSynced('heap snapshot', tree, kubeconfig, dataDir, expectedPods, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`]);
  try {
    const rssBefore = rssMiB(pid);
    const file = await takeHeapSnapshot(pid, snapshotDir);
    try {
      return { ...summarizeHeapSnapshotFile(file, HEAP_TOP_TYPES), rss_mib_before_snapshot: rssBefore };
    } finally {
      rmSync(file, { force: true });
    }
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
  const current = report.runs.find((r) => r.label === 'this tree');
  const others = report.runs.filter((r) => r !== current);
  const lines = [
    '# Agent memory on scale-5000',
    '',
    `\`npm run bench:memory\` on the \`${report.scenario}\` scenario, ${report.machine}; generated ${report.generated_at}.`,
    `This tree's agent${others.length > 0 ? `, then the agent of each compared commit (${others.map((o) => `\`${o.label}\``).join(', ')}),` : ''} ran`,
    `as its own process against a local control plane, one after the other. RSS is VmRSS from`,
    `/proc, sampled ${RSS_SAMPLES} times ${RSS_INTERVAL_MS / 1000} s apart once the agent was ready and its pod informer held every`,
    'scenario pod (no GC forced from outside); the figure is the median. Raw numbers: `results/memory.json`.',
    '',
    `Cluster at the end of the run: ${Object.entries(report.cluster).map(([k, v]) => `${v} ${k.replace('_', ' ')}`).join(', ')}.`,
    '',
    '| agent | commit | ready | all pods held | RSS median | RSS samples (MiB) |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of report.runs) lines.push(`| ${r.label} | \`${r.commit}\` | ${r.ready_secs} s | ${r.all_pods_secs} s (${r.pods_seen}) | **${r.rss_mib_median} MiB** | ${r.rss_mib_samples.join(', ')} |`);
  lines.push('', '| measure | value | bound |', '|---|---|---|');
  if (current) {
    const met = (ok: boolean) => (ok ? 'met' : '**not met**');
    lines.push(`| agent RSS after sync | ${current.rss_mib_median} MiB | ≤ ${RSS_TARGET_MIB} MiB (issue 13): ${met(current.rss_mib_median <= RSS_TARGET_MIB)}; ≤ ${RSS_CEILING_MIB} MiB (issue 12): ${met(current.rss_mib_median <= RSS_CEILING_MIB)} |`);
    for (const other of others) lines.push(`| the same, ${other.label} (\`${other.commit}\`) | ${other.rss_mib_median} MiB | this tree ${round(current.rss_mib_median - other.rss_mib_median)} MiB against it |`);
    const c = current.composition_after_sync;
    if (c) lines.push(`| where it was (last sample) | ${c.rss_mib} MiB: files ${c.file_mib} (the node binary, libsql), anonymous ${c.anonymous_mib}, of which the malloc arena ${c.malloc_arena_mib} | |`);
    const gc = current.startup_collection;
    if (gc) lines.push(`| the agent's startup collection | pause ${String(gc.pauseMs)} ms; heap used ${JSON.stringify(gc.heapUsedMiB)} MiB, heap total ${JSON.stringify(gc.heapTotalMiB)} MiB | |`);
    const load = current.load;
    if (load && current.rss_mib_after_load !== null) {
      const ratio = round(current.rss_mib_after_load / current.rss_mib_median);
      const statuses = Object.entries(load.statuses).map(([k, v]) => `${v}× ${k}`).join(', ');
      lines.push(`| load phase | ${load.requests} sequential GETs (${load.paths.join(', ')}) with an API key in ${load.duration_secs} s: ${statuses}${load.served ? `; p50 / p99 ${String(load.p50_ms)} / ${String(load.p99_ms)} ms` : ' (errors: no latency figures)'} | |`);
      lines.push(`| agent RSS after the load phase | ${current.rss_mib_after_load} MiB (${(current.rss_mib_after_load_samples ?? []).join(', ')}), ${ratio}× after sync | ≤ ${LOAD_RSS_RATIO_BOUND}× (issue 13): ${met(ratio <= LOAD_RSS_RATIO_BOUND)} |`);
    }
    const d = current.diagnosis;
    if (d?.available) {
      lines.push(`| \`GET /diagnosis\` p50 / p99 (${d.requests} sequential, admin session, after the load) | ${d.p50_ms} / ${d.p99_ms} ms (max ${d.max_ms}, first ${d.cold_ms}) | |`);
      lines.push(`| agent RSS after the /diagnosis run | ${current.rss_mib_after_diagnosis ?? '–'} MiB | |`);
    } else {
      lines.push(`| \`GET /diagnosis\` | not measured: ${d?.reason ?? 'not run'} | |`);
    }
  }
  const heap = report.heap_after_sync;
  if (heap) {
    const mib = (bytes: number) => round(bytes / 1048576);
    lines.push(
      '',
      '## Heap after sync, by object type',
      '',
      `A second start of this tree's agent, synced (RSS ${heap.rss_mib_before_snapshot} MiB), wrote a heap snapshot (V8 collects`,
      `garbage first: live objects only). Self sizes, the top ${HEAP_TOP_TYPES} types (\`scripts/heap-summary.ts\`). The live heap is`,
      `${mib(heap.total_bytes)} MiB, ${mib(heap.native_bytes)} MiB of it ArrayBuffer contents outside V8's heap; by kind: ${heap.by_node_type.filter((r) => r.self_bytes >= 10 * 1024).map((r) => `${r.type} ${mib(r.self_bytes)}`).join(', ')} MiB.`,
      '',
      heapSummaryMarkdown(heap).trimEnd(),
    );
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const compare = (process.env.BENCH_MEMORY_COMPARE ?? DEFAULT_COMPARE).split(',').map((r) => r.trim()).filter((r) => r !== '' && r !== 'none');
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-memory-'));
  const cpus = (readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm) ?? []).length;
  const report: MemoryReport = { generated_at: new Date().toISOString(), scenario: SCENARIO, machine: `${cpus} CPU, node ${process.version}`, cluster: {}, runs: [], heap_after_sync: null };
  try {
    say(`starting the ${SCENARIO} control plane (a few minutes)`);
    const cluster = await up({ dir, scenario: SCENARIO, progress: (m) => say(m) });
    const k = { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir };
    const deployments = JSON.parse(await kubectl(['get', 'deployments', '-A', '-o', 'json'], { ...k, timeoutMs: 300_000 })) as { items: { metadata: { namespace: string }; spec: { replicas?: number } }[] };
    // Every scenario pod lives in a tenant namespace, all of which the agent shows.
    const expectedPods = deployments.items.filter((d) => d.metadata.namespace.startsWith('tenant-')).reduce((n, d) => n + (d.spec.replicas ?? 1), 0);
    say(`the scenario asks for ${expectedPods} pods`);
    report.runs.push(await measureAgent('this tree', dirty ? `${head}+changes` : head, resolve('.'), cluster.kubeconfig, join(dir, 'agent-data'), expectedPods));
    report.heap_after_sync = await heapAfterSync(resolve('.'), cluster.kubeconfig, join(dir, 'heap-data'), join(dir, 'snapshots'), expectedPods);
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
