import type { MiddlewareHandler } from 'hono';
import type { Licensing } from '../../../handlers/license/service.ts';
import type { RouteMiddleware } from '../app.ts';
import type { AppEnv } from '../env.ts';
import { errorResponse } from '../status.ts';
import { keepWhileOpen } from '../streams.ts';
import type { AppError } from '../../../handlers/result.ts';

/** A route that declares a licensed feature answers 402 with that feature when the license lacks it. */
export function licensing(license: Licensing): RouteMiddleware {
  return (route) => {
    const feature = route.feature;
    if (feature === null) return null;
    const refusal = (): AppError | null => (license.has(feature) ? null : { code: 'feature_not_licensed', feature, message: `${feature} is not included in the ${license.tier} tier` });
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      const refused = refusal();
      if (refused !== null) return errorResponse(c, refused);
      keepWhileOpen(c, route, () => Promise.resolve(refusal()));
      await next();
    };
    return middleware;
  };
}
