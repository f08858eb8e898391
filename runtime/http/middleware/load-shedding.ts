import type { MiddlewareHandler } from 'hono';
import type { RouteMiddleware } from '../app.ts';
import type { AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';
import { acceptsEvents } from '../streams.ts';

export interface SheddingOptions {
  /** Requests allowed in flight at once across every non-probe route (spec leaves the value to us). */
  maxInFlight: number;
  retryAfterSecs: number;
}

export const DEFAULT_SHEDDING: SheddingOptions = { maxInFlight: 256, retryAfterSecs: 2 };

/**
 * Answers 503 `overloaded` with Retry-After once `maxInFlight` requests are being served.
 * Outermost in the chain: a shed request costs no authentication and no audit write, which
 * is the point under overload. Probes are never shed, so an overloaded agent is not
 * restarted for being busy.
 */
export function loadShedding(options: SheddingOptions): RouteMiddleware {
  let inFlight = 0;
  return (route) => {
    if (route.probe) return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      // An event stream or WebSocket holds its own slot, capped per user and in total (../streams.ts), not an in-flight one.
      if ((route.stream !== null && acceptsEvents(c)) || route.socket !== null) return next();
      if (inFlight >= options.maxInFlight) {
        return errorResponse(c, { code: 'overloaded', message: 'the agent is at its in-flight limit; retry shortly', retryAfterSecs: options.retryAfterSecs });
      }
      inFlight++;
      try {
        await next();
      } finally {
        inFlight--;
      }
    };
    return middleware;
  };
}
