import type { Out } from '../../schema/common.ts';
import { sameOriginPath, samlFlowCookieRequired } from '../../domain/sso/saml.ts';
import { MASKED_SECRET, type SamlAcsInput, type SamlConfigInput, type SamlDisabled, type SamlMetadataOutput, type SamlStartInput, type SamlView } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type ResponseEffect, type Result } from '../result.ts';
import type { StoredSaml } from './saml-service.ts';
import { ssoSession } from './session.ts';

const off = { code: 'not_found', message: 'SAML sign-in is not enabled' } as const;
export const SAML_FLOW_COOKIE = 'capstan_saml';

/**
 * The flow cookie carrying the started sign-in (sealed) and binding the IdP's answer to the
 * browser that asked (login CSRF). The IdP's form posts cross-site, which carries only
 * `SameSite=None` cookies, and browsers take those only with `Secure` (the runtime adds it): so
 * only while the configured public URL is https (`samlFlowCookieRequired`). Over a plain-HTTP
 * public URL (development) no binding is possible.
 */
const flowCookie = (value: string, maxAgeSecs: number): ResponseEffect => ({ kind: 'cookie', name: SAML_FLOW_COOKIE, value, maxAgeSecs, path: '/', sameSite: 'None', httpOnly: true });

/** The admin's view (also part of GET /admin/sso). */
export function view(stored: StoredSaml, ctx: HandlerContext): Out<typeof SamlView> {
  const ep = ctx.saml.endpoints(stored.config);
  // The SP private key never leaves the agent: shown as •••• (sent back, it keeps the stored key).
  const config = { ...stored.config, sp_private_key_pem: stored.config.sp_private_key_pem === null ? null : MASKED_SECRET };
  return { enabled: stored.enabled, config, sp_entity_id: ep.spEntityId, acs_url: ep.acsUrl, metadata_url: ep.metadataUrl, slo_url: ep.sloUrl, updated_at: stored.updatedAt.toISOString() };
}

/** Admin: configure and enable SAML (Enterprise, the route's feature); stored sealed. */
export async function setSaml(input: Out<typeof SamlConfigInput>, ctx: HandlerContext): Promise<Result<Out<typeof SamlView>>> {
  const spKey = input.generate_sp_key ? 'generated' : input.sp_private_key_pem === null ? 'removed' : input.sp_private_key_pem === undefined || input.sp_private_key_pem === MASKED_SECRET ? 'kept' : 'supplied';
  ctx.request.noteAudit({ provider: 'saml', public_url: input.public_url, metadata: String(input.idp_metadata_xml !== undefined), sp_key: spKey });
  const stored = await ctx.saml.configure(input);
  return stored.ok ? ok(view(stored.value, ctx)) : stored;
}

/** Admin: the SAML configuration and the SP's addresses to give the IdP; 404 before it is configured. */
export async function getSaml(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SamlView>>> {
  const stored = await ctx.saml.stored();
  return stored ? ok(view(stored, ctx)) : fail({ code: 'not_found', message: 'SAML is not configured' });
}

/** Admin: SAML sign-in off (always allowed); password sign-in comes back for admins if it was the last SSO method, as for LDAP. */
export async function disableSaml(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SamlDisabled>>> {
  await ctx.saml.disable();
  const security = await ctx.runtimeSettings.get('security');
  if (security.local_login === 'off' && (await ctx.sso.enabledProviders()).length === 0) {
    await ctx.runtimeSettings.set('security', { ...security, local_login: 'admin_only' });
    ctx.request.noteAudit({ local_login: 'admin_only' });
  }
  return ok({ status: 'disabled' });
}

/** The SP metadata the IdP is given (public, like any SP's). */
export async function samlMetadata(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SamlMetadataOutput>>> {
  const stored = await ctx.saml.stored();
  if (!stored?.enabled) return fail(off);
  const xml = ctx.saml.metadata(stored.config);
  return ok({ xml }, [{ kind: 'download', filename: 'capstan-saml-metadata.xml', contentType: 'application/samlmetadata+xml', body: xml }]);
}

/** SP-initiated sign-in: redirect the browser to the IdP with an AuthnRequest (redirect binding). */
export async function samlStart(input: Out<typeof SamlStartInput>, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  const stored = await ctx.saml.stored();
  if (!stored?.enabled) return fail(off);
  const started = await ctx.saml.start(stored.config, sameOriginPath(input.return_to));
  if (!started.ok) return started;
  const { location, flowCookie: flow } = started.value;
  return ok({ location }, [{ kind: 'headers', headers: { 'cache-control': 'no-store' } }, ...(flow === null ? [] : [flowCookie(flow, 600)]), { kind: 'redirect', location }]);
}

/**
 * The assertion consumer (POST binding): a verified response signs the user in just in time
 * (groups to roles) with a SameSite=Lax session and sends the browser to the return path the
 * request was started with.
 */
export async function samlAcs(input: Out<typeof SamlAcsInput>, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  ctx.request.noteAudit({ provider: 'saml' });
  const stored = await ctx.saml.stored();
  if (!stored?.enabled) return fail(off);
  // Whether the flow cookie is required is the configuration's call (its public URL), not this request's scheme.
  const consumed = await ctx.saml.consume(stored.config, input.SAMLResponse, input.RelayState, ctx.request.cookie?.(SAML_FLOW_COOKIE));
  if (!consumed.ok) return consumed;
  const { identity, returnTo } = consumed.value;
  const session = await ssoSession(identity, ctx);
  if (!session.ok) return session;
  // The IdP's name for this session, which its LogoutRequest will carry (single logout).
  await ctx.saml.recordSession(session.value.sessionId, consumed.value.session);
  return ok({ location: returnTo }, [
    ...(samlFlowCookieRequired(stored.config.public_url) ? [flowCookie('', 0)] : []),
    { kind: 'set-session', token: session.value.token, username: session.value.username, sameSite: 'Lax' },
    { kind: 'redirect', location: returnTo },
  ]);
}
