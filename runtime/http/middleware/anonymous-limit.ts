import type { MiddlewareHandler } from 'hono';
import type { Clock } from '../../../domain/clock.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';
import { clientRateKey } from './client-key.ts';
import { errorResponse } from '../status.ts';
import { presentsCredential } from './authenticate.ts';

/**
 * Requests per minute one address may make without any credential, across every audited
 * route (a burst of a minute's worth, refilled continuously). A signed-out dashboard makes a
 * handful before its sign-in; a scanner makes thousands. Requests that carry a credential,
 * valid or forged, are not counted here: forged ones feed the auth_flood ban instead.
 */
export const DEFAULT_ANONYMOUS_PER_MIN = 120;

/** Addresses tracked at once; the stalest bucket goes first, so memory stays bounded under a spray. */
const MAX_BUCKETS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Runs before authentication: an address past its anonymous allowance gets 429
 * rate_limited with Retry-After, with no session lookup and no chained audit row (the
 * refusal is counted into the periodic summary). Routes that write no audit row (probes,
 * OAuth discovery) have their own class limits and are not counted.
 */
export function anonymousLimit(clock: Clock, perMinute: number = DEFAULT_ANONYMOUS_PER_MIN): RouteMiddleware {
  const buckets = new Map<string, Bucket>();
  return (route) => {
    if (route.probe || route.audit === 'none') return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      if (presentsCredential(c)) return next();
      // A whole IPv6 /64 is one client here (./client-key.ts).
      const ip = clientRateKey(clientIp(c));
      const t = clock.now().getTime();
      const bucket = buckets.get(ip) ?? { tokens: perMinute, at: t };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (Math.max(0, t - bucket.at) * perMinute) / 60_000);
      bucket.at = t;
      // Re-inserted on every use, so the Map's first key is always the stalest.
      buckets.delete(ip);
      buckets.set(ip, bucket);
      if (buckets.size > MAX_BUCKETS) {
        const stalest = buckets.keys().next().value;
        if (stalest !== undefined) buckets.delete(stalest);
      }
      if (bucket.tokens < 1) {
        c.set('anonymousRefusal', 'rate_limited');
        const retryAfterSecs = Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / perMinute));
        return errorResponse(c, { code: 'rate_limited', message: `more than ${perMinute} requests a minute without a credential from this address; sign in or slow down`, retryAfterSecs });
      }
      bucket.tokens -= 1;
      await next();
    };
    return middleware;
  };
}
