import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Principal } from '../../handlers/context.ts';

/** Per-request values middleware hands to the endpoint. */
export interface AppEnv {
  Variables: {
    principal?: Principal;
    /** Who a request without a principal turned out to be (a successful sign-in), for the audit row. */
    signedIn?: string;
  };
}

export const SESSION_COOKIE = 'capstan_session';

/** The peer address of the socket. X-Forwarded-For is not trusted (trusted proxies come with the IP access layer). */
export function clientIp(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // No socket: an in-process request (tests through app.request).
    return 'unknown';
  }
}
