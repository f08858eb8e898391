// Scans and their history (spec §3 "Scan", §6 "scan history 90 days"). POST /security/scan
// inserts a `running` row and answers; the collection runs right after (on the next turn of
// the event loop, or when a test's `schedule` says), by the periodic sweep if that failed,
// and by GET /security/scan/{id} when the run still runs. A collection snapshots the built-in
// checks (and the scanner's vulnerabilities, from the one collector in runtime/security/answers.ts)
// into the tables and marks the run `succeeded`, or `failed` with the error.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import type { Evaluation } from '../../domain/security/posture.ts';
import { namespaceCounts } from '../../domain/security/scan-summary.ts';
import type { ScanRun, ScanService, StoredScan } from '../../handlers/security/scan-service.ts';
import type { NamespaceScanCounts, ScanningConfig, ScanSource } from '../../schema/security-scan.ts';
import type { VulnFinding } from '../../schema/security.ts';
import type { TaskRecorder } from '../../handlers/tasks/service.ts';
import type { Logger } from '../log.ts';
import type { Db } from '../store/database.ts';
import type { ScanNamespaceCountsTable } from '../store/tables.ts';

/** What one collection stores: the built-in checks now, and the scanner's vulnerabilities. */
export interface ScanCollection {
  evaluation: Evaluation;
  vulns: VulnFinding[];
  /** The Task's words when the run finished (a self-scan says what it scanned and what it could not). */
  detail?: string;
}
/** The run being collected: its source, and the Job name a self-scan runs under. */
export type ScanCollector = (run: { id: string; source: ScanSource; job_name: string }) => ScanCollection | Promise<ScanCollection>;

const DAY_MS = 24 * 3600 * 1000;
/** Findings rows a run keeps per kind; beyond it the list is cut (the counts stay whole) and the run says so. */
export const MAX_FINDINGS_PER_RUN = 20_000;
/** Only the newest runs keep their findings rows; older ones keep their counts (the trend) until retention. */
export const RUNS_WITH_FINDINGS = 30;
/** How often the sweep looks for a run left running (a collection that could not be written). */
export const SWEEP_INTERVAL_MS = 15_000;
const INSERT_BATCH = 400;
const ERROR_CHARS = 500;

export interface ScanRunnerOptions {
  db: Db;
  clock: Clock;
  config: ScanningConfig;
  collect: ScanCollector;
  /** Each run is a Task in the tray (docs/tasks.md); none in tests that do not look. */
  tasks?: TaskRecorder;
  operatorReportsServed?: () => boolean;
  /** Starts a collection after POST answered: the next turn of the event loop by default; tests run it when they choose. */
  schedule?: (collect: () => void) => void;
  /** The periodic sweep's timer (default true); tests that drive the sweep themselves turn it off. */
  sweepTimer?: boolean;
  maxFindingsPerRun?: number;
  log: Logger;
}

export interface ScanRunner extends ScanService {
  /** Collects every running run; concurrent callers share one sweep. */
  sweep(): Promise<void>;
  stop(): void;
}

/** A scan's Task id. */
const taskId = (scanId: string): string => `security_scan:${scanId}`;

