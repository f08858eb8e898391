// A refused SSO redirect flow shown in the dashboard instead of as raw JSON (issue 17): the
// browser arrives at the OIDC callback, the SAML ACS or the SLO from the identity provider as a
// top-level navigation, so whatever the agent answers is the whole tab. Routes that declare
// `browserErrors: 'sign-in'` answer such a navigation's refusal with a 303 to the sign-in page,
// which shows the reason; every other client keeps the JSON error and its status.
import type { MiddlewareHandler } from 'hono';
import type { BrowserErrors, Route } from '../../handlers/route.ts';
import type { AppEnv } from './env.ts';

/** The dashboard page each `browserErrors` value sends a refused navigation to (a same-origin path, like the success redirect's return path). */
export const BROWSER_ERROR_PAGE: Readonly<Record<BrowserErrors, string>> = { 'sign-in': '/sign-in' };

/** Longest reason carried in the query: the message is for a person, and the URL must stay small. */
export const REASON_MAX_CHARS = 200;

/** Error codes are snake_case words; anything else (it never should be) is named generically rather than echoed. */
const CODE = /^[a-z0-9_]{1,64}$/;

/**
 * Whether the request is a top-level browser navigation. Browsers that send Fetch Metadata
 * (every current one) say so with `Sec-Fetch-Dest: document` (fetch() sends `empty`, a frame
 * `iframe`), read first because the dashboard's proxy passes it on untouched while Node's
 * fetch, which the proxy forwards with, overwrites `Sec-Fetch-Mode` with `cors`. Without a
 * Dest, `Sec-Fetch-Mode: navigate`. Without either (an old browser, curl) the Accept header
 * decides: a navigation asks for text/html ahead of application/json, while fetch(), curl and
 * API clients send a wildcard or JSON, which keep the JSON answer.
 */
export function isBrowserNavigation(headers: { get(name: string): string | null | undefined }): boolean {
  const dest = headers.get('sec-fetch-dest');
  if (dest !== null && dest !== undefined) return dest.trim().toLowerCase() === 'document';
  const mode = headers.get('sec-fetch-mode');
  if (mode !== null && mode !== undefined) return mode.trim().toLowerCase() === 'navigate';
  const accept = headers.get('accept');
  if (accept === null || accept === undefined) return false;
  return acceptQuality(accept, 'text/html') > acceptQuality(accept, 'application/json');
}

/** The q-value Accept gives a media type: its own entry, else its type wildcard, else the full wildcard, else 0 (RFC 9110 §12.5.1). */
export function acceptQuality(accept: string, mediaType: string): number {
  const [type] = mediaType.split('/');
  let best: { specificity: number; q: number } = { specificity: -1, q: 0 };
  // Bounded: a header longer than this is not one a browser sends; what is past it is ignored.
  for (const entry of accept.slice(0, 2048).split(',').slice(0, 64)) {
    const [range = '', ...params] = entry.split(';').map((part) => part.trim().toLowerCase());
    const specificity = range === mediaType ? 2 : range === `${type}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    best = { specificity, q: Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0 };
  }
  return best.q;
}

/** The page's address with the refusal's code and reason, the reason cut to REASON_MAX_CHARS characters (whole code points). */
export function refusalLocation(page: BrowserErrors, code: string, message: string): string {
  const reason = Array.from(message).slice(0, REASON_MAX_CHARS).join('');
  const query = new URLSearchParams({ sso_error: CODE.test(code) ? code : 'sign_in_failed', reason });
  return `${BROWSER_ERROR_PAGE[page]}?${query.toString()}`;
}

/** The `{"error", "message"}` of an error answer; a body that is not one (it always is) gets a generic code and its status. */
async function refusalOf(res: Response): Promise<{ code: string; message: string }> {
  const generic = { code: 'sign_in_failed', message: `sign-in was refused (HTTP ${res.status})` };
  try {
    const body: unknown = await res.clone().json();
    if (typeof body !== 'object' || body === null) return generic;
    const { error, message } = body as Record<string, unknown>;
    return typeof error === 'string' && typeof message === 'string' ? { code: error, message } : generic;
  } catch {
    return generic;
  }
}

/**
 * The stage for a route declaring `browserErrors`, placed OUTSIDE every other stage (before the
 * audit stage in the chain): the audit row, rate limits and lockouts see and count the refusal
 * with its own status (401, 404, 429), and only then is the browser's answer turned into the
 * 303. Cookies the refusal set are kept.
 */
export function browserErrorRedirect(route: Route): MiddlewareHandler<AppEnv> | null {
  const page = route.browserErrors;
  if (page === null) return null;
  return async (c, next) => {
    await next();
    if (c.res.status < 400 || !isBrowserNavigation(c.req.raw.headers)) return;
    const refused = c.res;
    const { code, message } = await refusalOf(refused);
    const headers = new Headers({ location: refusalLocation(page, code, message), 'cache-control': 'no-store' });
    for (const cookie of refused.headers.getSetCookie()) headers.append('set-cookie', cookie);
    // Cleared first: Hono's setter would otherwise carry the JSON answer's headers (its length, Retry-After) over.
    c.res = undefined;
    c.res = new Response(null, { status: 303, headers });
  };
}
