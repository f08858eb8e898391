import type { Out } from '../../schema/common.ts';
import type { ActivityRetention } from '../../schema/admin-settings.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export async function getActivityRetention(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof ActivityRetention>>> {
  return ok(await ctx.runtimeSettings.get('activity'));
}

/** Overrides CLUSTER_EVENTS_RETENTION_DAYS for the cluster events table from now on. */
export async function setActivityRetention(input: Out<typeof ActivityRetention>, ctx: HandlerContext): Promise<Result<Out<typeof ActivityRetention>>> {
  ctx.request.noteAudit({ retention_days: String(input.retention_days) });
  await ctx.runtimeSettings.set('activity', input);
  return ok(input);
}
