// Scheduled SRE reports: on the admin's cadence (off by default), one AI run over every
// namespace in the AI scope — health as the overview grades it, the root causes, and how CPU
// and memory moved over the window — stored with the Diagnose results, and posted to the chat
// webhook when one is configured. The run is the same as any other (./run.ts): with no model,
// the report is the diagnosis and these facts, labelled as produced without a model.
import { healthSection, trendSection } from '../../domain/copilot/report.ts';
import type { ReportSchedule, StoredAnswer } from '../../schema/copilot.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { overview } from '../health/overview.ts';
import { ok, type Result } from '../result.ts';
import { CLUSTER_SCOPE } from './answers.ts';
import { answerRun, prepareRun } from './run.ts';

/** Who a scheduled report is counted against and audited as. */
export const REPORT_ACTOR = 'capstan-reports';

export const REPORT_QUESTION =
  'Write the SRE report for this cluster: overall health, each root cause with the chain to what it breaks, the trends below, and what deserves attention first. Cite every fact.';

/** Samples of resource history a report reads over its window. */
const TREND_BUCKETS = 24;

/** What a report adds to the diagnosis: health and trends over the last `windowHours`. */
export async function reportFacts(ctx: HandlerContext, windowHours: number): Promise<string> {
  const graded = overview({}, ctx);
  const health = graded.ok ? healthSection(graded.value.namespaces) : '## Health\nThe overview could not be read.';
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - windowHours * 3600 * 1000);
  const history = await ctx.history.query({ scope: 'cluster', from, to, buckets: TREND_BUCKETS });
  return `${health}\n\n${trendSection(history.points, windowHours)}`;
}

/** Runs one report as `actor` and stores it; posts it to the chat webhook when there is one. */
export async function produceReport(ctx: HandlerContext, actor: string, windowHours: number): Promise<Result<StoredAnswer & { posted: boolean | null }>> {
  const appendix = await reportFacts(ctx, windowHours);
  const prepared = await prepareRun({ kind: 'report', actor, role: 'admin', question: REPORT_QUESTION, focus: null, history: [], requestKey: null, appendix }, ctx);
  if (!prepared.ok) return prepared;
  const answer = await answerRun(prepared.value, () => undefined);
  const stored = await ctx.copilot.store.saveAnswer({ kind: 'report', scope: CLUSTER_SCOPE, actor, ...answer });
  const webhook = ctx.copilot.chatWebhook;
  const posted = webhook === null ? null : (await webhook.post(`*Capstan SRE report* (${stored.created_at})\n\n${stored.answer}`)).ok;
  return ok({ ...stored, posted });
}

export async function getReportSchedule(_input: object, ctx: HandlerContext): Promise<Result<ReportSchedule>> {
  return ok(await ctx.runtimeSettings.get('ai_reports'));
}

export async function updateReportSchedule(input: ReportSchedule, ctx: HandlerContext): Promise<Result<ReportSchedule>> {
  ctx.request.noteAudit({ enabled: String(input.enabled), every_hours: String(input.every_hours) });
  await ctx.runtimeSettings.set('ai_reports', input);
  return ok(input);
}

/** "Run a report now" (admin): counted against the admin who asked, over the schedule's window. */
export async function runReportNow(_input: object, ctx: AuthedContext): Promise<Result<StoredAnswer & { posted: boolean | null }>> {
  const schedule = await ctx.runtimeSettings.get('ai_reports');
  return produceReport(ctx, ctx.principal.username, schedule.every_hours);
}
