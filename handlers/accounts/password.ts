import type { Out } from '../../schema/common.ts';
import type { PasswordChanged, PasswordChangeInput } from '../../schema/accounts.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

/** Your own password (a session only: no key reaches it); every other session of yours ends, this one stays. */
export async function changeOwnPassword(input: Out<typeof PasswordChangeInput>, ctx: SessionContext): Promise<Result<Out<typeof PasswordChanged>>> {
  const changed = await ctx.users.changePassword(ctx.principal.userId, input.current_password, input.new_password, ctx.principal.sessionId);
  if (!changed.ok) return changed;
  ctx.request.noteAudit({ other_sessions_ended: String(changed.value.sessionsEnded) });
  return ok({ status: 'changed', other_sessions_ended: changed.value.sessionsEnded });
}
