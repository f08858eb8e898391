import type { Out } from '../../schema/common.ts';
import type { AdminEmailsInput, AuthMethods, LdapConfig, LdapDisabled, LdapTestInput, LdapTestOutput, SsoView } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { lockedOut } from '../auth/login.ts';
import { fail, ok, type Result } from '../result.ts';
import { ldapLockoutKey } from './ldap-login.ts';
import { oidcView } from './oidc.ts';
import { view as samlView } from './saml.ts';

/**
 * Admin → SSO: every provider's configuration as stored, masked as its own GET masks it (LDAP
 * holds no secret: no service account), the installed `sso.publicUrl` the wizard prefills
 * OIDC's and SAML's public_url from, the admin emails, the local-login mode.
 */
export async function getSso(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SsoView>>> {
  const ldap = await ctx.sso.ldap();
  const oidc = await ctx.oidc.stored();
  const saml = await ctx.saml.stored();
  return ok({
    ldap: ldap ? { enabled: ldap.enabled, config: ldap.config, updated_at: ldap.updatedAt.toISOString() } : null,
    oidc: oidc ? oidcView(oidc, ctx) : null,
    saml: saml ? samlView(saml, ctx) : null,
    public_url: ctx.settings.ssoPublicUrl ?? null,
    admin_emails: await ctx.sso.adminEmails(),
    local_login: (await ctx.runtimeSettings.get('security')).local_login,
  });
}

/** Stores (sealed at rest) and enables LDAP sign-in. Enterprise (the route's feature): once set, sign-in keeps working if the license lapses. */
export async function setLdap(input: Out<typeof LdapConfig>, ctx: HandlerContext): Promise<Result<Out<typeof SsoView>>> {
  ctx.request.noteAudit({ provider: 'ldap', url: input.url, insecure_skip_verify: String(input.insecure_skip_verify), totp: String(input.totp) });
  await ctx.sso.setLdap(input);
  return getSso({}, ctx);
}

/**
 * Binds as the given user with the given (unsaved) configuration: what sign-in would see, nothing
 * provisioned or stored. A password check like sign-in's, so under sign-in's lockout: the same
 * `ldap:<username>` allowance per address (six attempts, then 429 for 15 minutes), counted before
 * the bind, or a session could guess directory passwords here without limit. A success gives back
 * its own attempt but never clears the count: the configuration tried is the caller's, and a
 * directory of their choosing that accepts any password must not reset the allowance.
 */
export async function testLdap(input: Out<typeof LdapTestInput>, ctx: HandlerContext): Promise<Result<Out<typeof LdapTestOutput>>> {
  ctx.request.noteAudit({ provider: 'ldap', url: input.config.url, username: input.username });
  const lockKey = ldapLockoutKey(input.username);
  const ip = ctx.request.ip;
  const attempt = await ctx.auth.beginAttempt(lockKey, ip);
  if (!attempt.admitted) return fail(lockedOut(attempt.lockedUntil, ctx.clock.now()));
  const bound = await ctx.ldap.authenticate(input.config, input.username, input.password);
  // A wrong password counts (the last one allowed answers 429, as at sign-in); anything else (an unreachable directory) is given back.
  if (!bound.ok && bound.error.code === 'unauthenticated') return fail(attempt.lockedUntil ? lockedOut(attempt.lockedUntil, ctx.clock.now()) : bound.error);
  await ctx.auth.refundAttempt(lockKey, ip);
  if (!bound.ok) return bound;
  const role = await ctx.sso.previewRole({ provider: 'ldap', subject: bound.value.subject, email: bound.value.email, emailVerified: input.config.trust_email, groups: bound.value.groups });
  return ok({ subject: bound.value.subject, dn: bound.value.dn, email: bound.value.email, groups: bound.value.groups, role });
}

/**
 * Turns LDAP sign-in off; always allowed (no license needed). When it was the last SSO method
 * and password sign-in was `off`, password sign-in comes back for admins (`admin_only`), so
 * turning SSO off never locks everyone out; audited.
 */
export async function disableLdap(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof LdapDisabled>>> {
  await ctx.sso.disableLdap();
  const security = await ctx.runtimeSettings.get('security');
  if (security.local_login === 'off' && (await ctx.sso.enabledProviders()).length === 0) {
    await ctx.runtimeSettings.set('security', { ...security, local_login: 'admin_only' });
    ctx.request.noteAudit({ local_login: 'admin_only' });
  }
  return ok({ status: 'disabled' });
}

export async function setAdminEmails(input: Out<typeof AdminEmailsInput>, ctx: HandlerContext): Promise<Result<Out<typeof SsoView>>> {
  ctx.request.noteAudit({ admin_emails: String(input.admin_emails.length) });
  await ctx.sso.setAdminEmails(input.admin_emails);
  return getSso({}, ctx);
}

/** What the sign-in page offers: the password form per `sso.local_login`, and each enabled SSO method. */
export async function authMethods(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AuthMethods>>> {
  const { local_login } = await ctx.runtimeSettings.get('security');
  const ldap = await ctx.sso.ldap();
  const saml = await ctx.saml.stored();
  const oidc = await ctx.oidc.stored();
  return ok({
    local_login,
    sso: [
      ...(ldap?.enabled ? [{ provider: 'ldap' as const, path: '/auth/ldap/login', totp: ldap.config.totp }] : []),
      ...(saml?.enabled ? [{ provider: 'saml' as const, path: '/auth/saml/login', totp: false }] : []),
      ...(oidc?.enabled ? [{ provider: 'oidc' as const, path: '/auth/oidc/login', totp: false }] : []),
    ],
  });
}
