// What a request must look like before anything reads its body: from this site (for
// state-changing methods), no larger than the route accepts, and in an encoding the route
// reads. Every answer here is decided from headers, or from a body counted up to the limit
// and no further, so an oversized or cross-site request costs the agent next to nothing.
import type { Context, MiddlewareHandler } from 'hono';
import type { RouteMiddleware } from '../app.ts';
import { boundedBody } from '../bounded-body.ts';
import { normalizedOrigin } from '../cors.ts';
import { requestOrigin, type AppEnv } from '../env.ts';
import type { BodyFormat, Route } from '../../../handlers/route.ts';
import { errorResponse } from '../status.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const MEDIA_TYPES: Readonly<Record<BodyFormat, string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

/** `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The format a media type is, if the route reads it. */
export function bodyFormatOf(contentType: string | undefined, accepted: readonly BodyFormat[]): BodyFormat | null {
  const type = mediaType(contentType);
  return accepted.find((format) => MEDIA_TYPES[format] === type) ?? null;
}

/**
 * Why a state-changing request looks cross-site, or null. A browser sends Origin with every
 * POST, PUT, PATCH and DELETE, and Sec-Fetch-Site where it supports it; a CLI or an API
 * client usually sends neither, and is unaffected.
 */
function crossSiteReason(c: Context<AppEnv>, corsOrigins: readonly string[]): string | null {
  const origin = c.req.header('origin');
  // An origin the operator lists (CAPSTAN_CORS_ORIGINS: the install's public hostname) is this service's own page.
  if (origin !== undefined && corsOrigins.includes(normalizedOrigin(origin) ?? '')) return null;
  if (c.req.header('sec-fetch-site') === 'cross-site') return 'the browser says this request comes from another site';
  if (origin === undefined) return null;
  const own = requestOrigin(c);
  if (normalizedOrigin(origin) === normalizedOrigin(own)) return null;
  return `Origin ${origin} is not this server's origin ${own}; behind a proxy, list it in CAPSTAN_TRUSTED_PROXY_CIDRS so its X-Forwarded-Host/Proto are believed`;
}

function describeLimit(route: Route): string {
  return `this route takes at most ${route.bodyLimitBytes} bytes of body`;
}

/**
 * First stage after the address and load checks, before authentication: refuses cross-site
 * writes (403 cross_site_request) unless the route allows other origins, bodies over the
 * route's bodyLimitBytes (413 payload_too_large), and bodies in an encoding the route does
 * not declare (415 unsupported_media_type): JSON only, unless it declares forms.
 */
export function requestShape(corsOrigins: readonly string[] = []): RouteMiddleware {
  return (route) => {
    if (route.probe) return null;
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      // The request's method, not the declaration's: a raw endpoint serves several.
      if (route.crossOrigin === 'refuse' && STATE_CHANGING.has(c.req.method)) {
        const reason = crossSiteReason(c, corsOrigins);
        if (reason !== null) return errorResponse(c, { code: 'cross_site_request', message: reason });
      }
      const bounded = await boundedBody(c.req.raw, route.bodyLimitBytes);
      if (bounded === null) {
        // The rest of an announced body is not worth reading: ask the client to hang up.
        c.header('Connection', 'close');
        return errorResponse(c, { code: 'payload_too_large', message: describeLimit(route) });
      }
      c.req.raw = bounded.request;
      if (bounded.size > 0 && bodyFormatOf(c.req.header('content-type'), route.bodyFormats) === null) {
        const accepted = route.bodyFormats.map((format) => MEDIA_TYPES[format]).join(' or ');
        return errorResponse(c, { code: 'unsupported_media_type', field: 'content-type', message: `send the body as ${accepted}` });
      }
      await next();
    };
    return middleware;
  };
}
