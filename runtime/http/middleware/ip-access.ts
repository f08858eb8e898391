import type { MiddlewareHandler } from 'hono';
import type { IpGuard } from '../../ip-guard/ip-guard.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';

const MESSAGES = {
  banned: 'this address is banned after repeated forged credentials; an admin can lift the ban',
  denylisted: 'this address is on the denylist',
  not_allowlisted: 'this address is not on the allowlist',
} as const;

/**
 * First stage of every route except the probes (the kubelet must always reach those).
 * Refusals are not written to the audit log one by one: a banned flooder would otherwise
 * flood the log instead; the ban itself is audited.
 */
export function ipAccess(guard: IpGuard): RouteMiddleware {
  return (route) => {
    if (route.probe) return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const admission = await guard.admit(clientIp(c));
      if (!admission.ok) return errorResponse(c, { code: 'ip_denied', message: MESSAGES[admission.reason] });
      await next();
    };
    return middleware;
  };
}
