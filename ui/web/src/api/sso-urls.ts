// The addresses the SSO screens show and the sign-in buttons follow, derived as the agent
// derives them (runtime/sso/oidc.ts redirectUri, runtime/sso/saml.ts endpoints; a unit test
// compares the two): browsers reach the agent through the dashboard's /api/agent proxy.

const base = (publicUrl: string) => publicUrl.trim().replace(/\/$/, '');

/** Where the OIDC provider sends the browser back: the redirect URI to register there. */
export const oidcRedirectUri = (publicUrl: string) => `${base(publicUrl)}/api/agent/auth/oidc/callback`;

/** The SAML SP's addresses to give the IdP. */
export function samlEndpoints(publicUrl: string) {
  const saml = `${base(publicUrl)}/api/agent/auth/saml`;
  return { sp_entity_id: `${saml}/metadata`, acs_url: `${saml}/acs`, metadata_url: `${saml}/metadata`, slo_url: `${saml}/slo` };
}

/**
 * Where the browser goes to sign in with a redirect method (OIDC, SAML): the method's start
 * path under the dashboard's /api/agent proxy, so the identity provider's redirects happen in
 * the page and the session cookie lands on the dashboard's origin. `returnTo` is where the
 * agent sends the browser back to (a same-origin path).
 */
export const redirectSignInUrl = (path: string, returnTo: string) => `/api/agent${path}?${new URLSearchParams({ return_to: returnTo }).toString()}`;
