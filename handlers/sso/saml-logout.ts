// SAML single logout (docs/sso.md "Single logout"). Signing out (GET /auth/saml/logout) ends the
// Capstan session at once, whatever the IdP then does, and sends the browser to the IdP with a
// signed LogoutRequest when the session came from SAML and single logout is configured. The
// SP's SingleLogoutService (POST or GET /auth/saml/slo, the HTTP-POST and HTTP-Redirect bindings) takes the IdP's answer to that, or the IdP's
// own LogoutRequest (the user signed out elsewhere), which ends every Capstan session it names.
// Unsigned or badly signed messages are refused and change nothing (runtime/sso/saml-logout.ts).
import type { Out } from '../../schema/common.ts';
import { sameOriginPath } from '../../domain/sso/saml.ts';
import type { SamlLogoutInput, SamlSloInput, SamlSloRedirectInput } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { SamlRedirectSignature } from './saml-service.ts';

/** Sign out: the Capstan session ends now; a SAML session's IdP is then asked to end its own. */
export async function samlLogout(input: Out<typeof SamlLogoutInput>, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  const returnTo = sameOriginPath(input.return_to);
  const principal = ctx.principal;
  if (principal?.via !== 'session') return ok({ location: returnTo }, [{ kind: 'clear-session' }, { kind: 'redirect', location: returnTo }]);
  const stored = await ctx.saml.stored();
  // Asked before the session ends: its SAML record goes with it.
  const idpLogout = stored?.enabled ? await ctx.saml.startLogout(stored.config, principal.sessionId, returnTo) : null;
  await ctx.auth.endSession(principal.sessionId);
  ctx.request.noteAudit({ provider: 'saml', idp_logout: String(idpLogout !== null) });
  const location = idpLogout ?? returnTo;
  return ok({ location }, [{ kind: 'headers', headers: { 'cache-control': 'no-store' } }, { kind: 'clear-session' }, { kind: 'redirect', location }]);
}

/**
 * The SP's SingleLogoutService, either binding. A LogoutRequest from the IdP ends the sessions
 * of the NameID (and SessionIndex) it names and answers the IdP with our signed LogoutResponse;
 * a LogoutResponse to our request lands the browser on its return path.
 */
async function singleLogout(input: Out<typeof SamlSloInput>, redirect: SamlRedirectSignature | undefined, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  const stored = await ctx.saml.stored();
  if (!stored?.enabled) return fail({ code: 'not_found', message: 'SAML sign-in is not enabled' });
  const binding = redirect ? 'redirect' : 'post';
  if (input.SAMLResponse !== undefined) {
    ctx.request.noteAudit({ provider: 'saml', message: 'LogoutResponse', binding });
    const answered = await ctx.saml.acceptLogoutResponse(stored.config, input.SAMLResponse, redirect);
    if (!answered.ok) return answered;
    return ok({ location: answered.value.returnTo }, [{ kind: 'redirect', location: answered.value.returnTo }]);
  }
  ctx.request.noteAudit({ provider: 'saml', message: 'LogoutRequest', binding });
  const request = await ctx.saml.acceptLogoutRequest(stored.config, input.SAMLRequest ?? '', input.RelayState, redirect);
  if (!request.ok) return request;
  for (const id of request.value.sessionIds) await ctx.auth.endSession(id);
  ctx.request.noteAudit({ name_id: request.value.nameId, sessions_ended: String(request.value.sessionIds.length) });
  // Without the IdP's SingleLogoutService there is nowhere to answer: the sessions ended, land on the sign-in page.
  const location = request.value.location ?? '/';
  return ok({ location }, [{ kind: 'headers', headers: { 'cache-control': 'no-store' } }, { kind: 'redirect', location }]);
}

/** HTTP-POST binding: the message carries an enveloped XML signature. */
export function samlSlo(input: Out<typeof SamlSloInput>, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  return singleLogout(input, undefined, ctx);
}

/** HTTP-Redirect binding: SigAlg and Signature sign the query string's exact bytes, which the runtime hands over. */
export function samlSloRedirect(input: Out<typeof SamlSloRedirectInput>, ctx: HandlerContext): Promise<Result<{ location: string }>> {
  return singleLogout(input, { sigAlg: input.SigAlg, signature: input.Signature, relayState: input.RelayState, rawQuery: ctx.request.rawQuery?.() ?? '' }, ctx);
}
