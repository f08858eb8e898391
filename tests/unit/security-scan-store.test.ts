// The scan runner over a real database (runtime/security/scan-runner.ts): a run starts
// `running` and is collected only when the test runs the scheduled collection (no timers,
// no timing luck); one at a time; the snapshot's rows and per-namespace counts; a failed
// collection; retention pruned on the insert path with the run's rows cascading; the
// per-run findings cap; findings kept for the newest runs only; a run left by a dead process.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { evaluate, type Evaluation } from '../../domain/security/posture.ts';
import { summarize } from '../../domain/security/scan-summary.ts';
import { silentLogger } from '../../runtime/log.ts';
import { createScanRunner, RUNS_WITH_FINDINGS, type ScanCollector } from '../../runtime/security/scan-runner.ts';
import { openDatabase, type Db } from '../../runtime/store/database.ts';
import type { ScanningConfig } from '../../schema/security-scan.ts';
import type { VulnFinding } from '../../schema/security.ts';
import { ManualClock } from '../support/services.ts';

const DAY = 24 * 3600 * 1000;
const bad = podSecuritySpec({ hostNetwork: true, containers: [{ name: 'web', image: 'nginx:latest', securityContext: { privileged: true } }] });
const evaluation: Evaluation = evaluate([
  { kind: 'Deployment', namespace: 'shop', name: 'web', spec: bad },
  { kind: 'Deployment', namespace: 'blog', name: 'web', spec: bad },
]);
const vuln: VulnFinding = {
  id: 'edge/Deployment/proxy#CVE-2024-1:openssl:nginx',
  namespace: 'edge',
  workload: 'proxy',
  workload_kind: 'Deployment',
  image: 'nginx:1.25',
  cve: 'CVE-2024-1',
  severity: 'HIGH',
  cvss: 7.5,
  pkg: 'openssl',
  installed_ver: '3.0.1',
  fixed_ver: '3.0.2',
  fix_available: true,
  source: 'trivy',
};

