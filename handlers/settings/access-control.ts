import type { Out } from '../../schema/common.ts';
import type { AccessControlInput, AccessControlView, IpInput, Lifted } from '../../schema/admin-settings.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

export async function getAccessControl(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AccessControlView>>> {
  const lists = await ctx.runtimeSettings.get('access_control');
  return ok({ ...lists, bans: await ctx.ipBans.list(), your_ip: ctx.request.ip });
}

/**
 * Replaces the allow- and/or denylist. A change that would shut out the admin making it is
 * refused: the recovery CLI is the only way back from that, and it needs exec access.
 */
export async function updateAccessControl(input: Out<typeof AccessControlInput>, ctx: HandlerContext): Promise<Result<Out<typeof AccessControlView>>> {
  const current = await ctx.runtimeSettings.get('access_control');
  const next = { allowlist: input.allowlist ?? current.allowlist, denylist: input.denylist ?? current.denylist };
  for (const field of ['allowlist', 'denylist'] as const) {
    const problem = checkList(ctx, field, next[field]);
    if (problem) return fail(problem);
  }
  ctx.request.noteAudit({ allowlist: next.allowlist.join(' '), denylist: next.denylist.join(' ') });
  await ctx.runtimeSettings.set('access_control', next);
  return ok({ ...next, bans: await ctx.ipBans.list(), your_ip: ctx.request.ip });
}

function checkList(ctx: HandlerContext, field: 'allowlist' | 'denylist', entries: string[]): AppError | null {
  const callerIp = ctx.request.ip;
  const parsed = ctx.addressLists.parse(entries);
  if (!parsed.ok) return { code: 'invalid_input', field, message: `${field}: "${parsed.entry}" ${parsed.reason}` };
  const containsCaller = parsed.contains(callerIp);
  if (field === 'allowlist' && entries.length > 0 && !containsCaller) {
    return { code: 'invalid_input', field, message: `allowlist does not include your own address ${callerIp}; you would be locked out` };
  }
  if (field === 'denylist' && containsCaller) return { code: 'invalid_input', field, message: `denylist includes your own address ${callerIp}` };
  return null;
}

export async function liftBan(input: Out<typeof IpInput>, ctx: HandlerContext): Promise<Result<Out<typeof Lifted>>> {
  ctx.request.noteAudit({ ip: input.ip });
  if (!(await ctx.ipBans.lift(input.ip))) return fail({ code: 'not_found', message: `${input.ip} is not banned` });
  return ok({ status: 'lifted' });
}
