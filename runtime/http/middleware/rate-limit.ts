import type { MiddlewareHandler } from 'hono';
import type { Clock } from '../../../domain/clock.ts';
import type { RateLimitClass } from '../../../schema/access.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';
import { clientRateKey } from './client-key.ts';
import { errorResponse } from '../status.ts';

/**
 * Requests per minute per caller (the signed-in user, else the address) for each class a
 * route declares. `ai` is security.aiRateLimitPerMin and `discovery`
 * security.discoveryRateLimitPerMin (spec §8); the spec leaves the others to us: generous
 * for a person or a script, a wall for a runaway loop.
 */
/** Requests a minute, per caller, for each class. */
export type RateLimits = Readonly<Record<RateLimitClass, number>>;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  read: 1200,
  write: 120,
  login: 30,
  ai: 10,
  discovery: 300,
  /** Anonymous OAuth client registration, per address: a client registers once, not in a loop. */
  register: 10,
};

/** Buckets kept at once; a full (idle) bucket is the first to go, so memory stays bounded. */
const MAX_BUCKETS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets: a burst up to a minute's allowance, refilled continuously. */
export function rateLimiting(clock: Clock, limits: RateLimits = DEFAULT_RATE_LIMITS): RouteMiddleware {
  const buckets = new Map<string, Bucket>();
  return (route) => {
    if (route.probe) return null;
    const rateClass = route.rateLimit;
    const perMinute = limits[rateClass];
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const principal = c.get('principal');
      // Before sign-in the address's bucket: a whole IPv6 /64, an IPv4 address (./client-key.ts).
      const key = `${rateClass}:${principal ? `user:${String(principal.userId)}` : `ip:${clientRateKey(clientIp(c))}`}`;
      const t = clock.now().getTime();
      const bucket = buckets.get(key) ?? { tokens: perMinute, at: t };
      bucket.tokens = Math.min(perMinute, bucket.tokens + (Math.max(0, t - bucket.at) * perMinute) / 60_000);
      bucket.at = t;
      buckets.delete(key);
      if (bucket.tokens < 1) {
        buckets.set(key, bucket);
        const retryAfterSecs = Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / perMinute));
        return errorResponse(c, { code: 'rate_limited', message: `more than ${perMinute} ${rateClass} requests a minute; slow down`, retryAfterSecs });
      }
      bucket.tokens -= 1;
      buckets.set(key, bucket);
      if (buckets.size > MAX_BUCKETS) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      await next();
    };
    return middleware;
  };
}
