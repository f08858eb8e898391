// The OAuth authorization server in front of the MCP surface. A token carries no role of its
// own: it acts as the user who approved it, as that user is at each request, and reaches the
// MCP surface only. See docs/mcp.md.
import type { Out } from '../../schema/common.ts';
import type {
  AuthorizationServerMetadata,
  AuthorizeInput,
  ConsentInput,
  ConsentOutput,
  ConsentPreviewOutput,
  GrantIdInput,
  GrantList,
  GrantRevoked,
  ProtectedResourceMetadata,
  RegisterClientInput,
  RegisteredClient,
  TokenInput,
  TokenOutput,
} from '../../schema/oauth.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import type { OAuthClient } from './service.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

type AuthorizationRequest = Out<typeof AuthorizeInput>;

/** The one resource tokens are minted for: this agent's MCP endpoint as the client reaches it. */
export const mcpResource = (origin: string): string => `${origin}/api/agent/mcp`;
const oauthBase = (origin: string) => `${origin}/api/agent/oauth`;

const oauthError = (oauthErrorCode: Extract<AppError, { code: 'oauth_error' }>['oauthError'], message: string): AppError => ({ code: 'oauth_error', oauthError: oauthErrorCode, message });

export function protectedResource(_input: unknown, ctx: HandlerContext): Result<Out<typeof ProtectedResourceMetadata>> {
  const origin = ctx.request.origin;
  return ok({ resource: mcpResource(origin), authorization_servers: [origin], scopes_supported: ['mcp:read'], bearer_methods_supported: ['header'], resource_name: 'Capstan MCP' });
}