export function createScanRunner(o: ScanRunnerOptions): ScanRunner {
  const { db, clock, log } = o;
  const maxFindings = o.maxFindingsPerRun ?? MAX_FINDINGS_PER_RUN;
  const schedule = o.schedule ?? ((fn) => void setImmediate(fn));
  // A run left `running` by an earlier process is never collected (its snapshot time has
  // passed): it fails, so one-at-a-time does not wait on it forever.
  const ready = db
    .updateTable('scan_runs')
    .set({ status: 'failed', finished_at: clock.now().getTime(), error: 'the agent restarted before this scan finished' })
    .where('status', '=', 'running')
    .execute()
    .then(
      () => undefined,
      (err: unknown) => log.error('could not close interrupted scans', { error: err instanceof Error ? err.message : String(err) }),
    );
  let lock: Promise<unknown> = ready;
  let sweeping: Promise<void> | null = null;
  // Set when a sweep is asked for while one runs: that one may have read the running runs
  // before the newest was inserted, so it goes round again before it resolves.
  let again = false;
  // Read through a call: set by other callers while this one awaits, which flow analysis cannot see.
  const askedAgain = () => again;

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = lock.then(fn, fn);
    lock = next.catch(() => undefined);
    return next;
  };

  const runOf = async (id: string): Promise<ScanRun | null> => {
    const row = await db.selectFrom('scan_runs').select(['id', 'status', 'job_name', 'source', 'requested_by', 'started_at', 'finished_at', 'error']).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  };

  const countsOf = async (ids: readonly string[]): Promise<Map<string, NamespaceScanCounts[]>> => {
    const out = new Map<string, NamespaceScanCounts[]>();
    if (ids.length === 0) return out;
    const rows = await db.selectFrom('scan_namespace_counts').selectAll().where('run_id', 'in', ids).orderBy('namespace').execute();
    for (const r of rows) {
      const list = out.get(r.run_id) ?? [];
      list.push({
        namespace: r.namespace,
        checks: { passed: r.passed, warnings: r.warnings, dangers: r.dangers },
        by_severity: { CRITICAL: r.critical, HIGH: r.high, MEDIUM: r.medium, LOW: r.low, UNKNOWN: r.unknown },
        workloads: r.workloads,
        misconfigs: r.misconfigs,
        vulns: r.vulns,
      });
      out.set(r.run_id, list);
    }
    return out;
  };

  /** Writes one run's snapshot and marks it succeeded, in one transaction: a run is whole or still running. */
  const store = async (id: string, c: ScanCollection) => {
    const counts: ScanNamespaceCountsTable[] = namespaceCounts(c.evaluation, c.vulns).map((n) => ({
      run_id: id,
      namespace: n.namespace,
      passed: n.checks.passed,
      warnings: n.checks.warnings,
      dangers: n.checks.dangers,
      critical: n.by_severity.CRITICAL,
      high: n.by_severity.HIGH,
      medium: n.by_severity.MEDIUM,
      low: n.by_severity.LOW,
      unknown: n.by_severity.UNKNOWN,
      workloads: n.workloads,
      misconfigs: n.misconfigs,
      vulns: n.vulns,
    }));
    const misconfigs = c.evaluation.findings.slice(0, maxFindings).map((f) => ({
      run_id: id,
      finding_id: f.id,
      namespace: f.namespace,
      workload: f.workload,
      workload_kind: f.workload_kind,
      check_id: f.check_id,
      severity: f.severity,
      container: f.container,
      message: f.message,
      source: f.source,
    }));
    const vulns = c.vulns.slice(0, maxFindings).map((f) => ({
      run_id: id,
      finding_id: f.id,
      namespace: f.namespace,
      workload: f.workload,
      image: f.image,
      cve: f.cve,
      severity: f.severity,
      cvss: f.cvss,
      pkg: f.pkg,
      installed_ver: f.installed_ver,
      fixed_ver: f.fixed_ver,
      source: f.source,
    }));
    const truncated = c.evaluation.findings.length > maxFindings || c.vulns.length > maxFindings;
    await db.transaction().execute(async (tx) => {
      for (let i = 0; i < counts.length; i += INSERT_BATCH) await tx.insertInto('scan_namespace_counts').values(counts.slice(i, i + INSERT_BATCH)).execute();
      for (let i = 0; i < misconfigs.length; i += INSERT_BATCH) await tx.insertInto('posture_findings').values(misconfigs.slice(i, i + INSERT_BATCH)).execute();
      for (let i = 0; i < vulns.length; i += INSERT_BATCH) await tx.insertInto('vuln_findings').values(vulns.slice(i, i + INSERT_BATCH)).execute();
      await tx.updateTable('scan_runs').set({ status: 'succeeded', finished_at: clock.now().getTime(), findings_truncated: truncated ? 1 : 0 }).where('id', '=', id).execute();
      // Bounded size: findings rows of all but the newest runs go; their counts stay for the trend.
      const keep = tx.selectFrom('scan_runs').select('id').orderBy('started_at', 'desc').limit(RUNS_WITH_FINDINGS);
      await tx.deleteFrom('posture_findings').where('run_id', 'not in', keep).execute();
      await tx.deleteFrom('vuln_findings').where('run_id', 'not in', keep).execute();
    });
  };

  const collectOne = async (run: { id: string; source: ScanSource; job_name: string }) => {
    try {
      const collection = await o.collect(run);
      await store(run.id, collection);
      await o.tasks?.finish(taskId(run.id), { kind: 'success', detail: collection.detail ? `${collection.detail} Its findings are in Security.` : 'The scan finished; its findings are in Security.' });
    } catch (err) {
      const message = (err instanceof Error ? err.message : String(err)).slice(0, ERROR_CHARS);
      log.error('scan failed', { scan_id: run.id, error: message });
      await db.updateTable('scan_runs').set({ status: 'failed', finished_at: clock.now().getTime(), error: message }).where('id', '=', run.id).where('status', '=', 'running').execute();
      await o.tasks?.finish(taskId(run.id), { kind: 'error', reason: 'ScanFailed', detail: message, consequence: 'No new findings were stored; Security still shows the last finished scan.' });
    }
  };

  const sweep = (): Promise<void> => {
    if (sweeping) {
      again = true;
      return sweeping;
    }
    sweeping = (async () => {
      try {
        await ready;
        for (;;) {
          again = false;
          const running = await db.selectFrom('scan_runs').select(['id', 'source', 'job_name']).where('status', '=', 'running').execute();
          for (const run of running) await collectOne(run);
          if (!askedAgain()) break;
        }
      } finally {
        sweeping = null;
      }
    })();
    return sweeping;
  };

  const timer = o.sweepTimer === false ? null : setInterval(() => void sweep().catch((err: unknown) => log.error('scan sweep failed', { error: err instanceof Error ? err.message : String(err) })), SWEEP_INTERVAL_MS);
  timer?.unref();

  return {
    config: o.config,
    operatorReportsServed: o.operatorReportsServed ?? (() => false),
    start: (source, requestedBy) =>
      serial(async () => {
        const running = await db.selectFrom('scan_runs').select(['id', 'status', 'job_name', 'source', 'requested_by', 'started_at', 'finished_at', 'error']).where('status', '=', 'running').orderBy('started_at').executeTakeFirst();
        if (running) return { run: running, started: false };
        const now = clock.now().getTime();
        const id = randomBytes(8).toString('hex');
        const run: ScanRun = { id, status: 'running', job_name: `capstan-scan-${id}`, source, requested_by: requestedBy, started_at: now, finished_at: null, error: null };
        await db.insertInto('scan_runs').values(run).execute();
        await o.tasks?.start({ id: taskId(id), kind: 'security_scan', actor: requestedBy, detail: `A security scan (${source}) collecting the posture and the scanner's findings.` });
        // On the insert path, as every append-only table here prunes (spec §6); the run's rows cascade.
        await db.deleteFrom('scan_runs').where('started_at', '<', now - o.config.retentionDays * DAY_MS).execute();
        schedule(() => void sweep().catch((err: unknown) => log.error('scan sweep failed', { error: err instanceof Error ? err.message : String(err) })));
        return { run, started: true };
      }),
    async get(id) {
      await ready;
      let run = await runOf(id);
      // A self-scan runs for minutes in its Job: the background collection finishes it, and a
      // read answers `running` meanwhile rather than wait on it.
      if (run?.status === 'running' && run.source !== 'self') {
        await sweep();
        run = await runOf(id);
      }
      if (!run) return null;
      return { run, counts: (await countsOf([run.id])).get(run.id) ?? [] };
    },
    async history(sinceMs, limit) {
      await ready;
      const runs = await db
        .selectFrom('scan_runs')
        .select(['id', 'status', 'job_name', 'source', 'requested_by', 'started_at', 'finished_at', 'error'])
        .where('status', '=', 'succeeded')
        .where('finished_at', '>=', sinceMs)
        .orderBy('finished_at', 'desc')
        .limit(limit)
        .execute();
      const counts = await countsOf(runs.map((r) => r.id));
      return runs.reverse().map((run): StoredScan => ({ run, counts: counts.get(run.id) ?? [] }));
    },
    sweep,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
