// The agent's HTTP app in-process, with the full production middleware chain, and a small
// client that speaks to it as a given address (as the Node server presents its socket).
import { createApp } from '../../runtime/http/app.ts';
import { parseTrustedProxies } from '../../runtime/http/client-ip.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD, type TestServiceOptions } from './services.ts';

export interface CallOptions {
  body?: unknown;
  /** The capstan_session cookie value. */
  cookie?: string;
  key?: string;
  /** Socket peer address; default 192.0.2.10. */
  ip?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

export async function testApp(options: TestServiceOptions & { trustedProxies?: string; proxySecret?: string } = {}) {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const services = await testServices({ ...options, clock });
  const app = createApp({ routes, rawEndpoints, services, middleware: services.middleware, validateOutput: true, trustedProxies: parseTrustedProxies(options.trustedProxies ?? ''), proxySecret: options.proxySecret ?? null, corsOrigins: services.corsOrigins, log: silentLogger });

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
    if (opts.cookie) headers.cookie = `capstan_session=${opts.cookie}`;
    if (opts.key) headers['x-api-key'] = opts.key;
    const res = await app.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }, { incoming: { socket: { remoteAddress: opts.ip ?? '192.0.2.10' } } });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON (a CSV export): `text` has it.
    }
    return { status: res.status, headers: res.headers, text, body };
  };
  const login = async (username: string, password: string, extra: { code?: string; ip?: string } = {}) => {
    const res = await call('POST', '/api/agent/auth/login', { body: { username, password, ...(extra.code ? { code: extra.code } : {}) }, ip: extra.ip });
    const cookie = /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
    return { ...res, cookie };
  };
  const signIn = async (who: 'admin' | 'viewer' = 'admin') => (await login(who, who === 'admin' ? ADMIN_PASSWORD : VIEWER_PASSWORD)).cookie;
  return { app, clock, services, call, login, signIn };
}

/** Rate limits no test reaches: for tests that make many AI or write requests on purpose. */
export const UNLIMITED_RATE_LIMITS = { read: 100_000, write: 100_000, login: 100_000, ai: 100_000, discovery: 100_000, register: 100_000 };
