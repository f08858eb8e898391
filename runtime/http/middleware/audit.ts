import type { MiddlewareHandler } from 'hono';
import type { Severity } from '../../../schema/common.ts';
import type { AuditLog } from '../../audit/audit-log.ts';
import type { UnauthenticatedSummary } from '../../audit/unauthenticated-summary.ts';
import type { Logger } from '../../log.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';

function outcomeOf(status: number): string {
  if (status < 400) return 'success';
  if (status === 401 || status === 402 || status === 403 || status === 429) return 'denied';
  return status >= 500 ? 'error' : 'rejected';
}

function severityOf(outcome: string): Severity {
  if (outcome === 'error') return 'critical';
  return outcome === 'success' ? 'info' : 'warning';
}

/**
 * Records every request to a route that declares an audit category. Successful routine
 * reads (`access`) go to the 7-day access log; everything else, including every denial and
 * error, to the hash-chained audit log. Actor is `user@ip` (API keys too); the detail (path,
 * query, what the handler noted) is redacted and capped by the log before it is written.
 * Routine refusals of requests with no credential at all are counted into periodic summary
 * rows instead, so anonymous traffic cannot grow the chain one row per request.
 */
export function auditing(audit: AuditLog, log: Logger, unauthenticated: UnauthenticatedSummary): RouteMiddleware {
  return (route) => {
    if (route.audit === 'none') return null;
    const action = `${route.method} ${route.path}`;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      await next();
      const status = c.res.status;
      const outcome = outcomeOf(status);
      // A key refused for its scope is still its owner's request (spec §5: `<username>@<ip>`).
      const principal = c.get('principal') ?? c.get('credentialOwner');
      const actor = `${principal?.username ?? c.get('signedIn') ?? 'anonymous'}@${clientIp(c)}`;
      try {
        const refusal = c.get('anonymousRefusal');
        if (refusal !== undefined) {
          await unauthenticated.count(clientIp(c), refusal);
          return;
        }
        if (route.audit === 'access' && outcome === 'success') {
          await audit.appendAccess({ actor, action, status });
          return;
        }
        const search = new URL(c.req.url).search;
        const detail: Record<string, string> = { path: c.req.path, ...(search ? { query: search.slice(1) } : {}), ...c.get('auditNotes') };
        if (principal?.via === 'api_key') detail.api_key_id = String(principal.keyId);
        if (principal?.via === 'oauth') Object.assign(detail, { oauth_grant: principal.tokenId, oauth_client: principal.clientName });
        const namespace = c.req.param('namespace') ?? c.req.query('namespace') ?? null;
        const category = route.audit === 'access' ? 'http' : route.audit;
        await audit.append({ actor, category, action, status, outcome, severity: severityOf(outcome), namespace, detail });
      } catch (err) {
        log.error('audit write failed', { action, actor, error: err instanceof Error ? err.message : String(err) });
      }
    };
    return middleware;
  };
}
