import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { scopeAnswers } from '../../domain/scoped.ts';
import type { HandlerContext, Services } from '../../handlers/context.ts';
import type { AppError, ResponseEffect, Result } from '../../handlers/result.ts';
import { SESSION_ABSOLUTE_MS } from '../auth/service.ts';
import { BlockList } from 'node:net';
import { CLIENT_IP_HEADER, normalizeAddress, PROXY_SECRET_HEADER, resolveClientIp, vouchedClientIp } from './client-ip.ts';
import { listContains } from '../ip-guard/cidr.ts';
import { clientIp, requestOrigin, SESSION_COOKIE, socketAddress, type AppEnv } from './env.ts';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { defineRoute, type Route, type SocketAnswer, type SocketDeclaration, type StreamAnswer, type StreamDeclaration } from '../../handlers/route.ts';
import { acceptSocket, socketOriginRefusal } from './sockets.ts';
import { acceptsEvents, answerStream, STREAM_LIMITS, StreamSlots, type StreamOptions } from './streams.ts';
import { errorResponse } from './status.ts';
import { browserErrorRedirect } from './browser-errors.ts';
import { bodyFormatOf } from './middleware/request-shape.ts';
import type { Logger } from '../log.ts';
import { corsFor } from './cors.ts';
import { apiDocsPage, openApiDocument } from './openapi.ts';

/** Every route answers both in-cluster (`/<route>`) and behind the dashboard's proxy prefix. */
export const ROUTE_PREFIXES = ['', '/api/agent'] as const;

/** Set on every response while an informer cannot refresh: the ISO time since when answers may be stale. */
export const STALE_HEADER = 'X-Capstan-Stale-Since';

/**
 * Builds one route's middleware from its declaration; returning null means the stage has
 * nothing to do for this route. The chain is passed in (runtime/services.ts assembles it:
 * IP access, load shedding, audit, authentication and scope, role, rate limit, license),
 * so the runtime never decides policy inside a handler.
 */
export type RouteMiddleware = (route: Route) => MiddlewareHandler<AppEnv> | null;

/** How the schema routes are guarded: signed-in users of either role; API keys cannot reach them. */
const SCHEMA_ROUTE: Route = defineRoute({
  method: 'GET',
  path: '/openapi.json',
  summary: 'OpenAPI document',
  input: v.object({}),
  output: v.unknown(),
  access: { auth: 'credential', role: 'viewer', scope: null },
  audit: 'access',
  rateLimit: 'read',
  feature: null,
  handler: () => ok(null),
});

/** `auto` sets Secure when the request arrived over HTTPS (spec: security.cookieSecure). */
export type CookieSecure = 'auto' | 'true' | 'false';

/**
 * An endpoint that speaks a protocol of its own (MCP's Streamable HTTP) rather than JSON in,
 * JSON out or a declared stream; `route` declares its policy, so the same middleware chain guards it.
 */
export interface RawEndpoint {
  route: Route;
  methods: readonly ('GET' | 'POST' | 'DELETE')[];
  paths: readonly string[];
  handle(request: Request, ctx: HandlerContext): Promise<Response>;
  /** `WWW-Authenticate` for a 401, given the request's origin (MCP points OAuth clients at its metadata). */
  challenge?(origin: string): string;
  /** In the OpenAPI document through its route (its input, answer and stream are JSON Schema-shaped); MCP's JSON-RPC is not. */
  documented?: boolean;
}

/** What the OpenAPI document lists: every route of the table, then the raw endpoints that are documented. */
export function documentedRoutes(routes: readonly Route[], rawEndpoints: readonly RawEndpoint[] = []): Route[] {
  return [...routes, ...rawEndpoints.filter((e) => e.documented === true).map((e) => e.route)];
}

