import type { MiddlewareHandler } from 'hono';
import type { IpGuard } from '../../ip-guard/ip-guard.ts';
import type { RouteMiddleware } from '../app.ts';
import { clientIp, type AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';
import { keepWhileOpen } from '../streams.ts';
import type { AppError } from '../../../handlers/result.ts';

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
      const ip = clientIp(c);
      const refusal = async (): Promise<AppError | null> => {
        const admission = await guard.admit(ip);
        return admission.ok ? null : { code: 'ip_denied', message: MESSAGES[admission.reason] };
      };
      const refused = await refusal();
      if (refused !== null) return errorResponse(c, refused);
      // A ban, or a list change, made while a stream is open closes it.
      keepWhileOpen(c, route, refusal);
      await next();
    };
    return middleware;
  };
}
