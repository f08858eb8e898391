// `capstan ui`: serves the built dashboard and proxies /api/agent/* to the agent. It writes
// nothing (the chart runs it on a read-only root filesystem) and does not handle WebSocket
// upgrades: the terminal's WebSocket must reach the agent directly.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { BlockList } from 'node:net';
import { boundedBody } from '../runtime/http/bounded-body.ts';
import { CLIENT_IP_HEADER, PROXY_SECRET_HEADER, resolveClientIp, resolveClientIpByHops } from '../runtime/http/client-ip.ts';

export const DEFAULT_DIST = fileURLToPath(new URL('./web/dist', import.meta.url));

/**
 * Strict: only our own scripts, styles and API; never framed. One exception: `<style>` elements
 * a script creates (style-src-elem). The terminal's xterm.js writes its row geometry, font and
 * 256-colour palette into one at run time, measured from the font, so no stylesheet of ours can
 * hold them. Scripts stay 'self' only, and inline style attributes stay refused (style-src-attr).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-elem 'self' 'unsafe-inline'; style-src-attr 'none'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

// Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own, never forwarded; nor is a
// caller's copy of the headers this proxy vouches for the client address with.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const NEVER_FROM_CLIENT = new Set([...HOP_BY_HOP, CLIENT_IP_HEADER, PROXY_SECRET_HEADER]);

/** Largest request body the proxy passes on: the largest any agent route declares (a unit test checks). */
export const UI_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The scheme the client used, for the agent's cookie `Secure` flag and OAuth metadata. When
 * TLS ends at an ingress in front of this server, the ingress says so in X-Forwarded-Proto;
 * this server believes its peer about that (it has no trust list of its own: it is meant to
 * sit behind the cluster's ingress), taking the last entry, the one its nearest hop added.
 * Only `http` and `https` are passed on. The claim cannot raise anyone's privileges: the
 * agent believes it from this server only if this server is in its trustedProxyCidrs, and
 * it changes only that client's own answers (a spoofed `https` just makes its cookie Secure).
 */
function clientScheme(forwarded: string | undefined, own: URL): string {
  const claimed = forwarded?.split(',').at(-1)?.trim().toLowerCase();
  return claimed === 'https' || claimed === 'http' ? claimed : own.protocol.slice(0, -1);
}

export interface UiServerOptions {
  agentUrl: string;
  dist?: string;
  /**
   * CAPSTAN_UI_PROXY_SECRET, the per-install secret the agent shares: sent beside the client
   * address this server determined, so the agent tells its clients apart without trusting the
   * dashboard's pod addresses as proxies (runtime/http/client-ip.ts). Absent: not sent.
   */
  proxySecret?: string | null;
  /** CAPSTAN_TRUSTED_PROXY_CIDRS: proxies in front of this server allowed to set X-Forwarded-For. */
  trustedProxies?: BlockList;
  /**
   * CAPSTAN_UI_FORWARDED_HOPS, used when no trusted proxy is listed: how many proxies in front
   * of this server append to X-Forwarded-For (0: the socket peer is the client).
   */
  forwardedHops?: number;
  /** CAPSTAN_UI_HSTS: send Strict-Transport-Security (the chart sets it when the Ingress has TLS). */
  hsts?: boolean;
}

/** One year; no includeSubDomains or preload: this install speaks for its own host only. */
export const HSTS_HEADER = 'max-age=31536000';

/** The client's address as this server sees it: its trusted proxies' word, else the hop count's, else the socket peer. */
export function uiClientIp(options: Pick<UiServerOptions, 'trustedProxies' | 'forwardedHops'>, peer: string, forwardedFor: string | undefined): string {
  if (options.trustedProxies !== undefined && options.trustedProxies.rules.length > 0) return resolveClientIp(peer, forwardedFor, options.trustedProxies);
  return resolveClientIpByHops(peer, forwardedFor, options.forwardedHops ?? 0);
}

export function createUiApp(options: UiServerOptions): Hono<{ Bindings: HttpBindings }> {
  const dist = options.dist ?? DEFAULT_DIST;
  const indexFile = join(dist, 'index.html');
  if (!existsSync(indexFile)) throw new Error(`no built dashboard at ${dist}: run npm run build:ui`);
  const indexHtml = readFileSync(indexFile, 'utf8');
  const agent = options.agentUrl.replace(/\/+$/, '');
  const app = new Hono<{ Bindings: HttpBindings }>();

  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    if (options.hsts === true) c.res.headers.set('Strict-Transport-Security', HSTS_HEADER);
  });

  const proxy = async (c: Context<{ Bindings: HttpBindings }>) => {
    const url = new URL(c.req.url);
    const headers = new Headers();
    c.req.raw.headers.forEach((value, name) => {
      if (!NEVER_FROM_CLIENT.has(name.toLowerCase())) headers.set(name, value);
    });
    // The agent trusts X-Forwarded-For only from addresses in security.trustedProxyCidrs; the
    // client address this server vouches for with the install secret, always.
    const peer = c.env.incoming.socket.remoteAddress ?? '';
    const forwarded = c.req.header('x-forwarded-for');
    headers.set('x-forwarded-for', forwarded ? `${forwarded}, ${peer}` : peer);
    if (options.proxySecret) {
      headers.set(CLIENT_IP_HEADER, uiClientIp(options, peer, forwarded));
      headers.set(PROXY_SECRET_HEADER, options.proxySecret);
    }
    headers.set('x-forwarded-proto', clientScheme(c.req.header('x-forwarded-proto'), url));
    // OAuth metadata and token audiences name the origin the client used: this one.
    headers.set('x-forwarded-host', c.req.header('host') ?? url.host);
    const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
    // Counted before the agent is even called, and never held past the limit: the agent
    // applies each route's own (smaller or equal) limit again.
    const bounded = hasBody ? await boundedBody(c.req.raw, UI_BODY_LIMIT_BYTES) : null;
    if (hasBody && bounded === null) {
      c.header('Connection', 'close');
      return c.json({ error: 'payload_too_large', message: `the dashboard passes on at most ${UI_BODY_LIMIT_BYTES} bytes of body` }, 413);
    }
    try {
      const upstream = await fetch(`${agent}${url.pathname}${url.search}`, {
        method: c.req.method,
        headers,
        body: bounded ? await bounded.request.arrayBuffer() : undefined,
        redirect: 'manual',
      });
      const out = new Headers();
      upstream.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name.toLowerCase()) && name.toLowerCase() !== 'set-cookie' && name.toLowerCase() !== 'content-encoding') out.append(name, value);
      });
      for (const cookie of upstream.headers.getSetCookie()) out.append('set-cookie', cookie);
      // The body as it arrives, never buffered: an event stream reaches the client event by
      // event, and a client going away cancels the upstream read (tests/unit/ui-proxy-stream.test.ts).
      return new Response(upstream.body, { status: upstream.status, headers: out });
    } catch (err) {
      return c.json({ error: 'agent_unreachable', message: `the agent at ${agent} did not answer: ${err instanceof Error ? err.message : String(err)}` }, 502);
    }
  };
  app.all('/api/agent/*', proxy);
  // MCP clients discover OAuth at the origin's root (RFC 9728, RFC 8414); the agent answers.
  app.get('/.well-known/oauth-protected-resource', proxy);
  app.get('/.well-known/oauth-protected-resource/*', proxy);
  app.get('/.well-known/oauth-authorization-server', proxy);

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  // Hashed assets never change; index.html always revalidates so a new build is picked up.
  app.use('/assets/*', async (c, next) => {
    await next();
    if (c.res.ok) c.res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
  });
  app.use('/assets/*', serveStatic({ root: dist }));
  // A missing asset is an error, not the app: a stale tab must not parse HTML as a script.
  app.all('/assets/*', (c) => c.text('not found', 404));
  // Every other path is a dashboard view (deep links): the app routes it in the browser.
  app.get('*', (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.html(indexHtml);
  });
  return app;
}

export interface RunningUi {
  url: string;
  close(): Promise<void>;
}

/** Listens on `hostname:port` (port 0 picks one). */
export async function startUiServer(options: UiServerOptions & { hostname: string; port: number }): Promise<RunningUi> {
  const { serve } = await import('@hono/node-server');
  const app = createUiApp(options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: options.hostname, port: options.port }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.hostname === '0.0.0.0' ? '127.0.0.1' : options.hostname;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
