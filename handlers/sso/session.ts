// The end every redirect-based SSO sign-in shares (the OIDC callback, the SAML ACS): the
// provider's identity to an account (docs/sso.md), refused when deactivated in Capstan, and a
// session. Each handler then answers with its own cookies and redirect.
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { SsoIdentity } from './service.ts';

export async function ssoSession(identity: SsoIdentity, ctx: HandlerContext): Promise<Result<{ username: string; token: string; sessionId: string }>> {
  const signedIn = await ctx.sso.signIn(identity);
  if (!signedIn.ok) return signedIn;
  const account = signedIn.value;
  ctx.request.noteAudit({ account: account.username, role: account.role, groups: String(identity.groups.length) });
  // Deactivated in Capstan: the provider's word does not bring the account back.
  if (!account.active) return fail({ code: 'forbidden', message: 'this account is deactivated' });
  const session = await ctx.auth.startSession(account.id, ctx.request.ip);
  return ok({ username: account.username, token: session.token, sessionId: session.sessionId });
}