export interface AppOptions {
  routes: readonly Route[];
  rawEndpoints?: readonly RawEndpoint[];
  services: Services;
  cookieSecure?: CookieSecure;
  middleware?: readonly RouteMiddleware[];
  /** Check every response against the route's output schema (on in tests: a drift is a 500). */
  validateOutput?: boolean;
  /** security.trustedProxyCidrs: peers allowed to set X-Forwarded-For. Empty: trust nobody. */
  trustedProxies?: BlockList;
  /**
   * CAPSTAN_UI_PROXY_SECRET: the per-install secret `capstan ui` sends beside the client address
   * it saw (./client-ip.ts); a request carrying it is from the dashboard, whose client address,
   * host and scheme are believed as a trusted proxy's. Absent: no such header is believed.
   */
  proxySecret?: string | null;
  /** Serve `/openapi.json` and `/docs` (CAPSTAN_ENABLE_API_DOCS); absent, both are 404. */
  apiDocs?: { version: string };
  /** CAPSTAN_CORS_ORIGINS: other browser origins answered with CORS headers (./cors.ts). */
  corsOrigins?: readonly string[];
  /** Streamed routes' caps and intervals (default STREAM_LIMITS; tests shorten the intervals). */
  streams?: Partial<StreamOptions>;
  log: Logger;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // First, so a preflight is answered before any policy: it carries no credential and does nothing.
  const corsAnswer = corsFor(options.corsOrigins ?? []);
  if (corsAnswer !== null) app.use('*', corsAnswer);
  const chain = options.middleware ?? [];
  const trusted = options.trustedProxies ?? new BlockList();
  // With no trusted proxy (the default) no peer is one: skip building a SocketAddress per request to find that out.
  const trustsAnyProxy = trusted.rules.length > 0;
  const proxySecret = options.proxySecret ?? null;
  const resolveIp: MiddlewareHandler<AppEnv> = async (c, next) => {
    const peer = socketAddress(c);
    const vouched = vouchedClientIp(proxySecret, c.req.header(PROXY_SECRET_HEADER), c.req.header(CLIENT_IP_HEADER));
    c.set('clientIp', vouched ?? (trustsAnyProxy ? resolveClientIp(peer, c.req.header('x-forwarded-for'), trusted) : normalizeAddress(peer)));
    // Behind the dashboard or an ingress, the client's origin is the proxy's to tell: the
    // host, the scheme (TLS often ends at the ingress, which keeps Host), or both.
    if (vouched !== null || (trustsAnyProxy && listContains(trusted, peer))) {
      const forwardedHost = c.req.header('x-forwarded-host');
      // A chain of proxies appends: the last entry is the one our trusted peer vouches for.
      const forwardedProto = c.req.header('x-forwarded-proto')?.split(',').at(-1)?.trim().toLowerCase();
      const own = new URL(c.req.url);
      const host = forwardedHost !== undefined && /^[A-Za-z0-9.:[\]-]+$/.test(forwardedHost) ? forwardedHost : own.host;
      const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : own.protocol.slice(0, -1);
      if (forwardedHost !== undefined || forwardedProto !== undefined) c.set('origin', `${proto}://${host}`);
    }
    await next();
  };
  app.use('*', resolveIp);
  // While the API server cannot be reached, answers still come from the informer cache:
  // say since when they may be stale, on every response (errors included).
  const markStale: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    const since = options.services.cluster.staleSince();
    if (since !== null) c.header(STALE_HEADER, since);
  };
  app.use('*', markStale);

  // Visibility depends on the static settings only, so one scoped view of the cluster and of
  // the answers derived from it serves every request (each filters again only when its
  // whole-cluster source changed).
  const scoped = scopeAnswers(options.services, options.services.settings.tenantNamespaces);
  /** What a handler sees of this request: the services, the cluster and derived answers it may see, the client address, the principal, and the audit notes it may add. */
  const handlerContext = (c: Context<AppEnv>): HandlerContext => {
    const notes: Record<string, string> = {};
    c.set('auditNotes', notes);
    const noteAudit = (fields: Readonly<Record<string, string>>) => void Object.assign(notes, fields);
    return { ...options.services, ...scoped, request: { ip: clientIp(c), origin: requestOrigin(c), noteAudit, cookie: (name: string) => getCookie(c, name), rawQuery: () => new URL(c.req.url).search.slice(1) }, principal: c.get('principal') ?? null };
  };
  // Shared answers (the overview's 30 s cache, the cluster-wide incidents' 5 s) are the same
  // object for every caller in their window: serialise each once, not once per request.
  const serialized = new WeakMap<object, string>();
  const jsonOf = (value: unknown): string => {
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    let text = serialized.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      serialized.set(value, text);
    }
    return text;
  };
  const stagesOf = (route: Route) => chain.map((build) => build(route)).filter((m): m is MiddlewareHandler<AppEnv> => m !== null);
  const streamOptions: StreamOptions = { ...STREAM_LIMITS, ...options.streams };
  const streamSlots = new StreamSlots(streamOptions);
  /** Per streamed route that declares its own caps (StreamCaps), keyed by method and path. */
  const routeSlots = new Map<string, StreamSlots>();
  const routeSlot = (route: Route & { stream: StreamDeclaration }, key: string): { ok: true; release: () => void } | { ok: false; error: AppError } => {
    const caps = route.stream.caps;
    if (caps === null) return { ok: true, release: () => {} };
    const id = `${route.method} ${route.path}`;
    let slots = routeSlots.get(id);
    if (slots === undefined) {
      slots = new StreamSlots({ maxPerUser: caps.perUser, maxTotal: caps.total, retryAfterSecs: streamOptions.retryAfterSecs });
      routeSlots.set(id, slots);
    }
    const slot = slots.acquire(key);
    return slot.ok ? slot : { ok: false, error: { ...slot.error, message: `at most ${caps.perUser} ${caps.noun} per user and ${caps.total} in all may be open at once; close one first` } };
  };
  /** A streamed route: the chain ran; a slot under the caps, then the handler's stream (./streams.ts). */
  const streamEndpoint = (route: Route & { stream: StreamDeclaration }) => async (c: Context<AppEnv>): Promise<Response> => {
    const input = await readInput(c, route);
    if (!input.ok) return errorResponse(c, { code: 'invalid_input', field: 'body', message: input.message });
    const context = handlerContext(c);
    const principal = context.principal;
    const key = principal === null ? `ip:${context.request.ip}` : `user:${principal.userId}`;
    // Taken before the handler runs (it may count an AI run), so a refusal past a cap costs nothing.
    const own = routeSlot(route, key);
    if (!own.ok) return errorResponse(c, own.error);
    let early: { ok: true; release: () => void } | null = null;
    if (acceptsEvents(c)) {
      const slot = streamSlots.acquire(key);
      if (!slot.ok) {
        own.release();
        return errorResponse(c, slot.error);
      }
      early = { ok: true, release: () => (slot.release(), own.release()) };
    }
    let opened: Result<StreamAnswer<unknown, unknown>>;
    try {
      opened = await route.stream.open(input.value, context);
    } catch (err) {
      (early ?? own).release();
      throw err;
    }
    if (!opened.ok) {
      (early ?? own).release();
      return errorResponse(c, opened.error);
    }
    for (const effect of opened.effects ?? []) {
      if (effect.kind === 'download' || effect.kind === 'redirect') continue;
      applyEffect(c, effect, options.cookieSecure ?? 'auto');
    }
    // A JSON answer holds no slot; events asked for without the header (a route with no JSON answer) take theirs now.
    const slot = (): { ok: true; release: () => void } | { ok: false; error: AppError } => {
      if (early !== null) return early;
      if (opened.value.json !== undefined) return own;
      const shared = streamSlots.acquire(key);
      if (!shared.ok) own.release();
      return shared.ok ? { ok: true, release: () => (shared.release(), own.release()) } : shared;
    };
    return answerStream(c, route, opened.value, { options: streamOptions, validate: options.validateOutput === true, log: options.log, slot });
  };

  /** A WebSocket route: the chain ran; the Origin, a slot under the stream caps and the handler's answer, all before the upgrade is accepted (./sockets.ts). */
  const socketEndpoint = (route: Route & { socket: SocketDeclaration }) => async (c: Context<AppEnv>): Promise<Response> => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return errorResponse(c, { code: 'invalid_input', field: 'upgrade', message: 'this route takes a WebSocket upgrade' });
    const foreign = socketOriginRefusal(c, options.corsOrigins ?? []);
    if (foreign !== null) return errorResponse(c, foreign);
    const input = await readInput(c, route);
    if (!input.ok) return errorResponse(c, { code: 'invalid_input', field: 'body', message: input.message });
    const context = handlerContext(c);
    const principal = context.principal;
    const slot = streamSlots.acquire(principal === null ? `ip:${context.request.ip}` : `user:${principal.userId}`);
    if (!slot.ok) return errorResponse(c, slot.error);
    let opened: Result<SocketAnswer>;
    try {
      opened = await route.socket.open(input.value, context);
    } catch (err) {
      slot.release();
      throw err;
    }
    if (!opened.ok) {
      slot.release();
      return errorResponse(c, opened.error);
    }
    return acceptSocket(c, opened.value, { options: streamOptions, log: options.log, release: slot.release });
  };

  for (const route of options.routes) {
    const stages = stagesOf(route);
    const endpoint = async (c: Context<AppEnv>): Promise<Response> => {
      const input = await readInput(c, route);
      if (!input.ok) return errorResponse(c, { code: 'invalid_input', field: 'body', message: input.message });
      const context = handlerContext(c);
      const result = await route.run(input.value, context);
      if (!result.ok) return errorResponse(c, result.error);
      if (options.validateOutput) {
        const mismatch = route.checkOutput(result.value);
        if (mismatch !== null) {
          options.log.error('response does not match its output schema', { path: route.path, mismatch });
          return errorResponse(c, { code: 'internal', message: 'response failed its own schema' });
        }
      }
      let download: Extract<ResponseEffect, { kind: 'download' }> | null = null;
      for (const effect of result.effects ?? []) {
        if (effect.kind === 'download') download = effect;
        else if (effect.kind === 'redirect') return c.redirect(effect.location, 302);
        else applyEffect(c, effect, options.cookieSecure ?? 'auto');
      }
      if (download) {
        return c.body(download.body, 200, { 'content-type': download.contentType, 'content-disposition': `attachment; filename="${download.filename}"` });
      }
      return c.body(jsonOf(result.value), 200, { 'content-type': 'application/json' });
    };
    // Outside the whole chain, so audit and rate limits see a refusal before it becomes a browser's 303.
    const browserErrors = browserErrorRedirect(route);
    const { stream, socket } = route;
    const answer = socket !== null ? socketEndpoint({ ...route, socket }) : stream !== null ? streamEndpoint({ ...route, stream }) : endpoint;
    // First of all, so refusals by any stage are counted too (Capstan's own metrics: the route's template, never the path asked).
    const measured: MiddlewareHandler<AppEnv> = async (c, next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        options.services.observability.ownMetrics.httpRequest(route.method, route.path, c.res.status, (performance.now() - started) / 1000);
      }
    };
    const handlers: MiddlewareHandler<AppEnv>[] = [measured, ...(browserErrors === null ? [] : [browserErrors]), ...stages, answer];
    app.on(route.method, ROUTE_PREFIXES.map((prefix) => prefix + route.path), ...handlers);
  }

  for (const raw of options.rawEndpoints ?? []) {
    const paths = raw.paths.flatMap((path) => ROUTE_PREFIXES.map((prefix) => prefix + path));
    const challenge: MiddlewareHandler<AppEnv> = async (c, next) => {
      await next();
      if (c.res.status === 401 && raw.challenge) c.res.headers.set('WWW-Authenticate', raw.challenge(requestOrigin(c)));
    };
    app.on([...raw.methods], paths, challenge, ...stagesOf(raw.route), (c) => raw.handle(c.req.raw, handlerContext(c)));
  }

  if (options.apiDocs) {
    const doc = openApiDocument(documentedRoutes(options.routes, options.rawEndpoints), options.apiDocs.version);
    const page = apiDocsPage(doc);
    // Not in the table (one answer is HTML), but behind the same chain as any viewer route.
    const stages = stagesOf(SCHEMA_ROUTE);
    app.on('GET', ROUTE_PREFIXES.map((p) => `${p}/openapi.json`), ...stages, (c) => c.json(doc));
    app.on('GET', ROUTE_PREFIXES.map((p) => `${p}/docs`), ...stages, (c) => c.html(page));
  }

  app.notFound((c) => errorResponse(c, { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` }));
  app.onError((err, c) => {
    options.log.error('unhandled error', { path: c.req.path, error: err.message });
    return errorResponse(c, { code: 'internal', message: 'internal error' });
  });
  return app;
}

function applyEffect(c: Context<AppEnv>, effect: Exclude<ResponseEffect, { kind: 'download' | 'redirect' }>, secure: CookieSecure): void {
  if (effect.kind === 'headers') {
    for (const [name, value] of Object.entries(effect.headers)) c.header(name, value);
    return;
  }
  // The one place security.cookieSecure is applied, to every cookie the agent sets: `auto`
  // follows the scheme the client used, which a trusted proxy terminating TLS reports.
  const isSecure = secure === 'auto' ? requestOrigin(c).startsWith('https:') : secure === 'true';
  if (effect.kind === 'cookie') {
    setCookie(c, effect.name, effect.value, {
      httpOnly: effect.httpOnly,
      sameSite: effect.sameSite,
      // Browsers refuse SameSite=None without Secure, whatever the setting says.
      secure: isSecure || effect.sameSite === 'None',
      path: effect.path,
      maxAge: effect.maxAgeSecs,
    });
  } else if (effect.kind === 'set-session') {
    c.set('signedIn', effect.username);
    setCookie(c, SESSION_COOKIE, effect.token, {
      httpOnly: true,
      sameSite: effect.sameSite ?? 'Strict',
      secure: isSecure,
      path: '/',
      maxAge: SESSION_ABSOLUTE_MS / 1000,
    });
  } else {
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isSecure });
  }
}

type InputRead = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/** Path parameters win over query parameters, which win over JSON body fields. */
async function readInput(c: Context<AppEnv>, route: Route): Promise<InputRead> {
  let body: Record<string, unknown> = {};
  if (route.method !== 'GET' && route.method !== 'DELETE') {
    const text = await c.req.text();
    // The request-shape stage admitted only the formats the route declares (JSON unless it
    // says form, as OAuth's token endpoint does: RFC 6749 §4.1.3).
    if (bodyFormatOf(c.req.header('content-type'), route.bodyFormats) === 'form') {
      body = Object.fromEntries(new URLSearchParams(text));
    } else if (text.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return { ok: false, message: 'body: not valid JSON' };
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { ok: false, message: 'body: must be a JSON object' };
      }
      body = parsed as Record<string, unknown>;
    }
  }
  // A parameter given more than once (`?category=a&category=b`) arrives as an array.
  const query = Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]));
  return { ok: true, value: { ...body, ...query, ...c.req.param() } };
}
