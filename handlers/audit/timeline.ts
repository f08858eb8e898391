import type { Out } from '../../schema/common.ts';
import type { AuditEventInput, AuditEventWithSiblings, AuditExport, AuditExportInput, AuditPage, AuditTimelineInput, PurgeInput, PurgeResult } from '../../schema/audit.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';
import { auditCsv } from './csv.ts';

/** The routine-read access log is reachable only through export, and only on its own. */
function categoryProblem(categories: readonly string[] | undefined, exporting: boolean): AppError | null {
  if (!categories?.includes('access')) return null;
  if (!exporting) return { code: 'invalid_input', field: 'category', message: 'category=access is available on export only' };
  if (categories.length > 1) return { code: 'invalid_input', field: 'category', message: 'category=access cannot be combined with other categories' };
  return null;
}

export async function auditTimeline(input: Out<typeof AuditTimelineInput>, ctx: HandlerContext): Promise<Result<Out<typeof AuditPage>>> {
  const problem = categoryProblem(input.category, false);
  if (problem) return fail(problem);
  return ok(await ctx.audit.query(input));
}

/** One event and, best effort, what the same actor did within five minutes of it. */
export async function auditEvent(input: Out<typeof AuditEventInput>, ctx: HandlerContext): Promise<Result<Out<typeof AuditEventWithSiblings>>> {
  const event = await ctx.audit.event(input.id);
  if (!event) return fail({ code: 'not_found', message: `no audit event ${input.id}` });
  return ok({ event, siblings: await ctx.audit.siblings(event.actor, new Date(event.ts), event.id) });
}

export async function auditExport(input: Out<typeof AuditExportInput>, ctx: HandlerContext): Promise<Result<Out<typeof AuditExport>>> {
  const problem = categoryProblem(input.category, true);
  if (problem) return fail(problem);
  const { format, limit, ...filters } = input;
  const { events, totalMatched } = await ctx.audit.export(filters, limit);
  const generatedAt = ctx.clock.now().toISOString();
  const truncated = totalMatched > events.length;
  const applied: Record<string, string | string[]> = { ...filters };
  const envelope = { generated_at: generatedAt, filters: applied, total_matched: totalMatched, truncated, events };
  const headers = { 'X-Generated-At': generatedAt, 'X-Total-Matched': String(totalMatched), 'X-Truncated': String(truncated) };
  if (format === 'csv') {
    return ok(envelope, [{ kind: 'headers', headers }, { kind: 'download', filename: 'capstan-audit.csv', contentType: 'text/csv; charset=utf-8', body: auditCsv(envelope) }]);
  }
  return ok(envelope, [{ kind: 'headers', headers }]);
}

/** Purges by age or keep-last-N; the audit service records it in the chain before and after, and never deletes its own record. */
export async function auditPurge(input: Out<typeof PurgeInput>, ctx: AuthedContext): Promise<Result<Out<typeof PurgeResult>>> {
  const request = input.keep_last !== undefined ? { keep_last: input.keep_last } : { older_than_days: input.older_than_days ?? 0 };
  const actor = `${ctx.principal.username}@${ctx.request.ip}`;
  return ok({ deleted: await ctx.audit.purge(request, actor) });
}
