// WebSocket routes (a declaration's `websocket: true`): a test-only echo route on the agent's
// real app and server. Every policy is applied before the upgrade is accepted (no credential:
// 401, an API key on a session-only route: 403, a foreign Origin: 403, past the caps: 429) and
// no handler runs then; an accepted socket echoes, and is closed (1008, after an error message)
// when its session is revoked or its user demoted, within the re-check interval.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import * as v from 'valibot';
import WebSocket from 'ws';
import { ok } from '../../handlers/result.ts';
import { defineRoute, type SocketAnswer } from '../../handlers/route.ts';
import { NoInput } from '../../schema/common.ts';
import { createApp } from '../../runtime/http/app.ts';
import { webSocketServer } from '../../runtime/http/sockets.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { ADMIN_PASSWORD, testServices, type TestServices } from '../support/services.ts';

const seen = { opened: 0, closed: 0 };

const echo = { input: NoInput, output: v.string(), audit: 'http', rateLimit: 'read', feature: null, method: 'GET', websocket: true, summary: 't' } as const;
const testRoutes = [
  defineRoute({
    ...echo,
    path: '/test/echo',
    access: { auth: 'credential', role: 'viewer', scope: null },
    handler: () =>
      ok<SocketAnswer>({
        open: (peer) => {
          seen.opened++;
          peer.signal.addEventListener('abort', () => seen.closed++, { once: true });
          peer.send('hello');
        },
        message: (text, peer) => peer.send(`echo: ${text}`),
      }),
  }),
  defineRoute({
    ...echo,
    path: '/test/admin-echo',
    access: { auth: 'credential', role: 'admin', scope: null },
    handler: () => ok<SocketAnswer>({ open: (peer) => peer.send('hello admin') }),
  }),
];

let server: ServerType;
let base = '';
let services: TestServices;

async function signIn(username: string, password: string): Promise<string> {
  const res = await fetch(`http://${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  assert.equal(res.status, 200);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/** Connects; resolves with the socket once open (and its messages so far), or with the HTTP status the upgrade was refused with. */
function connect(path: string, headers: Record<string, string> = {}): Promise<{ status: number; ws: WebSocket | null; messages: string[]; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${base}${path}`, { headers });
    const messages: string[] = [];
    const closed = new Promise<number>((done) => ws.on('close', (code) => done(code)));
    ws.on('message', (data: WebSocket.RawData) => messages.push(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')));
    ws.on('open', () => resolve({ status: 101, ws, messages, closed }));
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, ws: null, messages, closed });
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => reject(err));
  });
}

/** The close code, or a failure when the socket is still open after `ms` (re-checked every 20 ms here). */
const closedWithin = (closed: Promise<number>, ms = 3000) =>
  Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms).unref())]);

const until = async (predicate: () => boolean, what: string, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('WebSocket routes', () => {
  before(async () => {
    services = await testServices({ rateLimits: UNLIMITED_RATE_LIMITS });
    const app = createApp({ routes: [...routes, ...testRoutes], rawEndpoints, services, middleware: services.middleware, validateOutput: true, corsOrigins: ['https://dashboard.example'], streams: { recheckMs: 20, maxPerUser: 2 }, log: silentLogger });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0, websocket: { server: webSocketServer() } }, () => resolve(s));
    });
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    if ('closeAllConnections' in server) server.closeAllConnections();
  });

  it('refuses an upgrade without a credential (401) or with an API key on a session-only route (403), no handler run', async () => {
    const before = seen.opened;
    assert.equal((await connect('/test/echo')).status, 401);
    const viewer = await services.db.selectFrom('users').select('id').where('username', '=', 'viewer').executeTakeFirstOrThrow();
    const { key } = await services.auth.createApiKey(viewer.id, 'k', ['activity:read'], null);
    assert.equal((await connect('/test/echo', { 'x-api-key': key })).status, 403);
    assert.equal(seen.opened, before);
  });

  it('refuses a foreign Origin (403) and accepts its own or a configured CORS origin', async () => {
    const cookie = await signIn('admin', ADMIN_PASSWORD);
    const before = seen.opened;
    assert.equal((await connect('/test/echo', { cookie, origin: 'https://evil.example' })).status, 403);
    assert.equal(seen.opened, before, 'no handler ran');
    for (const origin of [`http://${base}`, 'https://dashboard.example']) {
      const open = await connect('/test/echo', { cookie, origin });
      assert.equal(open.status, 101, origin);
      open.ws?.close();
      await open.closed;
    }
  });

  it('echoes on an accepted socket, and caps open sockets per user (429 before the upgrade)', async () => {
    const cookie = await signIn('admin', ADMIN_PASSWORD);
    const first = await connect('/test/echo', { cookie });
    assert.equal(first.status, 101);
    first.ws?.send('ping');
    await until(() => first.messages.includes('echo: ping'), 'the echo');
    assert.equal(first.messages[0], 'hello');
    const second = await connect('/test/echo', { cookie });
    assert.equal(second.status, 101);
    assert.equal((await connect('/test/echo', { cookie })).status, 429);
    second.ws?.close();
    await second.closed;
    await until(() => seen.closed >= 1, 'the handler seeing its socket close');
    const third = await connect('/test/echo', { cookie });
    assert.equal(third.status, 101, 'a closed socket frees its slot');
    third.ws?.close();
    first.ws?.close();
    await Promise.all([third.closed, first.closed]);
  });

  it('closes an open socket (1008, after an error message) when its session is revoked', async () => {
    const cookie = await signIn('admin', ADMIN_PASSWORD);
    const open = await connect('/test/echo', { cookie });
    assert.equal(open.status, 101);
    const closedBefore = seen.closed;
    const out = await fetch(`http://${base}/auth/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' } });
    assert.equal(out.status, 200);
    assert.equal(await closedWithin(open.closed), 1008);
    assert.deepEqual(JSON.parse(open.messages.at(-1) ?? '{}'), { type: 'error', error: 'unauthenticated', message: 'session was revoked; sign in again' });
    await until(() => seen.closed > closedBefore, "the handler's signal firing");
  });

  it("closes a demoted admin's admin-only socket", async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const created = await fetch(`http://${base}/admin/users`, { method: 'POST', headers: { cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ops', password: 'ops password 1', role: 'admin' }) });
    assert.equal(created.status, 200);
    const ops = await signIn('ops', 'ops password 1');
    const open = await connect('/test/admin-echo', { cookie: ops });
    assert.equal(open.status, 101);
    const demoted = await fetch(`http://${base}/admin/users/ops`, { method: 'PATCH', headers: { cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'viewer' }) });
    assert.equal(demoted.status, 200);
    assert.equal(await closedWithin(open.closed), 1008);
    assert.equal((JSON.parse(open.messages.at(-1) ?? '{}') as { error?: string }).error, 'forbidden');
  });
});
