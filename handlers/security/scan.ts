// Scans: start one (POST /security/scan), read one (GET /security/scan/{id}), the score trend
// over stored runs (GET /security/posture/trend), and the admin's scanner_source override.
// The rules: docs/security-posture.md, "Scans and modes".
import type * as v from 'valibot';
import { resolveScanMode, scanRefusal } from '../../domain/security/scan-mode.ts';
import type { ScanAnswer, ScanIdInput, ScanModeResolution, ScanningSettingsView, ScanStarted, TrendAnswer, TrendInput } from '../../schema/security-scan.ts';
import { TREND_MAX_POINTS } from '../../schema/security-scan.ts';
import type { ScanningSettings } from '../../schema/settings.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

const DAY_MS = 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

async function resolution(ctx: HandlerContext): Promise<ScanModeResolution> {
  const { scanner_source } = await ctx.runtimeSettings.get('scanning');
  return resolveScanMode({
    mode: ctx.scans.config.mode,
    scannerSource: scanner_source,
    operatorCrdsServed: ctx.scans.operatorReportsServed(),
    licensed: ctx.licensing.has('self_scan'),
    // Both halves of expert mode: the chart installed the expert pod, and an admin turned it on.
    expertMode: ctx.helm.provisioned && (await ctx.runtimeSettings.get('expert_mode')).enabled,
  });
}

/**
 * Answers at once with the run (this one, or the one already running); the runtime collects it
 * in the background. Refused with 403 while `security.scanning.enabled=false`, and with 402/403
 * when the mode in force is `self` and a self-scan may not run.
 */
export async function startScan(_input: object, ctx: AuthedContext): Promise<Result<ScanStarted>> {
  if (!ctx.scans.config.enabled) return fail({ code: 'forbidden', message: 'scanning is disabled (security.scanning.enabled=false): POST /security/scan is refused' });
  const r = await resolution(ctx);
  const refusal = scanRefusal(r);
  if (refusal?.status === 402) return fail({ code: 'feature_not_licensed', feature: 'self_scan', message: refusal.reason });
  if (refusal) return fail({ code: 'forbidden', message: refusal.reason });
  const { run, started } = await ctx.scans.start(r.source, ctx.principal.username);
  ctx.request.noteAudit({ scan_id: run.id, job_name: run.job_name, source: run.source, mode: r.mode, started: String(started) });
  return ok({ id: run.id, status: 'running', job_name: run.job_name, source: run.source, started_at: iso(run.started_at), started });
}

/** A run's state and, once it succeeded, its summary over the namespaces the caller may see. */
export async function getScan(input: v.InferOutput<typeof ScanIdInput>, ctx: HandlerContext): Promise<Result<ScanAnswer>> {
  const stored = await ctx.scans.get(input.id);
  if (!stored) return fail({ code: 'not_found', message: `no scan ${input.id} (unknown, or older than the ${ctx.scans.config.retentionDays}-day scan history)` });
  const { run, counts } = stored;
  const summary = run.status === 'succeeded' ? ctx.posture.scanSummary(counts, null) : null;
  return ok({ id: run.id, status: run.status, job_name: run.job_name, source: run.source, requested_by: run.requested_by, started_at: iso(run.started_at), finished_at: run.finished_at === null ? null : iso(run.finished_at), error: run.error, summary });
}

/** One point per succeeded run in the last `days` days, re-added from the visible namespaces (or `namespace`, already checked visible). */
export async function postureTrend(input: TrendInput, ctx: HandlerContext): Promise<Result<TrendAnswer>> {
  const since = ctx.clock.now().getTime() - input.days * DAY_MS;
  const runs = await ctx.scans.history(since, TREND_MAX_POINTS);
  const namespace = input.namespace ?? null;
  const points = runs.map(({ run, counts }) => {
    const s = ctx.posture.scanSummary(counts, namespace);
    return { ts: iso(run.finished_at ?? run.started_at), score: s.score, grade: s.grade, scan_id: run.id };
  });
  return ok({ namespace, days: input.days, points });
}

async function settingsView(ctx: HandlerContext): Promise<ScanningSettingsView> {
  const { scanner_source } = await ctx.runtimeSettings.get('scanning');
  const r = await resolution(ctx);
  const c = ctx.scans.config;
  return {
    scanner_source,
    chart: { enabled: c.enabled, mode: c.mode, retention_days: c.retentionDays },
    effective: { mode: r.mode, source: r.source, self_scan: r.selfScan.allowed ? { allowed: true, status: null, reason: null } : { allowed: false, status: r.selfScan.status, reason: r.selfScan.reason } },
  };
}

export async function getScanningSettings(_input: object, ctx: HandlerContext): Promise<Result<ScanningSettingsView>> {
  return ok(await settingsView(ctx));
}

/** Stores `scanner_source` (null: back to the chart's mode); the chart's `operator` still refuses self-scan. */
export async function setScanningSettings(input: ScanningSettings, ctx: HandlerContext): Promise<Result<ScanningSettingsView>> {
  ctx.request.noteAudit({ scanner_source: input.scanner_source ?? 'null' });
  await ctx.runtimeSettings.set('scanning', { scanner_source: input.scanner_source });
  return ok(await settingsView(ctx));
}
