import type { MiddlewareHandler } from 'hono';
import type { RuntimeSettings } from '../../../handlers/settings/service.ts';
import type { AppError } from '../../../handlers/result.ts';
import type { RouteMiddleware } from '../app.ts';
import type { AppEnv } from '../env.ts';
import type { KillSwitch } from '../../../handlers/route.ts';
import { errorResponse } from '../status.ts';
import { keepWhileOpen } from '../streams.ts';

const CLOSED: Readonly<Record<KillSwitch, AppError>> = {
  mcp: { code: 'mcp_disabled', message: 'an admin has closed the MCP surface' },
  expert_mode: { code: 'expert_mode_disabled', message: 'expert mode is off: an admin turns it on under Admin → Expert mode' },
};

/**
 * A route that declares a kill switch answers its 403 while an admin has the switch off
 * (read from the runtime settings on every request, so closing takes effect at once). Last
 * in the chain: a caller is told who they are, their role and their license first, as
 * before, and the refusal is audited like any other.
 */
export function killSwitches(settings: RuntimeSettings): RouteMiddleware {
  return (route) => {
    const name = route.killSwitch;
    if (name === null) return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      if (!(await settings.get(name)).enabled) return errorResponse(c, CLOSED[name]);
      keepWhileOpen(c, route, async () => ((await settings.get(name)).enabled ? null : CLOSED[name]));
      await next();
    };
    return middleware;
  };
}
