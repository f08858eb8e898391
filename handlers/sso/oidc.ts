import type { Out } from '../../schema/common.ts';
import { safeReturnPath } from '../../domain/sso/oidc.ts';
import { MASKED_SECRET, type OidcCallbackInput, type OidcConfig, type OidcDisabled, type OidcRedirect, type OidcStartInput, type OidcView } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type ResponseEffect, type Result } from '../result.ts';
import { OIDC_FLOW_COOKIE, type StoredOidc } from './oidc-service.ts';
import { ssoSession } from './session.ts';

const off = { code: 'not_found', message: 'OIDC sign-in is not enabled' } as const;

/** The admin's view: the client secret never leaves the agent once stored. */
export function oidcView(stored: StoredOidc, ctx: HandlerContext): Out<typeof OidcView> {
  return { enabled: stored.enabled, config: { ...stored.config, client_secret: MASKED_SECRET }, redirect_uri: ctx.oidc.redirectUri(stored.config), updated_at: stored.updatedAt.toISOString() };
}

/**
 * The flow cookie: HttpOnly, Lax (the provider's redirect back is a cross-site top-level GET that
 * must carry it), 10 minutes; Secure as security.cookieSecure says (the runtime decides).
 */
const flowCookie = (value: string, maxAgeSecs: number): ResponseEffect => ({ kind: 'cookie', name: OIDC_FLOW_COOKIE, value, maxAgeSecs, path: '/', sameSite: 'Lax', httpOnly: true });

/** Admin: configure and enable OIDC (Enterprise, the route's feature); the issuer's discovery must answer; stored sealed. */
export async function setOidc(input: Out<typeof OidcConfig>, ctx: HandlerContext): Promise<Result<Out<typeof OidcView>>> {
  ctx.request.noteAudit({ provider: 'oidc', issuer: input.issuer, client_id: input.client_id });
  let config = input;
  // The masked secret sent back means "keep the stored one" (the admin edits other fields). The
  // stored secret belongs to the issuer it was entered for, as the AI provider key and the audit
  // webhook token belong to theirs: it is sent to that issuer's token endpoint (from its own
  // discovery document) at every sign-in, so a new issuer needs the secret typed again, or a
  // session could send it to a host of its choosing. Issuers are compared exactly, as `iss` is.
  if (input.client_secret === MASKED_SECRET) {
    const stored = await ctx.oidc.stored();
    if (!stored) return fail({ code: 'invalid_input', field: 'client_secret', message: 'client_secret is required' });
    if (stored.config.issuer !== input.issuer) {
      return fail({ code: 'invalid_input', field: 'client_secret', message: 'client_secret must be given again when the issuer changes: the stored secret is only sent to the issuer it was entered for' });
    }
    config = { ...input, client_secret: stored.config.client_secret };
  }
  const saved = await ctx.oidc.configure(config);
  return saved.ok ? ok(oidcView(saved.value, ctx)) : saved;
}

/** Admin: OIDC sign-in off (always allowed); password sign-in comes back for admins if it was the last SSO method, as for LDAP. */
export async function disableOidc(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof OidcDisabled>>> {
  await ctx.oidc.disable();
  const security = await ctx.runtimeSettings.get('security');
  if (security.local_login === 'off' && (await ctx.sso.enabledProviders()).length === 0) {
    await ctx.runtimeSettings.set('security', { ...security, local_login: 'admin_only' });
    ctx.request.noteAudit({ local_login: 'admin_only' });
  }
  return ok({ status: 'disabled' });
}

/** Starts a sign-in: 302 to the provider, with state, nonce and the PKCE verifier in the sealed Lax flow cookie. */
export async function oidcStart(input: Out<typeof OidcStartInput>, ctx: HandlerContext): Promise<Result<Out<typeof OidcRedirect>>> {
  const stored = await ctx.oidc.stored();
  if (!stored?.enabled) return fail(off);
  const started = await ctx.oidc.start(stored.config, safeReturnPath(input.return_to));
  if (!started.ok) return started;
  const { location } = started.value;
  return ok({ location }, [{ kind: 'headers', headers: { 'cache-control': 'no-store' } }, flowCookie(started.value.flowCookie, 600), { kind: 'redirect', location }]);
}

/**
 * The provider's redirect back: the code is exchanged and the ID token verified, then the
 * user is signed in just in time (groups to roles) with a SameSite=Lax session and sent to the
 * same-origin return path the sign-in started with. The flow cookie is cleared either way.
 */
export async function oidcCallback(input: Out<typeof OidcCallbackInput>, ctx: HandlerContext): Promise<Result<Out<typeof OidcRedirect>>> {
  ctx.request.noteAudit({ provider: 'oidc' });
  const stored = await ctx.oidc.stored();
  if (!stored?.enabled) return fail(off);
  if (input.error !== undefined) return fail({ code: 'unauthenticated', message: `the identity provider refused the sign-in: ${input.error}${input.error_description ? ` (${input.error_description})` : ''}` });
  if (input.code === undefined || input.state === undefined) return fail({ code: 'invalid_input', field: input.code === undefined ? 'code' : 'state', message: 'code and state are required' });
  const finished = await ctx.oidc.finish(stored.config, input.code, input.state, ctx.request.cookie?.(OIDC_FLOW_COOKIE));
  if (!finished.ok) return finished;
  const { identity, returnTo } = finished.value;
  const session = await ssoSession(identity, ctx);
  if (!session.ok) return session;
  return ok({ location: returnTo }, [
    { kind: 'headers', headers: { 'cache-control': 'no-store' } },
    flowCookie('', 0),
    { kind: 'set-session', token: session.value.token, username: session.value.username, sameSite: 'Lax' },
    { kind: 'redirect', location: returnTo },
  ]);
}
