import type { Me } from '../../schema/auth.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

export function me(_input: object, ctx: HandlerContext): Result<Me> {
  if (!ctx.principal) return fail({ code: 'unauthenticated', message: 'sign in first' });
  return ok({ username: ctx.principal.username, role: ctx.principal.role, auth_method: 'password' });
}

/** Revokes the session server-side, so a copied cookie stops working too. */
export async function logout(_input: object, ctx: HandlerContext): Promise<Result<{ status: 'signed_out' }>> {
  if (ctx.principal?.via === 'session') await ctx.auth.endSession(ctx.principal.sessionId);
  return ok({ status: 'signed_out' }, [{ kind: 'clear-session' }]);
}
