import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Principal } from '../../handlers/context.ts';
import type { AppError } from '../../handlers/result.ts';

/** Per-request values middleware hands to the endpoint. */
export interface AppEnv {
  Variables: {
    principal?: Principal;
    /** Who a request without a principal turned out to be (a successful sign-in), for the audit row. */
    signedIn?: string;
    /** Resolved once per request by the app (socket, or X-Forwarded-For from a trusted proxy). */
    clientIp?: string;
    /** The origin the client used, resolved once per request (X-Forwarded-Proto/Host only from a trusted proxy). */
    origin?: string;
    /** Whom a verified credential belongs to, set before its scope is checked, so a refused key is still audited as its owner. */
    credentialOwner?: Principal;
    /**
     * A routine refusal of a request that carried no credential at all (401, or 429 from the
     * anonymous allowance): counted into a periodic summary row instead of one chained row each.
     */
    anonymousRefusal?: 'unauthenticated' | 'rate_limited';
    /** Fields the handler added to this request's audit row. */
    auditNotes?: Record<string, string>;
    /** A streamed route's policies re-checked while it is open, in chain order (./streams.ts). */
    keepers?: Keeper[];
  };
}

export const SESSION_COOKIE = 'capstan_session';

/** The peer address of the socket. */
export function socketAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // No socket: an in-process request (tests through app.request).
    return 'unknown';
  }
}

/** The origin the client used (scheme and host), as the app resolved it. */
export function requestOrigin(c: Context<AppEnv>): string {
  return c.get('origin') ?? new URL(c.req.url).origin;
}

/** The client address the app resolved for this request. */
export function clientIp(c: Context<AppEnv>): string {
  return c.get('clientIp') ?? socketAddress(c);
}

/** One policy of a streamed route, re-checked while the stream is open: null while it still holds, else the refusal that closes it. */
export type Keeper = () => Promise<AppError | null>;
