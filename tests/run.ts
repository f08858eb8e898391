// The suite's entry point (`npm test`; `npm test -- --tier unit|cluster|browser` for one tier,
// `npm test -- <files>` for some files). Node 20's test runner has no global setup, so this
// prepares what the files need and runs them:
// - unit files start at once, while the tools are built and the ONE shared control plane (the
//   demo scenario, the same code as `capstan localcluster up`) comes up;
// - every other file starts as soon as what it imports is ready (tests/support/run-plan.ts),
//   the files that share the control plane one at a time, anything else beside them;
// - each file is its own process, its output printed whole when it ends;
// - at the end: the tier times, the 15 slowest files (durations also in
//   test-results/durations.json), every failure, and one `tests: N passed, N failed` line.
// The control plane is always torn down.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ensureControlPlaneBinaries } from '../dev/localcluster/binaries.ts';
import { down, up } from '../dev/localcluster/cluster.ts';
import { scenarioLogs } from './diagnosis/scenario.ts';
import { TEST_CLUSTER_LOGS } from './support/cluster-logs.ts';
import { needsOfFile, nextFile, sharesCluster, report, tierOf, TIERS, type FileResult, type Need, type PlannedFile, type Tier } from './support/run-plan.ts';

const ROOT = join(import.meta.dirname, '..');
const CACHE = process.env.CAPSTAN_CACHE_DIR ?? join(homedir(), '.cache', 'capstan');
const HISTORY = join(CACHE, 'test-durations.json');
const RESULTS = join(ROOT, 'test-results', 'durations.json');
/** Test files running at once; the cluster's files are one of them at most. */
const JOBS = Math.max(1, Number(process.env.CAPSTAN_TEST_JOBS ?? 3));
/** A file's whole run is bounded: the longest file (the diagnosis scenarios) takes about four minutes; 15 still catches a hang. */
const FILE_TIMEOUT_MS = 900_000;

const started = Date.now();
const elapsed = (from = started) => (Date.now() - from) / 1000;
const say = (line: string) => process.stderr.write(`[test ${elapsed().toFixed(0).padStart(4)}s] ${line}\n`);

// ---- which files -------------------------------------------------------------------------
const args = process.argv.slice(2);
const tiers = new Set<Tier>();
const named: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? '';
  if (arg === '--tier') {
    const tier = args[++i] as Tier;
    if (!TIERS.includes(tier)) throw new Error(`--tier takes one of ${TIERS.join(', ')}`);
    tiers.add(tier);
  } else named.push(arg);
}
const allFiles = readdirSync(join(ROOT, 'tests'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('tests', f))
  .sort();
const chosen = (named.length > 0 ? named : allFiles).filter((f) => tiers.size === 0 || tiers.has(tierOf(f)));
let history: Record<string, number> = {};
try {
  history = JSON.parse(readFileSync(HISTORY, 'utf8')) as Record<string, number>;
} catch {
  // First run on this machine: no order to learn from yet.
}
/** A repository file's source; '' for one that is not there (a JSON import, say): it imports nothing. */
const readSource = (path: string): string => {
  try {
    return readFileSync(join(ROOT, path), 'utf8');
  } catch {
    return '';
  }
};
const pending: PlannedFile[] = chosen.map((file) => ({ file, tier: tierOf(file), needs: needsOfFile(file, readSource), sharesCluster: sharesCluster(readSource(file)), expectedSecs: history[file] ?? 0 }));
const wanted = new Set<Need>(pending.flatMap((f) => f.needs));

// ---- preparation: two chains, Go builds (CPU) and Debian packages (network, apt's one lock) --
const ready = new Set<Need>();
const failedSteps = new Map<Need, string>();
const stepSecs: Record<string, number> = {};
const clusterDir = mkdtempSync(join(tmpdir(), 'capstan-test-cluster-'));
let clusterEnv: Record<string, string> = {};
/** Set once `up` has been called: from then on the cluster is torn down, whatever happened. */
const clusterState = { started: false };
let wake: () => void = () => undefined;

function script(path: string, scriptArgs: string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(ROOT, path), ...scriptArgs], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      // Progress lines pass through; a long build says what it is doing.
      for (const line of chunk.toString().split('\n')) if (/^\[[\w-]+\]/.test(line)) say(line);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path} exited ${code ?? 'on a signal'}: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
}

const STEPS: Record<Need, () => Promise<void>> = {
  binaries: async () => {
    await ensureControlPlaneBinaries();
  },
  cluster: async () => {
    clusterState.started = true;
    const cluster = await up({ dir: clusterDir, scenario: 'demo', namespacedLogs: [...scenarioLogs(), ...TEST_CLUSTER_LOGS], progress: (line) => say(`[cluster] ${line}`) });
    clusterEnv = { CAPSTAN_TEST_KUBECONFIG: cluster.kubeconfig, CAPSTAN_TEST_BIN_DIR: cluster.binDir, CAPSTAN_TEST_CLUSTER_DIR: clusterDir };
  },
  chromium: () => script('scripts/ensure-browser.sh'),
  slapd: () => script('scripts/ensure-slapd.sh'),
  simplesamlphp: () => script('scripts/ensure-simplesamlphp.sh'),
  registry: () => script('scripts/ensure-registry.sh'),
  prometheus: () => script('scripts/ensure-prometheus.sh'),
  dex: () => script('scripts/build-dex.sh'),
  samlidp: () => script('scripts/build-samlidp.sh'),
  trivy: () => script('scripts/build-trivy.sh', ['db']),
  promtool: () => script('scripts/build-promtool.sh'),
};
const CHAINS: Need[][] = [
  ['binaries', 'cluster', 'dex', 'samlidp', 'trivy', 'promtool'],
  ['chromium', 'slapd', 'simplesamlphp', 'registry', 'prometheus'],
];

