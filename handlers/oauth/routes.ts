// MCP over OAuth: discovery metadata, dynamic client registration, the authorization and
// token endpoints (public: the client has no credential yet), the consent a signed-in user
// gives, Account → Connected apps, and Admin → OAuth clients.
import * as v from 'valibot';
import { deleteOAuthClient, listOAuthClients } from './clients.ts';
import { authorizationServer, authorize, consent, consentPreview, listGrants, protectedResource, registerClient, revokeGrant, token } from './flow.ts';
import { NoInput } from '../../schema/common.ts';
import {
  AuthorizationServerMetadata,
  AuthorizeInput,
  ConsentInput,
  ConsentOutput,
  ConsentPreviewOutput,
  GrantIdInput,
  GrantList,
  GrantRevoked,
  OAuthClientDeleted,
  OAuthClientIdInput,
  OAuthClientList,
  ProtectedResourceMetadata,
  RegisterClientInput,
  RegisteredClient,
  TokenInput,
  TokenOutput,
} from '../../schema/oauth.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

const open = { access: { auth: 'public' }, feature: null } as const;
const discovery = { ...open, audit: 'none', rateLimit: 'discovery', input: NoInput } as const;

export const oauthRoutes: readonly Route[] = [
  ...['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/agent/mcp'].map((path) =>
    defineRoute({ ...discovery, method: 'GET', path, summary: 'OAuth protected-resource metadata of the MCP endpoint (RFC 9728)', output: ProtectedResourceMetadata, handler: protectedResource }),
  ),
  defineRoute({ ...discovery, method: 'GET', path: '/.well-known/oauth-authorization-server', summary: 'OAuth authorization-server metadata (RFC 8414)', output: AuthorizationServerMetadata, handler: authorizationServer }),
  defineRoute({
    ...open,
    audit: 'auth',
    // Its own per-address class: anyone may register, so few a minute from one address.
    rateLimit: 'register',
    method: 'POST',
    path: '/oauth/register',
    summary: 'Dynamic client registration (RFC 7591): public clients with PKCE; 503 registration_full (with Retry-After) while 1000 clients are registered',
    // JSON (RFC 7591 §3.1); no cookie is read or set, so another origin may call it.
    crossOrigin: 'allow',
    input: RegisterClientInput,
    output: RegisteredClient,
    handler: registerClient,
  }),
  defineRoute({
    ...open,
    // Errors go back to the client only for a signed-in user (see handlers/oauth/flow.ts).
    access: { auth: 'public', session: 'optional' },
    audit: 'auth',
    rateLimit: 'login',
    method: 'GET',
    path: '/oauth/authorize',
    summary: 'Authorization code + PKCE (S256): redirects to the dashboard consent screen, which names the client',
    input: AuthorizeInput,
    output: v.null(),
    handler: authorize,
  }),
  defineRoute({ ...noApiKeys('viewer'), audit: 'http', rateLimit: 'read', method: 'GET', path: '/oauth/consent', summary: 'What the consent screen shows: the client and what it asks for', input: AuthorizeInput, output: ConsentPreviewOutput, handler: consentPreview }),
  defineRoute({
    ...noApiKeys('viewer'),
    audit: 'auth',
    rateLimit: 'write',
    method: 'POST',
    path: '/oauth/consent',
    summary: "The signed-in user's approval or refusal; answers where to send the browser",
    input: ConsentInput,
    output: ConsentOutput,
    handler: consent,
  }),
  defineRoute({
    ...open,
    audit: 'auth',
    rateLimit: 'login',
    method: 'POST',
    path: '/oauth/token',
    summary: 'Exchanges a code (with its PKCE verifier) for a one-hour, read-only token bound to this MCP endpoint',
    // RFC 6749 §4.1.3: clients post a form. No cookie is read or set, so another origin may call it.
    bodyFormats: ['form', 'json'],
    crossOrigin: 'allow',
    input: TokenInput,
    output: TokenOutput,
    handler: token,
  }),
  defineRoute({ ...noApiKeys('viewer'), audit: 'http', rateLimit: 'read', method: 'GET', path: '/me/oauth/grants', summary: 'Your connected apps: live OAuth tokens by client', input: NoInput, output: GrantList, handler: listGrants }),
  defineRoute({ ...noApiKeys('viewer'), audit: 'auth', rateLimit: 'write', method: 'DELETE', path: '/me/oauth/grants/:id', summary: 'Disconnect an app: its token stops working at once', input: GrantIdInput, output: GrantRevoked, handler: revokeGrant }),
  defineRoute({
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'read',
    method: 'GET',
    path: '/admin/oauth/clients',
    summary: 'Registered OAuth (MCP) clients, newest first: whether a user approved them (else when they expire), live tokens, last use; and the registration limit',
    input: NoInput,
    output: OAuthClientList,
    handler: listOAuthClients,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    audit: 'auth',
    rateLimit: 'write',
    method: 'DELETE',
    path: '/admin/oauth/clients/:id',
    summary: "Delete an OAuth client: its live tokens are revoked at once (they answer 401 'access token was revoked') and it can start no new flow",
    input: OAuthClientIdInput,
    output: OAuthClientDeleted,
    handler: deleteOAuthClient,
  }),
];
