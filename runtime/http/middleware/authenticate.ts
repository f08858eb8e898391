import { getCookie } from 'hono/cookie';
import type { Context, MiddlewareHandler } from 'hono';
import type { AgentAuth } from '../../auth/service.ts';
import { OAUTH_TOKEN_PREFIX, type AgentOAuth } from '../../oauth/oauth.ts';
import { mcpResource } from '../../../handlers/oauth/flow.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, requestOrigin, SESSION_COOKIE, type AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';

const MESSAGES = {
  missing: 'sign in first',
  malformed: 'session token is malformed',
  forged: 'session token signature is invalid',
  expired: 'session expired; sign in again',
  revoked: 'session was revoked; sign in again',
} as const;

const KEY_MESSAGES = {
  malformed: 'API key is malformed',
  unknown: 'API key is not valid',
  revoked: 'API key was revoked',
  expired: 'API key has expired',
  owner_inactive: 'the API key owner is deactivated',
} as const;

/** An API key from `X-API-Key`, or `Authorization: Bearer <key>`. */
function presentedApiKey(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('x-api-key');
  if (header !== undefined) return header;
  const authorization = c.req.header('authorization');
  return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length).trim() : undefined;
}

/** Whether the request carries any credential at all (a session cookie, an API key or a bearer token), valid or not. */
export function presentsCredential(c: Context<AppEnv>): boolean {
  return presentedApiKey(c) !== undefined || (getCookie(c, SESSION_COOKIE) ?? '') !== '';
}

/** Told about each forged or malformed credential (the auth_flood counter). Never a missing or benignly expired one. */
export type ForgedCredentialReport = (ip: string, what: 'session_token' | 'api_key' | 'oauth_token') => Promise<void>;

const TOKEN_MESSAGES = {
  malformed: 'access token is malformed',
  unknown: 'access token is not valid',
  revoked: 'access token was revoked',
  expired: 'access token has expired',
  owner_inactive: 'the user who approved this token is deactivated',
} as const;

/**
 * Credential routes need a valid session or API key; public routes pass untouched. A key
 * is refused before any handler runs when the route is closed to keys (403
 * api_key_forbidden) or the key lacks the route's scope (403 api_key_insufficient_scope);
 * either way its owner is known by then, and the refusal is audited as theirs.
 */
export function authentication(auth: AgentAuth, oauth: AgentOAuth, onForged: ForgedCredentialReport = async () => {}): RouteMiddleware {
  return (route) => {
    const access = route.access;
    if (access.auth === 'public') return access.session === 'optional' ? optionalSession(auth) : null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const key = presentedApiKey(c);
      if (key?.startsWith(OAUTH_TOKEN_PREFIX) && c.req.header('x-api-key') === undefined) {
        const checked = await oauth.resolveToken(key);
        if (!checked.ok) {
          if (checked.reason === 'malformed' || checked.reason === 'unknown') await onForged(clientIp(c), 'oauth_token');
          return errorResponse(c, { code: 'unauthenticated', message: TOKEN_MESSAGES[checked.reason] });
        }
        c.set('credentialOwner', checked.principal);
        // Bound to one server: a token minted for another resource is refused here (RFC 8707).
        if (checked.resource !== mcpResource(requestOrigin(c))) return errorResponse(c, { code: 'unauthenticated', message: `this access token was issued for ${checked.resource}, not this server` });
        if (access.scope === null || !checked.principal.scopes.includes(access.scope)) {
          return errorResponse(c, { code: 'api_key_insufficient_scope', message: 'an OAuth token reaches the MCP surface only', scope: access.scope ?? 'none' });
        }
        c.set('principal', checked.principal);
        await next();
        return;
      }
      if (key !== undefined) {
        const checked = await auth.resolveApiKey(key);
        if (!checked.ok) {
          if (checked.reason === 'malformed' || checked.reason === 'unknown') await onForged(clientIp(c), 'api_key');
          return errorResponse(c, { code: 'unauthenticated', message: KEY_MESSAGES[checked.reason] });
        }
        c.set('credentialOwner', checked.principal);
        if (access.scope === null) return errorResponse(c, { code: 'api_key_forbidden', message: 'API keys cannot reach this route' });
        if (!checked.principal.scopes.includes(access.scope)) {
          return errorResponse(c, { code: 'api_key_insufficient_scope', message: `this route needs the ${access.scope} scope`, scope: access.scope });
        }
        c.set('principal', checked.principal);
        await next();
        return;
      }
      const check = await auth.resolveSession(getCookie(c, SESSION_COOKIE));
      if (!check.ok) {
        if (check.reason === 'malformed' || check.reason === 'forged') await onForged(clientIp(c), 'session_token');
        // No credential at all: routine (a signed-out tab, a scanner), summarised, not chained.
        if (check.reason === 'missing') c.set('anonymousRefusal', 'unauthenticated');
        return errorResponse(c, { code: 'unauthenticated', message: MESSAGES[check.reason] });
      }
      c.set('principal', check.principal);
      await next();
    };
    return middleware;
  };
}

/** A public route that still wants to know who is signed in: a valid session sets the principal; anything else is anonymous, never refused. */
function optionalSession(auth: AgentAuth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const check = await auth.resolveSession(getCookie(c, SESSION_COOKIE));
    if (check.ok) c.set('principal', check.principal);
    await next();
  };
}

/** Admin-only routes refuse viewers with 403; the role is the one read with the session, every request. */
export function roleCheck(): RouteMiddleware {
  return (route) => {
    if (route.access.auth !== 'credential' || route.access.role !== 'admin') return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      if (c.get('principal')?.role !== 'admin') return errorResponse(c, { code: 'forbidden', message: 'this needs the admin role' });
      await next();
    };
    return middleware;
  };
}
