import type { MiddlewareHandler } from 'hono';
import type { AuditLog } from '../../audit/audit-log.ts';
import type { Logger } from '../../log.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';

function outcomeOf(status: number): string {
  if (status < 400) return 'success';
  if (status === 401 || status === 403 || status === 429) return 'denied';
  return status >= 500 ? 'error' : 'rejected';
}

/**
 * Records every request to a route that declares an audit category. Successful routine
 * reads (`access`) go to the 7-day access log; everything else, including every denial and
 * error, to the hash-chained audit log. Actor is `user@ip`.
 */
export function auditing(audit: AuditLog, log: Logger): RouteMiddleware {
  return (route) => {
    if (route.audit === 'none') return null;
    const action = `${route.method} ${route.path}`;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      await next();
      const status = c.res.status;
      const outcome = outcomeOf(status);
      const actor = `${c.get('principal')?.username ?? c.get('signedIn') ?? 'anonymous'}@${clientIp(c)}`;
      try {
        if (route.audit === 'access' && outcome === 'success') await audit.appendAccess({ actor, action, status });
        else {
          const category = outcome === 'denied' ? 'denial' : outcome === 'error' ? 'error' : route.audit;
          await audit.append({ actor, category, action, status, outcome });
        }
      } catch (err) {
        log.error('audit write failed', { action, actor, error: err instanceof Error ? err.message : String(err) });
      }
    };
    return middleware;
  };
}
