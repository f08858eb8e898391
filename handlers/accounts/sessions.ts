import type * as v from 'valibot';
import type { SessionIdInput, SessionList, SessionRevoked } from '../../schema/accounts.ts';
import type { HandlerContext } from '../context.ts';
import type { SessionRecord } from './service.ts';
import { fail, ok, type Result } from '../result.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

function withCurrent(sessions: SessionRecord[], ctx: HandlerContext): Out<typeof SessionList> {
  const current = ctx.principal?.via === 'session' ? ctx.principal.sessionId : null;
  return { sessions: sessions.map((s) => ({ ...s, current: s.id === current })) };
}

export async function listOwnSessions(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SessionList>>> {
  if (!ctx.principal) return fail({ code: 'unauthenticated', message: 'sign in first' });
  return ok(withCurrent(await ctx.users.sessions(ctx.principal.userId), ctx));
}

export async function revokeOwnSession(input: Out<typeof SessionIdInput>, ctx: HandlerContext): Promise<Result<Out<typeof SessionRevoked>>> {
  if (!ctx.principal) return fail({ code: 'unauthenticated', message: 'sign in first' });
  if (!(await ctx.users.revokeSession(input.id, ctx.principal.userId))) return fail({ code: 'not_found', message: 'you have no such session' });
  return ok({ status: 'revoked' });
}

export async function listAllSessions(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SessionList>>> {
  return ok(withCurrent(await ctx.users.sessions(null), ctx));
}

export async function revokeAnySession(input: Out<typeof SessionIdInput>, ctx: HandlerContext): Promise<Result<Out<typeof SessionRevoked>>> {
  if (!(await ctx.users.revokeSession(input.id, null))) return fail({ code: 'not_found', message: 'no such session' });
  return ok({ status: 'revoked' });
}
