import type * as v from 'valibot';
import type { LdapLoginInput, LdapLoginOutput } from '../../schema/sso.ts';
import { lockedOut } from '../auth/login.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

type Output = v.InferOutput<typeof LdapLoginOutput>;

/**
 * The lockout's account key. Directories compare names ignoring case and surrounding or repeated
 * spaces (RFC 4518), so `Alice`, ` alice` and `alice` bind the same entry: they share one
 * allowance, or varying the spelling would buy six more guesses each time. `ldap:` keeps it
 * apart from a local account of the same name.
 */
export const ldapLockoutKey = (username: string): string => `ldap:${username.trim().replace(/\s+/g, ' ').toLowerCase()}`;

/**
 * LDAP sign-in (spec §4 `POST /auth/ldap/login`): a direct bind as the user, then just-in-time
 * provisioning with the groups the directory lists. The same lockout as password sign-in (six
 * attempts per account and address, counted before the bind), kept apart from local accounts'
 * by the `ldap:` prefix. `sso.local_login` does not apply: it limits local passwords only.
 * The session cookie is SameSite=Lax (spec §5 "Password login" 3: Lax after SSO).
 */
export async function ldapLogin(input: v.InferOutput<typeof LdapLoginInput>, ctx: HandlerContext): Promise<Result<Output>> {
  const { username, password, code } = input;
  const ip = ctx.request.ip;
  ctx.request.noteAudit({ username, provider: 'ldap' });
  const stored = await ctx.sso.ldap();
  // Gone, like the password endpoint when it is off: nothing to probe.
  if (!stored?.enabled) return fail({ code: 'not_found', message: 'LDAP sign-in is not enabled' });
  const lockKey = ldapLockoutKey(username);
  const attempt = await ctx.auth.beginAttempt(lockKey, ip);
  if (!attempt.admitted) return fail(lockedOut(attempt.lockedUntil, ctx.clock.now()));
  const failed = (error: AppError): Result<Output> => fail(attempt.lockedUntil ? lockedOut(attempt.lockedUntil, ctx.clock.now()) : error);
  const refunded = async (error: AppError): Promise<Result<Output>> => {
    await ctx.auth.refundAttempt(lockKey, ip);
    return fail(error);
  };

  const bound = await ctx.ldap.authenticate(stored.config, username, password);
  if (!bound.ok) return bound.error.code === 'unauthenticated' ? failed(bound.error) : refunded(bound.error);
  // The directory asserts nothing about the email: it matches the admin emails only when the admin trusts it (trust_email).
  const signedIn = await ctx.sso.signIn({ provider: 'ldap', subject: bound.value.subject, email: bound.value.email, emailVerified: stored.config.trust_email, groups: bound.value.groups });
  if (!signedIn.ok) return refunded(signedIn.error);
  const account = signedIn.value;
  ctx.request.noteAudit({ account: account.username, role: account.role, groups: String(bound.value.groups.length) });
  // Deactivated in Capstan: the directory's word does not bring the account back.
  if (!account.active) return refunded({ code: 'forbidden', message: 'this account is deactivated' });
  // TOTP for LDAP users is off by default; while it is off an enrolled factor is not asked for.
  if (stored.config.totp && account.totpEnabled) {
    if (code === undefined) return refunded({ code: 'second_factor_required', message: 'enter the code from your authenticator app' });
    const verified = await ctx.secondFactor.verify(account.id, code);
    if (!verified.ok) return failed(verified.error);
  }
  await ctx.auth.clearFailures(lockKey, ip);
  const session = await ctx.auth.startSession(account.id, ip);
  return ok({ user: { username: account.username, role: account.role, auth_method: 'ldap' } }, [{ kind: 'set-session', token: session.token, username: account.username, sameSite: 'Lax' }]);
}
