import { getCookie } from 'hono/cookie';
import type { Context, MiddlewareHandler } from 'hono';
import type { AgentAuth } from '../../auth/service.ts';
import { OAUTH_TOKEN_PREFIX, type AgentOAuth } from '../../oauth/oauth.ts';
import { mcpResource } from '../../../handlers/oauth/flow.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, requestOrigin, SESSION_COOKIE, type AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';
import { keepWhileOpen } from '../streams.ts';
import type { Principal } from '../../../handlers/context.ts';
import type { AppError } from '../../../handlers/result.ts';
import type { CredentialAccess } from '../../../handlers/route.ts';

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

/** What the request's credential proves for a route: its principal, or the refusal (with what the middleware records about it). */
type CredentialCheck =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      error: AppError;
      /** Whom a verified credential belongs to, when it is refused for the route (audited as theirs). */
      owner?: Principal;
      /** A forged or malformed credential (the auth_flood counter). */
      forged?: 'session_token' | 'api_key' | 'oauth_token';
      /** No credential at all: a routine refusal, summarised. */
      anonymous?: true;
    };

/**
 * Resolves the request's credential (an OAuth token, an API key, else the session cookie) and
 * checks it against the route's access. Run by the authentication stage, and again while a
 * streamed route is open (`slide: false`: an open stream does not keep a session from idling out).
 */
async function checkCredential(c: Context<AppEnv>, access: CredentialAccess, auth: AgentAuth, oauth: AgentOAuth, slide: boolean): Promise<CredentialCheck> {
  const key = presentedApiKey(c);
  if (key?.startsWith(OAUTH_TOKEN_PREFIX) && c.req.header('x-api-key') === undefined) {
    const checked = await oauth.resolveToken(key);
    if (!checked.ok) {
      return { ok: false, error: { code: 'unauthenticated', message: TOKEN_MESSAGES[checked.reason] }, ...(checked.reason === 'malformed' || checked.reason === 'unknown' ? { forged: 'oauth_token' as const } : {}) };
    }
    const owner = checked.principal;
    // Bound to one server: a token minted for another resource is refused here (RFC 8707).
    if (checked.resource !== mcpResource(requestOrigin(c))) return { ok: false, owner, error: { code: 'unauthenticated', message: `this access token was issued for ${checked.resource}, not this server` } };
    if (access.scope === null || !owner.scopes.includes(access.scope)) {
      return { ok: false, owner, error: { code: 'api_key_insufficient_scope', message: 'an OAuth token reaches the MCP surface only', scope: access.scope ?? 'none' } };
    }
    return { ok: true, principal: owner };
  }
  if (key !== undefined) {
    const checked = await auth.resolveApiKey(key);
    if (!checked.ok) {
      return { ok: false, error: { code: 'unauthenticated', message: KEY_MESSAGES[checked.reason] }, ...(checked.reason === 'malformed' || checked.reason === 'unknown' ? { forged: 'api_key' as const } : {}) };
    }
    const owner = checked.principal;
    if (access.scope === null) return { ok: false, owner, error: { code: 'api_key_forbidden', message: 'API keys cannot reach this route' } };
    if (!owner.scopes.includes(access.scope)) {
      return { ok: false, owner, error: { code: 'api_key_insufficient_scope', message: `this route needs the ${access.scope} scope`, scope: access.scope } };
    }
    return { ok: true, principal: owner };
  }
  const check = await auth.resolveSession(getCookie(c, SESSION_COOKIE), { slide });
  if (!check.ok) {
    return {
      ok: false,
      error: { code: 'unauthenticated', message: MESSAGES[check.reason] },
      ...(check.reason === 'malformed' || check.reason === 'forged' ? { forged: 'session_token' as const } : {}),
      ...(check.reason === 'missing' ? { anonymous: true as const } : {}),
    };
  }
  return { ok: true, principal: check.principal };
}

/**
 * Credential routes need a valid session or API key; public routes pass untouched. A key
 * is refused before any handler runs when the route is closed to keys (403
 * api_key_forbidden) or the key lacks the route's scope (403 api_key_insufficient_scope);
 * either way its owner is known by then, and the refusal is audited as theirs. On a streamed
 * route the same check runs again while the stream is open (../streams.ts): a revoked,
 * expired or deactivated credential, or a key that lost the scope, closes it.
 */
export function authentication(auth: AgentAuth, oauth: AgentOAuth, onForged: ForgedCredentialReport = async () => {}): RouteMiddleware {
  return (route) => {
    const access = route.access;
    if (access.auth === 'public') return access.session === 'optional' ? optionalSession(auth) : null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const checked = await checkCredential(c, access, auth, oauth, true);
      if (!checked.ok) {
        if (checked.owner !== undefined) c.set('credentialOwner', checked.owner);
        if (checked.forged !== undefined) await onForged(clientIp(c), checked.forged);
        // No credential at all: routine (a signed-out tab, a scanner), summarised, not chained.
        if (checked.anonymous === true) c.set('anonymousRefusal', 'unauthenticated');
        return errorResponse(c, checked.error);
      }
      c.set('principal', checked.principal);
      keepWhileOpen(c, route, async () => {
        const again = await checkCredential(c, access, auth, oauth, false);
        if (!again.ok) return again.error;
        // The role stage's re-check reads the principal as it is now (a demotion closes an admin stream).
        c.set('principal', again.principal);
        return null;
      });
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

/** Admin-only routes refuse viewers with 403; the role is the one read with the session, every request (and on every re-check of an open stream). */
export function roleCheck(): RouteMiddleware {
  return (route) => {
    if (route.access.auth !== 'credential' || route.access.role !== 'admin') return null;
    const refusal = (c: Context<AppEnv>): AppError | null => (c.get('principal')?.role === 'admin' ? null : { code: 'forbidden', message: 'this needs the admin role' });
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const refused = refusal(c);
      if (refused !== null) return errorResponse(c, refused);
      keepWhileOpen(c, route, () => Promise.resolve(refusal(c)));
      await next();
    };
    return middleware;
  };
}
