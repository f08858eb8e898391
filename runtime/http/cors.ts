// Browser origins other than the agent's own that may call it (CAPSTAN_CORS_ORIGINS; the chart
// sets it to https://<global.hostname>): answered with CORS headers, credentials included,
// and allowed past the cross-site write check. Every other origin gets no CORS header, so a
// browser keeps its page from reading the answer, and its writes stay refused.
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from './env.ts';

/** `https://Host:443` and `https://host` are one origin; anything unparseable or opaque is null. */
export function normalizedOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** A comma-separated list of origins (scheme, host, optional port; nothing else). Throws naming `name` at the first bad one. */
export function parseCorsOrigins(value: string | undefined, name: string): string[] {
  const origins: string[] = [];
  for (const entry of (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const origin = normalizedOrigin(entry);
    // An origin has no path, query or fragment: `https://a.example/` is tolerated as the origin it names, `https://a.example/app` is not.
    if (origin === null || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(entry)) throw new Error(`${name}: ${entry} is not an origin such as https://capstan.example.com`);
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}

/** Headers a cross-origin page may send and read; the rest of the policy is the route's, as for any request. */
const ALLOW_HEADERS = ['Content-Type', 'Accept', 'X-API-Key', 'Authorization'];
const EXPOSE_HEADERS = ['Retry-After', 'Content-Disposition'];

/** The CORS answer for the listed origins (preflights included); null when none is listed. */
export function corsFor(origins: readonly string[]): MiddlewareHandler<AppEnv> | null {
  if (origins.length === 0) return null;
  return cors({
    origin: (origin) => (origins.includes(normalizedOrigin(origin) ?? '') ? origin : null),
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: 600,
  });
}
