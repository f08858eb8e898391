// Runs the scheduled SRE report when it is due: the schedule is read on every tick (a runtime
// setting), a report is due once `every_hours` have passed since the newest stored one (at once
// when there is none), and one report runs at a time. Each run is audited as the scheduler.
import { scopeAnswers } from '../../domain/scoped.ts';
import { CLUSTER_SCOPE } from '../../handlers/copilot/answers.ts';
import { produceReport, REPORT_ACTOR } from '../../handlers/copilot/reports.ts';
import type { HandlerContext, Services } from '../../handlers/context.ts';
import type { Logger } from '../log.ts';

/** How often the schedule is looked at. */
export const REPORT_TICK_MS = 60_000;

export interface ReportScheduler {
  /** Runs a report if one is due; resolves when it is stored (or was not due). */
  tick(): Promise<'ran' | 'not_due' | 'off' | 'busy' | 'refused'>;
  stop(): void;
}

export function startReportScheduler(services: Services, log: Logger): ReportScheduler {
  let running = false;
  /** When a run was last refused (AI off, a cap): not tried again for a period, so a refusal is not logged every minute. */
  let refusedAt: number | null = null;
  const ctx: HandlerContext = {
    ...services,
    ...scopeAnswers(services, services.settings.tenantNamespaces),
    request: { ip: 'scheduler', origin: '', noteAudit: () => undefined },
    principal: null,
  };
  const tick: ReportScheduler['tick'] = async () => {
    const schedule = await services.runtimeSettings.get('ai_reports');
    if (!schedule.enabled) return 'off';
    if (running) return 'busy';
    // Taken before the next await, so two ticks can never both find a report due.
    running = true;
    try {
      const [newest] = await services.copilot.store.answers({ kind: 'report', scopes: (s) => s === CLUSTER_SCOPE, limit: 1 });
      const now = services.clock.now().getTime();
      const period = schedule.every_hours * 3600 * 1000;
      if (newest !== undefined && now - Date.parse(newest.created_at) < period) return 'not_due';
      if (refusedAt !== null && now - refusedAt < period) return 'not_due';
      const report = await produceReport(ctx, REPORT_ACTOR, schedule.every_hours);
      const detail: Record<string, string> = report.ok ? { report: report.value.id, source: report.value.source, posted: String(report.value.posted) } : { refused: report.error.code, reason: report.error.message };
      await services.audit.record({ actor: REPORT_ACTOR, category: 'http', action: 'ai.report', outcome: report.ok ? 'success' : 'denied', severity: 'info', detail });
      refusedAt = report.ok ? null : now;
      if (!report.ok) log.warn('scheduled SRE report refused', detail);
      return report.ok ? 'ran' : 'refused';
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => {
    tick().catch((err: unknown) => log.error('scheduled SRE report failed', { error: err instanceof Error ? err.message : String(err) }));
  }, REPORT_TICK_MS);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
