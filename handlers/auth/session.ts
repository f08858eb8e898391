import type { Me } from '../../schema/auth.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export async function me(_input: object, ctx: SessionContext): Promise<Result<Me>> {
  const provider = await ctx.sso.providerOf(ctx.principal.userId);
  return ok({ username: ctx.principal.username, role: ctx.principal.role, auth_method: provider ?? 'password' });
}

/** Revokes the session server-side, so a copied cookie stops working too. */
export async function logout(_input: object, ctx: SessionContext): Promise<Result<{ status: 'signed_out' }>> {
  await ctx.auth.endSession(ctx.principal.sessionId);
  return ok({ status: 'signed_out' }, [{ kind: 'clear-session' }]);
}
