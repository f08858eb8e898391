// MCP over OAuth 2.1: metadata (RFC 9728, RFC 8414), dynamic registration (RFC 7591),
// authorization code with PKCE S256 (RFC 7636), tokens bound to a resource (RFC 8707).
import * as v from 'valibot';
import { Timestamp } from './common.ts';

/** https anywhere, or http on a loopback host (a desktop client's local callback). */
const RedirectUri = v.pipe(
  v.string(),
  v.maxLength(2000),
  v.check((uri) => {
    try {
      const url = new URL(uri);
      return url.hash === '' && (url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)));
    } catch {
      return false;
    }
  }, 'redirect URIs must be https, or http on localhost/127.0.0.1, without a fragment'),
);

export const ProtectedResourceMetadata = v.object({
  resource: v.string(),
  authorization_servers: v.array(v.string()),
  scopes_supported: v.array(v.string()),
  bearer_methods_supported: v.array(v.string()),
  resource_name: v.string(),
});

export const AuthorizationServerMetadata = v.object({
  issuer: v.string(),
  authorization_endpoint: v.string(),
  token_endpoint: v.string(),
  registration_endpoint: v.string(),
  response_types_supported: v.array(v.string()),
  grant_types_supported: v.array(v.string()),
  code_challenge_methods_supported: v.array(v.string()),
  token_endpoint_auth_methods_supported: v.array(v.string()),
  scopes_supported: v.array(v.string()),
});

export const RegisterClientInput = v.object({
  client_name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)), 'unnamed MCP client'),
  redirect_uris: v.pipe(v.array(RedirectUri), v.minLength(1, 'at least one redirect URI'), v.maxLength(10)),
  token_endpoint_auth_method: v.optional(v.picklist(['none'], 'only public clients (token_endpoint_auth_method none, with PKCE) are supported')),
});

export const RegisteredClient = v.object({
  client_id: v.string(),
  client_name: v.string(),
  redirect_uris: v.array(v.string()),
  grant_types: v.array(v.string()),
  response_types: v.array(v.string()),
  token_endpoint_auth_method: v.literal('none'),
  client_id_issued_at: v.number(),
});

const AuthorizationRequest = {
  response_type: v.literal('code', 'response_type must be code'),
  client_id: v.pipe(v.string(), v.maxLength(100)),
  redirect_uri: v.pipe(v.string(), v.maxLength(2000)),
  code_challenge: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43,128}$/, 'code_challenge must be a PKCE S256 challenge')),
  code_challenge_method: v.literal('S256', 'code_challenge_method must be S256'),
  state: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  resource: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  scope: v.optional(v.pipe(v.string(), v.maxLength(200))),
};

export const AuthorizeInput = v.object(AuthorizationRequest);
export const ConsentInput = v.object({ ...AuthorizationRequest, approve: v.boolean() });
export const ConsentOutput = v.object({ redirect_to: v.string() });
export const ConsentPreviewOutput = v.object({ client_name: v.string(), client_id: v.string(), redirect_uri: v.string(), resource: v.string(), scope: v.literal('mcp:read') });

export const TokenInput = v.object({
  grant_type: v.string(),
  code: v.pipe(v.string(), v.maxLength(200)),
  redirect_uri: v.pipe(v.string(), v.maxLength(2000)),
  client_id: v.pipe(v.string(), v.maxLength(100)),
  code_verifier: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._~-]{43,128}$/, 'code_verifier must be 43–128 unreserved characters')),
  resource: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});

export const TokenOutput = v.object({ access_token: v.string(), token_type: v.literal('Bearer'), expires_in: v.number(), scope: v.literal('mcp:read') });

/** A user's live access token for one client (Account → Connected apps). */
export const OAuthGrant = v.object({ id: v.string(), client_id: v.string(), client_name: v.string(), created_at: Timestamp, expires_at: Timestamp, last_used_at: v.nullable(Timestamp) });
export const GrantList = v.object({ grants: v.array(OAuthGrant) });
export const GrantIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^grant_[A-Za-z0-9_-]+$/, 'id must be a grant id')) });
export const GrantRevoked = v.object({ status: v.literal('revoked') });

/** A registered client as Admin → Access control → OAuth clients shows it. */
export const OAuthClientView = v.object({
  client_id: v.string(),
  client_name: v.string(),
  redirect_uris: v.array(v.string()),
  created_at: Timestamp,
  /** When a user last approved it on the consent screen; null: never. */
  last_authorized_at: v.nullable(Timestamp),
  /** When it is forgotten unless a user approves it first; null once one has. */
  expires_at: v.nullable(Timestamp),
  /** Its tokens neither expired nor revoked. */
  live_tokens: v.number(),
  /** The last MCP request one of its tokens made. */
  last_used_at: v.nullable(Timestamp),
});
/** Every client, newest first, and the most that may be registered at once. */
export const OAuthClientList = v.object({ clients: v.array(OAuthClientView), limit: v.number() });
export const OAuthClientIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^mcp_[A-Za-z0-9_-]{1,60}$/, 'id must be an OAuth client id (mcp_…)')) });
export const OAuthClientDeleted = v.object({ status: v.literal('deleted'), tokens_revoked: v.number() });
