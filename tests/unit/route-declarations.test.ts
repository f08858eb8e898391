// Policy a route declares is applied by the runtime before its handler runs: the handler
// cannot forget it. Each test declares a route with one flag and a handler that records
// whether it was called.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MiddlewareHandler } from 'hono';
import * as v from 'valibot';
import type { Principal } from '../../handlers/context.ts';
import { ok } from '../../handlers/result.ts';
import { createApp, type RouteMiddleware } from '../../runtime/http/app.ts';
import type { AppEnv } from '../../runtime/http/env.ts';
import { defineRoute, type Route } from '../../runtime/http/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testServices } from '../support/services.ts';

const common = { input: v.object({}), output: v.object({ called: v.boolean() }), feature: null, summary: 's' } as const;

/** A stand-in authentication stage that presents `principal` (or nobody) for every route. */
const presenting =
  (principal: Principal | null): RouteMiddleware =>
  () => {
    const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
      if (principal) c.set('principal', principal);
      await next();
    };
    return middleware;
  };

async function request(routes: Route[], path: string, options: { middleware?: RouteMiddleware[]; closeMcp?: boolean; ip?: string } = {}) {
  const services = await testServices();
  if (options.closeMcp) await services.runtimeSettings.set('mcp', { enabled: false });
  const app = createApp({ routes, services, middleware: options.middleware ?? services.middleware, log: silentLogger });
  const res = await app.request(path, {}, { incoming: { socket: { remoteAddress: options.ip ?? '192.0.2.10' } } });
  return { services, status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('route declarations the runtime enforces', () => {
  it('answers 401 before a credential route runs when no principal reached it', async () => {
    let called = false;
    const route = defineRoute({
      ...common,
      method: 'GET',
      path: '/mine',
      access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
      audit: 'none',
      rateLimit: 'read',
      handler: (_input, ctx) => {
        called = true;
        return ok({ called: ctx.principal.userId > 0 });
      },
    });
    // No authentication stage at all: the principal is missing, and the route must not trust that.
    const res = await request([route], '/mine', { middleware: [] });
    assert.deepEqual([res.status, res.body.error], [401, 'unauthenticated']);
    assert.equal(called, false);
  });

  it('hands a session-only route (scope null) a session principal, never a key or token holder', async () => {
    let called = false;
    const route = defineRoute({
      ...common,
      method: 'GET',
      path: '/own',
      access: { auth: 'credential', role: 'viewer', scope: null },
      audit: 'none',
      rateLimit: 'read',
      handler: (_input, ctx) => {
        called = true;
        return ok({ called: ctx.principal.sessionId !== '' });
      },
    });
    const keyHolder: Principal = { userId: 1, username: 'admin', role: 'admin', via: 'api_key', keyId: 4, scopes: ['workloads:read'] };
    const refused = await request([route], '/own', { middleware: [presenting(keyHolder)] });
    assert.deepEqual([refused.status, refused.body.error], [401, 'unauthenticated']);
    assert.equal(called, false);
    const session: Principal = { userId: 1, username: 'admin', role: 'admin', via: 'session', sessionId: 'abc' };
    const served = await request([route], '/own', { middleware: [presenting(session)] });
    assert.deepEqual([served.status, served.body], [200, { called: true }]);
  });

  it('refuses a kill-switch route with 403 mcp_disabled while the switch is closed, audited, without running it', async () => {
    let called = false;
    const route = defineRoute({
      ...common,
      method: 'GET',
      path: '/switched',
      access: { auth: 'public' },
      audit: 'http',
      rateLimit: 'read',
      killSwitch: 'mcp',
      handler: () => {
        called = true;
        return ok({ called: true });
      },
    });
    const closed = await request([route], '/switched', { closeMcp: true });
    assert.deepEqual([closed.status, closed.body.error], [403, 'mcp_disabled']);
    assert.equal(called, false);
    const audited = await closed.services.db.selectFrom('audit_log').select(['action', 'status', 'outcome']).where('action', '=', 'GET /switched').execute();
    assert.deepEqual(audited, [{ action: 'GET /switched', status: 403, outcome: 'denied' }]);
    const open = await request([route], '/switched');
    assert.deepEqual([open.status, open.body], [200, { called: true }]);
  });

  it('exempts a route declared a probe from IP access, shedding and rate limits', async () => {
    const route = defineRoute({ ...common, method: 'GET', path: '/ping', access: { auth: 'public' }, audit: 'none', probe: true, handler: () => ok({ called: true }) });
    const services = await testServices({ defaults: { denylist: ['203.0.113.0/24'] } });
    const app = createApp({ routes: [route], services, middleware: services.middleware, log: silentLogger });
    for (let i = 0; i < 3; i++) {
      const res = await app.request('/ping', {}, { incoming: { socket: { remoteAddress: '203.0.113.9' } } });
      assert.equal(res.status, 200, 'a denylisted address still reaches a probe');
    }
  });
});
