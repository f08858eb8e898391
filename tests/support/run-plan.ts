// The suite's plan, pure: which tier a test file belongs to, what it needs before it can start
// (the shared control plane, a browser, an identity provider, the scanner), which file to start
// next, and the end-of-run report. tests/run.ts does the I/O.

export type Tier = 'unit' | 'cluster' | 'browser';
export const TIERS: readonly Tier[] = ['unit', 'cluster', 'browser'];

/** What a file can wait for; each is one step of tests/run.ts's preparation. */
export type Need = 'binaries' | 'cluster' | 'chromium' | 'slapd' | 'simplesamlphp' | 'registry' | 'prometheus' | 'promtool' | 'dex' | 'samlidp' | 'trivy';

/**
 * A file needs what the test support it reaches starts, directly or through other support
 * modules: one table over repository paths, so a new helper adds one row.
 */
const NEEDS_BY_MODULE: ReadonlyArray<readonly [RegExp, readonly Need[]]> = [
  [/^tests\/support\/cluster\.ts$/, ['cluster']],
  [/^tests\/support\/browser\.ts$/, ['chromium']],
  [/^tests\/support\/slapd\.ts$/, ['slapd']],
  [/^tests\/support\/simplesamlphp\.ts$/, ['simplesamlphp']],
  [/^tests\/support\/registry\.ts$/, ['registry']],
  [/^tests\/support\/prometheus\.ts$/, ['prometheus']],
  [/^tests\/support\/promtool\.ts$/, ['promtool']],
  [/^tests\/support\/dex\.ts$/, ['dex']],
  [/^tests\/support\/samlidp\.ts$/, ['samlidp']],
  [/^tests\/support\/trivy-(reports|fixture)\.ts$/, ['trivy']],
  // helm from the control-plane build, without a cluster (the install doc's RBAC section).
  [/^scripts\/generate-install-rbac\.ts$/, ['binaries']],
];

/** The relative modules a source imports: `import … from '…'` statements at the start of a line, not strings or comments that mention one. */
export function importedModules(source: string): string[] {
  return [...source.matchAll(/^import\s[^;]*?\sfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gms)].map((m) => m[1] ?? '');
}

/** A relative specifier joined to the importing file's repository path. */
export function resolveModule(importer: string, specifier: string): string {
  const parts = importer.split('/').slice(0, -1);
  for (const segment of specifier.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts.join('/');
}

export function tierOf(file: string): Tier {
  if (/(^|\/)tests\/unit\//.test(file)) return 'unit';
  if (/(^|\/)tests\/e2e\//.test(file)) return 'browser';
  return 'cluster';
}

/**
 * What a test file (a repository path) waits for: the needs of every module it reaches through
 * its imports, following the test tree only (shipped code starts nothing by itself). `read`
 * gives a repository file's source.
 */
export function needsOfFile(file: string, read: (path: string) => string): Need[] {
  const seen = new Set<string>();
  const queue = [file];
  const needs = new Set<Need>();
  while (queue.length > 0) {
    const path = queue.pop() ?? '';
    if (seen.has(path)) continue;
    seen.add(path);
    for (const [pattern, what] of NEEDS_BY_MODULE) if (pattern.test(path)) for (const n of what) needs.add(n);
    if (!path.startsWith('tests/')) continue;
    for (const spec of importedModules(read(path))) queue.push(resolveModule(path, spec));
  }
  // The cluster comes up from the control-plane build.
  if (needs.has('cluster')) needs.add('binaries');
  return [...needs].sort();
}

export interface PlannedFile {
  file: string;
  tier: Tier;
  needs: readonly Need[];
  /**
   * A cluster file that may run beside other such files: it works only in namespaces and
   * cluster-scoped objects of its own, and judges nothing else (a line `// test-plan:
   * shares-cluster` says so). Every other cluster file has the control plane to itself.
   */
  sharesCluster: boolean;
  /** Seconds the file took last time (0 when unknown). */
  expectedSecs: number;
}

/** A file's own word that it may share the control plane (see PlannedFile.sharesCluster). */
export function sharesCluster(source: string): boolean {
  return /^\/\/ test-plan: shares-cluster$/m.test(source);
}

/** The cluster files running now: those that share it, and those that need it to themselves. */
export interface ClusterUse {
  shared: number;
  exclusive: number;
}

/**
 * The next file to start, or undefined when none may start now. A cluster file that needs the
 * control plane to itself (some stop its API server, or judge the whole cluster) starts only
 * when no other cluster file runs; files that share it run beside each other; anything else
 * runs beside them all. Among the files that may start, the longest expected first, so the
 * long waits overlap the rest; then by name, so a run is reproducible.
 */
export function nextFile(pending: readonly PlannedFile[], ready: ReadonlySet<Need>, cluster: ClusterUse): PlannedFile | undefined {
  const clusterAllows = (f: PlannedFile) => !f.needs.includes('cluster') || (cluster.exclusive === 0 && (f.sharesCluster || cluster.shared === 0));
  const startable = pending.filter((f) => f.needs.every((n) => ready.has(n)) && clusterAllows(f));
  return [...startable].sort((a, b) => b.expectedSecs - a.expectedSecs || a.file.localeCompare(b.file))[0];
}

export interface FileResult {
  file: string;
  tier: Tier;
  secs: number;
  passed: number;
  failed: number;
  skipped: number;
  /** "file :: test :: first line of the error", one per failed test (or the process' own failure). */
  failures: string[];
}

/** The run's end: tier times, the slowest files, every failure, and the closing count line. */
export function report(results: readonly FileResult[], tierSecs: Readonly<Partial<Record<Tier, number>>>, stepSecs: Readonly<Record<string, number>>, totalSecs: number, slowest = 15): string {
  const lines: string[] = [];
  const fmt = (s: number) => `${s.toFixed(1).padStart(7)} s`;
  lines.push('', '# Preparation (overlapping the tests):');
  for (const [step, secs] of Object.entries(stepSecs)) lines.push(`#   ${fmt(secs)}  ${step}`);
  lines.push('# Tiers (first start to last finish; tiers overlap):');
  for (const tier of TIERS) {
    const files = results.filter((r) => r.tier === tier);
    if (files.length === 0) continue;
    const secs = tierSecs[tier] ?? 0;
    lines.push(`#   ${fmt(secs)}  ${tier} (${files.length} files, ${files.reduce((n, r) => n + r.secs, 0).toFixed(0)} s of file time)`);
  }
  lines.push(`#   ${fmt(totalSecs)}  whole run`);
  lines.push(`# The ${Math.min(slowest, results.length)} slowest files:`);
  for (const r of [...results].sort((a, b) => b.secs - a.secs).slice(0, slowest)) lines.push(`#   ${fmt(r.secs)}  ${r.file}`);
  const failures = results.flatMap((r) => r.failures);
  if (failures.length > 0) lines.push(`# ${failures.length} failure(s):`, ...failures.map((f) => `# FAILED ${f}`));
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  lines.push(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return lines.join('\n') + '\n';
}