export function authorizationServer(_input: unknown, ctx: HandlerContext): Result<Out<typeof AuthorizationServerMetadata>> {
  const origin = ctx.request.origin;
  return ok({
    issuer: origin,
    authorization_endpoint: `${oauthBase(origin)}/authorize`,
    token_endpoint: `${oauthBase(origin)}/token`,
    registration_endpoint: `${oauthBase(origin)}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ['mcp:read'],
  });
}

export async function registerClient(input: Out<typeof RegisterClientInput>, ctx: HandlerContext): Promise<Result<Out<typeof RegisteredClient>>> {
  const registered = await ctx.oauth.registerClient(input.client_name, input.redirect_uris);
  if (!registered.ok) return registered;
  const client = registered.value;
  ctx.request.noteAudit({ oauth_client: client.client_id, client_name: client.client_name });
  return ok({
    client_id: client.client_id,
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
    client_id_issued_at: Math.floor(Date.parse(client.created_at) / 1000),
  });
}

/** The checks every step repeats: a known client, one of its redirect URIs, and our resource. */
async function checkRequest(request: AuthorizationRequest, ctx: HandlerContext): Promise<{ client: OAuthClient; resource: string } | { error: AppError; redirect: boolean }> {
  const client = await ctx.oauth.client(request.client_id);
  if (!client) return { error: oauthError('invalid_client', 'unknown client_id: register the client first'), redirect: false };
  if (!client.redirect_uris.includes(request.redirect_uri)) return { error: oauthError('invalid_redirect_uri', 'redirect_uri is not one this client registered'), redirect: false };
  const resource = mcpResource(ctx.request.origin);
  if (request.resource !== undefined && request.resource !== resource) return { error: oauthError('invalid_target', `this server issues tokens only for ${resource}`), redirect: true };
  if (request.scope !== undefined && request.scope.split(' ').some((s) => s !== '' && s !== 'mcp:read')) return { error: oauthError('invalid_request', 'the only scope is mcp:read (read-only)'), redirect: true };
  return { client, resource };
}

function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(k, value);
  return url.toString();
}

/**
 * Validates the request, then sends the browser to the dashboard's consent screen, which names the client.
 * An error goes back to the client's redirect URI only when the client exists, the URI is one it
 * registered, AND a user is signed in; otherwise Capstan answers the error itself. Registration is
 * open, so a registered URI alone proves nothing: redirecting anyone's browser there on request
 * would make this endpoint an open redirector (RFC 6749 §4.1.2.1, RFC 9700 §4.11.2). See docs/mcp.md.
 */
export async function authorize(input: AuthorizationRequest, ctx: HandlerContext): Promise<Result<null>> {
  const checked = await checkRequest(input, ctx);
  if ('error' in checked) {
    if (!checked.redirect || checked.error.code !== 'oauth_error' || ctx.principal === null) return fail(checked.error);
    return ok(null, [{ kind: 'redirect', location: withParams(input.redirect_uri, { error: checked.error.oauthError, error_description: checked.error.message, state: input.state }) }]);
  }
  const query = new URLSearchParams(Object.entries({ ...input, resource: checked.resource }).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return ok(null, [{ kind: 'redirect', location: `${ctx.request.origin}/oauth/consent?${query.toString()}` }]);
}

/** What the consent screen shows: who asks, for what. */
export async function consentPreview(input: AuthorizationRequest, ctx: HandlerContext): Promise<Result<Out<typeof ConsentPreviewOutput>>> {
  const checked = await checkRequest(input, ctx);
  if ('error' in checked) return fail(checked.error);
  return ok({ client_name: checked.client.client_name, client_id: checked.client.client_id, redirect_uri: input.redirect_uri, resource: checked.resource, scope: 'mcp:read' as const });
}

/** The signed-in user's answer; approval mints a single-use code bound to this user, client, PKCE challenge and resource. */
export async function consent(input: Out<typeof ConsentInput>, ctx: AuthedContext): Promise<Result<Out<typeof ConsentOutput>>> {
  const principal = ctx.principal;
  const checked = await checkRequest(input, ctx);
  if ('error' in checked) return fail(checked.error);
  ctx.request.noteAudit({ oauth_client: checked.client.client_id, client_name: checked.client.client_name, decision: input.approve ? 'approved' : 'denied' });
  if (!input.approve) return ok({ redirect_to: withParams(input.redirect_uri, { error: 'access_denied', state: input.state }) });
  const code = await ctx.oauth.issueCode({ clientId: checked.client.client_id, userId: principal.userId, redirectUri: input.redirect_uri, codeChallenge: input.code_challenge, resource: checked.resource });
  return ok({ redirect_to: withParams(input.redirect_uri, { code, state: input.state }) });
}

export async function token(input: Out<typeof TokenInput>, ctx: HandlerContext): Promise<Result<Out<typeof TokenOutput>>> {
  if (input.grant_type !== 'authorization_code') return fail(oauthError('unsupported_grant_type', 'only authorization_code is supported'));
  if (!(await ctx.oauth.client(input.client_id))) return fail(oauthError('invalid_client', 'unknown client_id'));
  if (input.resource !== undefined && input.resource !== mcpResource(ctx.request.origin)) return fail(oauthError('invalid_target', `this server issues tokens only for ${mcpResource(ctx.request.origin)}`));
  const issued = await ctx.oauth.exchangeCode({ code: input.code, clientId: input.client_id, redirectUri: input.redirect_uri, codeVerifier: input.code_verifier, resource: input.resource ?? null });
  if ('error' in issued) return fail(oauthError('invalid_grant', issued.error));
  ctx.request.noteAudit({ oauth_client: input.client_id });
  return ok({ access_token: issued.token, token_type: 'Bearer' as const, expires_in: issued.expiresInSecs, scope: 'mcp:read' as const }, [{ kind: 'headers', headers: { 'Cache-Control': 'no-store' } }]);
}

export async function listGrants(_input: unknown, ctx: AuthedContext): Promise<Result<Out<typeof GrantList>>> {
  return ok({ grants: await ctx.oauth.grants(ctx.principal.userId) });
}

export async function revokeGrant(input: Out<typeof GrantIdInput>, ctx: AuthedContext): Promise<Result<Out<typeof GrantRevoked>>> {
  if (!(await ctx.oauth.revoke(ctx.principal.userId, input.id))) return fail({ code: 'not_found', message: `no connected app ${input.id} of yours` });
  ctx.request.noteAudit({ oauth_grant: input.id });
  return ok({ status: 'revoked' as const });
}
