import { getCookie } from 'hono/cookie';
import type { MiddlewareHandler } from 'hono';
import type { AgentAuth } from '../../auth/service.ts';
import type { RouteMiddleware } from '../app.ts';
import { SESSION_COOKIE, type AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';

const MESSAGES = {
  missing: 'sign in first',
  malformed: 'session token is malformed',
  forged: 'session token signature is invalid',
  expired: 'session expired; sign in again',
  revoked: 'session was revoked; sign in again',
} as const;

/** Credential routes need a valid session; public routes pass untouched. */
export function authentication(auth: AgentAuth): RouteMiddleware {
  return (route) => {
    if (route.access.auth === 'public') return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const check = await auth.resolveSession(getCookie(c, SESSION_COOKIE));
      if (!check.ok) return errorResponse(c, { code: 'unauthenticated', message: MESSAGES[check.reason] });
      c.set('principal', check.principal);
      await next();
    };
    return middleware;
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
