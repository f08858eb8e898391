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
import { defineRoute, type Route } from '../../handlers/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { emptyCluster, testServices } from '../support/services.ts';
import { eventDefaults, podDefaults, pvDefaults, pvcDefaults } from '../support/objects.ts';

/** A pod as the informer keeps it; only its namespace and name matter here. */
const podShape = {
  ...podDefaults,
  phase: 'Running',
  createdAt: null,
  startedAt: null,
  nodeName: null,
  labels: {},
  workload: { kind: 'Pod', name: 'p' },
  owner: null,
  refs: { configMaps: [], secrets: [], pvcs: [] },
  ready: true,
  readySince: null,
  unschedulable: null,
  containers: [],
  statuses: [],
};

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

  it('refuses a hidden namespace a route declares as its namespace parameter with the one out-of-scope 403, before the handler', async () => {
    const seen: string[] = [];
    const route = defineRoute({
      ...common,
      method: 'GET',
      path: '/ns/:namespace/things',
      input: v.object({ namespace: v.string() }),
      access: { auth: 'public' },
      audit: 'none',
      rateLimit: 'read',
      namespaceParam: 'namespace',
      handler: (input) => {
        seen.push(input.namespace);
        return ok({ called: true });
      },
    });
    const services = await testServices({ tenantNamespaces: ['shop', 'web'] });
    const app = createApp({ routes: [route], services, middleware: [], log: silentLogger });
    for (const hidden of ['kube-system', 'billing']) {
      const res = await app.request(`/ns/${hidden}/things`);
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { error: 'forbidden', message: `namespace ${hidden} is outside what Capstan may show` });
    }
    assert.equal((await app.request('/ns/shop/things')).status, 200);
    assert.deepEqual(seen, ['shop']);
  });

  it('checks every namespace of a list-valued namespace parameter', async () => {
    const route = defineRoute({
      ...common,
      method: 'POST',
      path: '/many',
      input: v.object({ namespaces: v.array(v.string()) }),
      access: { auth: 'public' },
      audit: 'none',
      rateLimit: 'read',
      namespaceParam: 'namespaces',
      handler: () => ok({ called: true }),
    });
    const services = await testServices({ tenantNamespaces: ['shop', 'web'] });
    const app = createApp({ routes: [route], services, middleware: [], log: silentLogger });
    const post = (namespaces: string[]) => app.request('/many', { method: 'POST', body: JSON.stringify({ namespaces }), headers: { 'content-type': 'application/json' } });
    const refused = await post(['shop', 'istio-system', 'web']);
    assert.deepEqual([refused.status, ((await refused.json()) as { message: string }).message], [403, 'namespace istio-system is outside what Capstan may show']);
    assert.equal((await post(['shop', 'web'])).status, 200);
  });

  it('hands handlers a cluster view holding only the namespaces the caller may see', async () => {
    const pod = (namespace: string, name: string) => ({ ...podShape, namespace, name });
    const services = await testServices({
      tenantNamespaces: ['shop'],
      cluster: {
        ...emptyCluster,
        namespaces: () => ['shop', 'billing', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
        pods: () => [pod('shop', 'a'), pod('billing', 'b'), pod('kube-system', 'c')],
        events: () => ['shop', 'kube-system'].map((namespace) => ({ ...eventDefaults, namespace, involvedKind: 'Pod', involvedName: 'x', type: 'Warning', reason: 'R', message: 'm', count: 1, firstSeen: null, lastSeen: null })),
        pvcs: () => [{ ...pvcDefaults, namespace: 'shop', name: 'data', phase: 'Bound', volumeName: 'pv-1' }, { ...pvcDefaults, namespace: 'billing', name: 'data', phase: 'Bound', volumeName: 'pv-2' }],
        pvs: () => [
          { ...pvDefaults, name: 'pv-1', phase: 'Bound', claim: { namespace: 'shop', name: 'data' }, storageClass: null },
          { ...pvDefaults, name: 'pv-2', phase: 'Bound', claim: { namespace: 'billing', name: 'data' }, storageClass: null },
          { ...pvDefaults, name: 'pv-free', phase: 'Available', claim: null, storageClass: null },
        ],
        metrics: () => ({ available: true, at: '2026-11-21T12:00:00Z', pods: new Map([['shop/a', { cpuM: 1, memBytes: 1 }], ['kube-system/c', { cpuM: 2, memBytes: 2 }]]) }),
      },
    });
    const route = defineRoute({
      method: 'GET',
      path: '/seen',
      summary: 's',
      input: v.object({}),
      output: v.record(v.string(), v.array(v.string())),
      feature: null,
      access: { auth: 'public' },
      audit: 'none',
      rateLimit: 'read',
      handler: (_input, ctx) => {
        const metrics = ctx.cluster.metrics();
        return ok({
          namespaces: ctx.cluster.namespaces().map((n) => n.name),
          pods: ctx.cluster.pods().map((p) => `${p.namespace}/${p.name}`),
          events: ctx.cluster.events().map((e) => e.namespace),
          pvcs: ctx.cluster.pvcs().map((p) => p.namespace),
          pvs: ctx.cluster.pvs().map((p) => p.name),
          metrics: metrics.available ? [...metrics.pods.keys()] : [],
        });
      },
    });
    const app = createApp({ routes: [route], services, middleware: [], log: silentLogger });
    assert.deepEqual(await (await app.request('/seen')).json(), {
      namespaces: ['shop'],
      pods: ['shop/a'],
      events: ['shop'],
      pvcs: ['shop'],
      pvs: ['pv-1', 'pv-free'],
      metrics: ['shop/a'],
    });
  });
});