async function setup(options: { collect?: ScanCollector; config?: Partial<ScanningConfig>; maxFindingsPerRun?: number; db?: Db; clock?: ManualClock } = {}) {
  const clock = options.clock ?? new ManualClock();
  const db = options.db ?? (await openDatabase(mkdtempSync(join(tmpdir(), 'capstan-scans-')), clock));
  const queued: (() => void)[] = [];
  const runner = createScanRunner({
    db,
    clock,
    config: { enabled: true, mode: 'auto', retentionDays: 90, ...options.config },
    collect: options.collect ?? (() => ({ evaluation, vulns: [vuln] })),
    schedule: (fn) => queued.push(fn),
    sweepTimer: false,
    maxFindingsPerRun: options.maxFindingsPerRun,
    log: silentLogger,
  });
  /** Runs what POST scheduled, and waits for it. */
  const collectScheduled = async () => {
    for (const fn of queued.splice(0)) fn();
    await runner.sweep();
  };
  const rows = async (table: 'scan_runs' | 'scan_namespace_counts' | 'posture_findings' | 'vuln_findings') => (await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
  return { clock, db, runner, queued, collectScheduled, rows };
}

describe('scan runner', () => {
  it('answers running at once and collects the snapshot when the scheduled collection runs', async () => {
    const s = await setup();
    const { run, started } = await s.runner.start('none', 'admin');
    assert.equal(started, true);
    assert.equal(run.status, 'running');
    assert.match(run.id, /^[0-9a-f]{16}$/);
    assert.equal(run.job_name, `capstan-scan-${run.id}`);
    assert.equal(s.queued.length, 1, 'one collection scheduled, not run yet');
    assert.equal((await s.db.selectFrom('scan_runs').select('status').executeTakeFirstOrThrow()).status, 'running');

    s.clock.advance(1500);
    await s.collectScheduled();
    const stored = await s.runner.get(run.id);
    assert.ok(stored);
    assert.equal(stored.run.status, 'succeeded');
    assert.equal(stored.run.finished_at, run.started_at + 1500);
    assert.equal(stored.run.error, null);
    assert.deepEqual(
      stored.counts.map((c) => [c.namespace, c.misconfigs, c.vulns, c.workloads]),
      [
        ['blog', evaluation.findings.filter((f) => f.namespace === 'blog').length, 0, 1],
        ['edge', 0, 1, 0],
        ['shop', evaluation.findings.filter((f) => f.namespace === 'shop').length, 0, 1],
      ],
    );
    // Every namespace counted: the run's summary is the evaluation's own posture.
    const all = summarize(stored.counts, () => true);
    assert.equal(all.score, evaluation.posture.score);
    assert.equal(all.grade, evaluation.posture.grade);
    assert.deepEqual(all.by_severity, evaluation.posture.by_severity);
    assert.deepEqual(all.checks, evaluation.posture.checks);
    assert.equal(all.misconfigs, evaluation.findings.length);
    assert.equal(all.vulns, 1);
    assert.equal(await s.rows('posture_findings'), evaluation.findings.length);
    assert.equal(await s.rows('vuln_findings'), 1);
    const v = await s.db.selectFrom('vuln_findings').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual([v.run_id, v.cve, v.pkg, v.cvss, v.fixed_ver, v.source], [run.id, 'CVE-2024-1', 'openssl', 7.5, '3.0.2', 'trivy']);
  });

  it('runs one scan at a time: a start while one runs answers that one', async () => {
    const s = await setup();
    const [a, b] = await Promise.all([s.runner.start('none', 'admin'), s.runner.start('operator', 'other')]);
    assert.equal(a.started, true);
    assert.equal(b.started, false);
    assert.equal(b.run.id, a.run.id);
    assert.equal(b.run.source, 'none');
    assert.equal(await s.rows('scan_runs'), 1);
    await s.collectScheduled();
    const c = await s.runner.start('none', 'admin');
    assert.equal(c.started, true, 'a new run once the last one finished');
    assert.notEqual(c.run.id, a.run.id);
  });

  it('GET collects a run still running, and answers null for an unknown id', async () => {
    const s = await setup();
    const { run } = await s.runner.start('none', 'admin');
    const stored = await s.runner.get(run.id);
    assert.equal(stored?.run.status, 'succeeded');
    assert.equal(await s.runner.get('0123456789abcdef'), null);
  });

  it("a self-scan's collection gets the run's Job name; a read answers running while its Job runs instead of waiting on it", async () => {
    let release: () => void = () => undefined;
    const seen: string[] = [];
    const s = await setup({
      collect: (run) => {
        seen.push(`${run.source} ${run.job_name}`);
        return new Promise((resolve) => (release = () => resolve({ evaluation, vulns: [vuln], detail: 'Scanned 1 of 1 images.' })));
      },
    });
    const { run } = await s.runner.start('self', 'admin');
    const collecting = s.collectScheduled();
    while (seen.length === 0) await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, [`self ${run.job_name}`]);
    assert.equal((await s.runner.get(run.id))?.run.status, 'running', 'answered while the collection still waits');
    release();
    await collecting;
    assert.equal((await s.runner.get(run.id))?.run.status, 'succeeded');
    assert.equal(await s.rows('vuln_findings'), 1);
  });

  it('marks a run failed with the error when its collection throws, and stores nothing of it', async () => {
    const s = await setup({
      collect: () => {
        throw new Error('informer cache not synced');
      },
    });
    const { run } = await s.runner.start('none', 'admin');
    await s.collectScheduled();
    const stored = await s.runner.get(run.id);
    assert.equal(stored?.run.status, 'failed');
    assert.equal(stored.run.error, 'informer cache not synced');
    assert.notEqual(stored.run.finished_at, null);
    assert.deepEqual(stored.counts, []);
    assert.equal(await s.rows('posture_findings'), 0);
    assert.equal((await s.runner.start('none', 'admin')).started, true, 'a failed run does not block the next');
  });

  it('prunes runs older than retentionDays when a run is inserted; their rows go with them', async () => {
    const s = await setup({ config: { retentionDays: 90 } });
    const old = (await s.runner.start('none', 'admin')).run;
    await s.collectScheduled();
    s.clock.advance(2 * DAY);
    const kept = (await s.runner.start('none', 'admin')).run;
    await s.collectScheduled();
    assert.equal(await s.rows('scan_runs'), 2);
    // 90 days after the second run: the first is 92 days old, the second exactly 90 (kept).
    s.clock.advance(90 * DAY);
    assert.equal(await s.rows('scan_runs'), 2, 'nothing is pruned until something is inserted');
    const fresh = (await s.runner.start('none', 'admin')).run;
    const ids = (await s.db.selectFrom('scan_runs').select('id').orderBy('started_at').execute()).map((r) => r.id);
    assert.deepEqual(ids, [kept.id, fresh.id]);
    assert.equal(await s.runner.get(old.id), null);
    const orphans = await s.db.selectFrom('scan_namespace_counts').select('run_id').where('run_id', '=', old.id).execute();
    assert.deepEqual(orphans, []);
    assert.deepEqual(await s.db.selectFrom('posture_findings').select('run_id').where('run_id', '=', old.id).execute(), []);
    assert.deepEqual(await s.db.selectFrom('vuln_findings').select('run_id').where('run_id', '=', old.id).execute(), []);
    assert.equal(await s.rows('posture_findings'), evaluation.findings.length, 'the kept run keeps its findings');
  });

  it('cuts a run’s findings at the cap and says so; its counts stay whole', async () => {
    const s = await setup({ maxFindingsPerRun: 2 });
    const { run } = await s.runner.start('none', 'admin');
    await s.collectScheduled();
    assert.equal(await s.rows('posture_findings'), 2);
    const row = await s.db.selectFrom('scan_runs').select('findings_truncated').where('id', '=', run.id).executeTakeFirstOrThrow();
    assert.equal(row.findings_truncated, 1);
    const stored = await s.runner.get(run.id);
    assert.equal(summarize(stored?.counts ?? [], () => true).misconfigs, evaluation.findings.length);
  });

  it(`keeps findings rows for the newest ${RUNS_WITH_FINDINGS} runs only, and every run's counts`, async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i <= RUNS_WITH_FINDINGS; i++) {
      ids.push((await s.runner.start('none', 'admin')).run.id);
      await s.collectScheduled();
      s.clock.advance(60_000);
    }
    const withFindings = new Set((await s.db.selectFrom('posture_findings').select('run_id').distinct().execute()).map((r) => r.run_id));
    assert.equal(withFindings.size, RUNS_WITH_FINDINGS);
    assert.ok(!withFindings.has(ids[0] ?? ''), 'the oldest run lost its findings');
    const oldest = await s.runner.get(ids[0] ?? '');
    assert.equal(oldest?.counts.length, 3, 'but keeps its counts');
  });

  it('history: succeeded runs in the window, oldest first, the newest `limit`', async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await s.runner.start('none', 'admin')).run.id);
      await s.collectScheduled();
      s.clock.advance(DAY);
    }
    const running = (await s.runner.start('none', 'admin')).run;
    const since = s.clock.now().getTime() - 3.5 * DAY;
    assert.deepEqual((await s.runner.history(since, 10)).map((r) => r.run.id), ids.slice(1), 'the first is outside the window; the running one is not a point');
    assert.deepEqual((await s.runner.history(0, 2)).map((r) => r.run.id), ids.slice(2));
    assert.ok(!(await s.runner.history(0, 10)).some((r) => r.run.id === running.id));
  });

  it('fails a run an earlier process left running, so the next start is not blocked', async () => {
    const first = await setup();
    const { run } = await first.runner.start('none', 'admin');
    // The process dies before collecting: a new runner over the same database.
    const second = await setup({ db: first.db, clock: first.clock });
    const stored = await second.runner.get(run.id);
    assert.equal(stored?.run.status, 'failed');
    assert.equal(stored.run.error, 'the agent restarted before this scan finished');
    assert.equal((await second.runner.start('none', 'admin')).started, true);
  });
});