async function runChain(chain: Need[]): Promise<void> {
  for (const need of chain) {
    if (!wanted.has(need) || failedSteps.has(need)) continue;
    const from = Date.now();
    say(`preparing ${need}`);
    try {
      await STEPS[need]();
      ready.add(need);
      say(`${need} ready in ${elapsed(from).toFixed(1)}s`);
    } catch (err) {
      failedSteps.set(need, err instanceof Error ? err.message : String(err));
      say(`${need} FAILED: ${failedSteps.get(need) ?? ''}`);
      // What comes after the cluster in its chain does not depend on it.
      if (need === 'binaries') failedSteps.set('cluster', 'the control-plane build failed');
    }
    stepSecs[need] = elapsed(from);
    wake();
  }
}

// ---- running files -----------------------------------------------------------------------
function runFile(planned: PlannedFile): Promise<FileResult> {
  const from = Date.now();
  const countsFile = join(clusterDir, `counts-${planned.file.replaceAll('/', '_')}.json`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import', 'tsx', '--import', './tests/support/fast-check-seed.ts', '--test', `--test-timeout=${FILE_TIMEOUT_MS}`,
        '--test-reporter=tap', '--test-reporter-destination=stdout',
        '--test-reporter=./tests/support/counts-reporter.js', `--test-reporter-destination=${countsFile}`,
        planned.file,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(planned.needs.includes('cluster') ? clusterEnv : {}) } },
    );
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('close', (code) => {
      const secs = elapsed(from);
      process.stdout.write(`\n# ---- ${planned.file} (${secs.toFixed(1)} s, exit ${code ?? 'signal'}) ----\n${Buffer.concat(out).toString()}`);
      let counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] };
      try {
        counts = JSON.parse(readFileSync(countsFile, 'utf8')) as typeof counts;
      } catch {
        // The process died before its reporter wrote: counted below as the file's failure.
      }
      if (code !== 0 && counts.failed === 0) counts = { ...counts, failed: 1, failures: [`${planned.file} :: (the file) :: exited ${code ?? 'on a signal'} without a failed test; see its output`] };
      resolve({ file: planned.file, tier: planned.tier, secs, ...counts });
    });
  });
}

const results: FileResult[] = [];
const tierStart: Partial<Record<Tier, number>> = {};
const tierEnd: Partial<Record<Tier, number>> = {};
let exitCode = 1;
try {
  say(`${pending.length} files; preparing ${[...wanted].join(', ') || 'nothing'}; ${JOBS} at once`);
  const chains = CHAINS.map(runChain);
  const running = new Set<Promise<void>>();
  const cluster = { shared: 0, exclusive: 0 };
  while (pending.length > 0 || running.size > 0) {
    // A file whose need failed to prepare fails, with the reason, instead of waiting forever.
    for (const f of [...pending]) {
      const missing = f.needs.find((n) => failedSteps.has(n));
      if (!missing) continue;
      pending.splice(pending.indexOf(f), 1);
      results.push({ file: f.file, tier: f.tier, secs: 0, passed: 0, failed: 1, skipped: 0, failures: [`${f.file} :: (not run) :: ${missing} could not be prepared: ${failedSteps.get(missing) ?? ''}`] });
    }
    let next: PlannedFile | undefined;
    while (running.size < JOBS && (next = nextFile(pending, ready, cluster))) {
      const file = next;
      pending.splice(pending.indexOf(file), 1);
      const use = !file.needs.includes('cluster') ? null : file.sharesCluster ? 'shared' : 'exclusive';
      if (use) cluster[use]++;
      tierStart[file.tier] ??= Date.now();
      const job: Promise<void> = runFile(file).then((result) => {
        results.push(result);
        tierEnd[file.tier] = Date.now();
        if (use) cluster[use]--;
        running.delete(job);
        wake();
      });
      running.add(job);
    }
    if (pending.length === 0 && running.size === 0) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  await Promise.all(chains);
  exitCode = results.some((r) => r.failed > 0) ? 1 : 0;
} finally {
  if (clusterState.started) await down(clusterDir);
  rmSync(clusterDir, { recursive: true, force: true });
}

const tierSecs: Partial<Record<Tier, number>> = {};
for (const tier of TIERS) {
  const s = tierStart[tier];
  const e = tierEnd[tier];
  if (s !== undefined && e !== undefined) tierSecs[tier] = (e - s) / 1000;
}
const durations = Object.fromEntries(results.map((r) => [r.file, Math.round(r.secs * 10) / 10]));
mkdirSync(dirname(RESULTS), { recursive: true });
writeFileSync(RESULTS, JSON.stringify({ total_secs: elapsed(), tiers: tierSecs, preparation: stepSecs, files: durations }, null, 2) + '\n');
if (existsSync(CACHE)) writeFileSync(HISTORY, JSON.stringify({ ...history, ...durations }) + '\n');
process.stdout.write(report(results, tierSecs, stepSecs, elapsed()));
say(`durations in ${relative(process.cwd(), RESULTS)}`);
process.exit(exitCode);
