import type { Out } from '../../schema/common.ts';
import type { SessionIdInput, SessionList, SessionRevoked } from '../../schema/accounts.ts';
import type { SessionContext } from '../context.ts';
import type { SessionRecord } from './service.ts';
import { fail, ok, type Result } from '../result.ts';

function withCurrent(sessions: SessionRecord[], ctx: SessionContext): Out<typeof SessionList> {
  return { sessions: sessions.map((s) => ({ ...s, current: s.id === ctx.principal.sessionId })) };
}

export async function listOwnSessions(_input: object, ctx: SessionContext): Promise<Result<Out<typeof SessionList>>> {
  return ok(withCurrent(await ctx.users.sessions(ctx.principal.userId), ctx));
}

export async function revokeOwnSession(input: Out<typeof SessionIdInput>, ctx: SessionContext): Promise<Result<Out<typeof SessionRevoked>>> {
  if (!(await ctx.users.revokeSession(input.id, ctx.principal.userId))) return fail({ code: 'not_found', message: 'you have no such session' });
  return ok({ status: 'revoked' });
}

export async function listAllSessions(_input: object, ctx: SessionContext): Promise<Result<Out<typeof SessionList>>> {
  return ok(withCurrent(await ctx.users.sessions(null), ctx));
}

export async function revokeAnySession(input: Out<typeof SessionIdInput>, ctx: SessionContext): Promise<Result<Out<typeof SessionRevoked>>> {
  if (!(await ctx.users.revokeSession(input.id, null))) return fail({ code: 'not_found', message: 'no such session' });
  return ok({ status: 'revoked' });
}
