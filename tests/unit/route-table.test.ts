import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { scopeAnswers } from '../../domain/scoped.ts';
import type { AuthedContext, HandlerContext, Principal, SessionContext } from '../../handlers/context.ts';
import { fail, ok } from '../../handlers/result.ts';
import { createApp } from '../../runtime/http/app.ts';
import { defineRoute, type Route } from '../../handlers/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { MCP_TOOLS, callTool } from '../../handlers/mcp/tools.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster, testServices } from '../support/services.ts';

const services = await testServices({
  cluster: {
    ...emptyCluster,
    namespaces: () => [
      { name: 'shop', phase: 'Active', createdAt: '2026-01-01T00:00:00Z', labels: {} },
      { name: 'kube-system', phase: 'Active', createdAt: null, labels: {} },
    ],
    syncStatus: () => [{ resource: 'namespaces', synced: true, failing_since: null, forbidden: false, forbidden_namespaces: [] }],
  },
});

const policy = { access: { auth: 'public' }, audit: 'none', rateLimit: 'read', feature: null } as const;

const testRoutes: Route[] = [
  defineRoute({
    ...policy,
    method: 'GET',
    path: '/history',
    summary: 'validation probe',
    input: v.object({ window: v.optional(v.picklist(['1h', '6h', '24h', '7d']), '1h') }),
    output: v.object({ window: v.string() }),
    handler: (input) => ok({ window: input.window }),
  }),
  defineRoute({
    ...policy,
    method: 'POST',
    path: '/things/:name',
    summary: 'body + params probe',
    input: v.object({ name: v.pipe(v.string(), v.minLength(3)), size: v.number() }),
    output: v.object({ name: v.string(), size: v.number() }),
    handler: (input) => ok(input),
  }),
  defineRoute({
    ...policy,
    method: 'GET',
    path: '/missing/:id',
    summary: 'typed error probe',
    input: v.object({ id: v.string() }),
    output: v.object({}),
    handler: (input) => fail({ code: 'not_found', message: `no thing ${input.id}` }),
  }),
  defineRoute({
    ...policy,
    method: 'GET',
    path: '/drift',
    summary: 'output drift probe',
    input: v.object({}),
    output: v.object({ count: v.number() }),
    // The handler's type says number; this simulates a handler that lies at runtime.
    handler: () => ok(JSON.parse('{"count":"seven"}') as { count: number }),
  }),
];

const app = createApp({ routes: testRoutes, services, validateOutput: true, log: silentLogger });

async function call(method: string, path: string, body?: unknown) {
  const init: RequestInit = { method };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await app.request(path, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('route table runtime', () => {
  it('serves every route at /<route> and at /api/agent/<route>', async () => {
    for (const path of ['/history?window=6h', '/api/agent/history?window=6h']) {
      assert.deepEqual(await call('GET', path), { status: 200, body: { window: '6h' } });
    }
  });

  it('applies schema defaults to absent input', async () => {
    assert.deepEqual((await call('GET', '/history')).body, { window: '1h' });
  });

  it('rejects an unsupported query value with 400 naming the field', async () => {
    const res = await call('GET', '/api/agent/history?window=2h');
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_input');
    assert.equal(res.body.field, 'window');
    assert.match(String(res.body.message), /window/);
  });

  it('merges path params with the JSON body and validates both', async () => {
    assert.deepEqual(await call('POST', '/things/widget', { size: 3 }), { status: 200, body: { name: 'widget', size: 3 } });
    const shortName = await call('POST', '/things/ab', { size: 3 });
    assert.equal(shortName.status, 400);
    assert.equal(shortName.body.field, 'name');
    const wrongType = await call('POST', '/things/widget', { size: 'big' });
    assert.equal(wrongType.body.field, 'size');
  });

  it('answers malformed JSON bodies with 400 on field body', async () => {
    const res = await call('POST', '/things/widget', '{not json');
    assert.equal(res.status, 400);
    assert.equal(res.body.field, 'body');
    const arrayBody = await call('POST', '/things/widget', [1, 2]);
    assert.equal(arrayBody.status, 400);
  });

  it('maps a typed handler error to its status and stable code', async () => {
    assert.deepEqual(await call('GET', '/missing/42'), { status: 404, body: { error: 'not_found', message: 'no thing 42' } });
  });

  it('turns a response that breaks its own output schema into a 500', async () => {
    const res = await call('GET', '/drift');
    assert.equal(res.status, 500);
    assert.equal(res.body.error, 'internal');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await call('GET', '/api/agent/nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.error, 'not_found');
  });
});

describe('the production route table', () => {
  it('declares each method and path once', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    assert.equal(new Set(keys).size, keys.length);
  });

  it('makes only the probes, the sign-in routes, the sign-in methods and the OAuth endpoints a client needs before it has a token public', () => {
    const publicRoutes = routes.filter((r) => r.access.auth === 'public').map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(publicRoutes.sort(), [
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-protected-resource/api/agent/mcp',
      'GET /auth/methods',
      'GET /auth/oidc/callback',
      'GET /auth/oidc/login',
      'GET /auth/saml/login',
      'GET /auth/saml/logout',
      'GET /auth/saml/metadata',
      'GET /auth/saml/slo',
      'GET /healthz',
      'GET /oauth/authorize',
      'GET /readyz',
      'POST /auth/ldap/login',
      'POST /auth/login',
      'POST /auth/saml/acs',
      'POST /auth/saml/slo',
      'POST /oauth/register',
      'POST /oauth/token',
    ]);
  });

  it('serves /namespaces without system namespaces through the real table and chain', async () => {
    const real = await testApp({ cluster: services.cluster });
    const res = await real.call('GET', '/api/agent/namespaces', { cookie: await real.signIn('viewer') });
    assert.equal(res.status, 200);
    assert.deepEqual((res.body.namespaces as { name: string }[]).map((n) => n.name), ['shop']);
  });
});

/** The same request context with a given principal, as the runtime would hand it over. */
function contextOf(principal: Principal | null): HandlerContext {
  return { ...services, ...scopeAnswers(services, services.settings.tenantNamespaces), request: { ip: '192.0.2.10', origin: 'http://capstan.test', noteAudit: () => undefined }, principal };
}

const keyHolder: Principal = { userId: 1, username: 'admin', role: 'admin', via: 'api_key', keyId: 1, scopes: [] };
const key = (r: Route) => `${r.method} ${r.path}`;
const everyRoute: readonly Route[] = [...routes, ...rawEndpoints.map((e) => e.route)];

describe('route-table invariants', () => {
  it('types a credential route\'s principal as present, a session-only route\'s as a session, a public route\'s as maybe absent', () => {
    const probeShape = { method: 'GET', path: '/t', summary: 't', input: v.object({}), output: v.unknown(), audit: 'none', feature: null } as const;
    const shape = { ...probeShape, rateLimit: 'read' } as const;
    // Compiles only because the principal is non-null by type: no check in the handler.
    defineRoute({ ...shape, access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, handler: (_i, ctx) => ok(ctx.principal.userId) });
    defineRoute({ ...shape, access: { auth: 'credential', role: 'viewer', scope: null }, handler: (_i, ctx) => ok(ctx.principal.sessionId) });
    // @ts-expect-error a public route's handler cannot assume anybody signed in
    defineRoute({ ...shape, access: { auth: 'public' }, handler: (_i, ctx: AuthedContext) => ok(ctx.principal.userId) });
    // @ts-expect-error a route an API key reaches cannot assume a session
    defineRoute({ ...shape, access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' }, handler: (_i, ctx: SessionContext) => ok(ctx.principal.sessionId) });
    // @ts-expect-error a public route's principal may be null
    defineRoute({ ...shape, access: { auth: 'public' }, handler: (_i, ctx) => ok(ctx.principal.userId) });
    // @ts-expect-error a probe is unmetered: it has no rate-limit class
    defineRoute({ ...probeShape, probe: true, rateLimit: 'read', access: { auth: 'public' }, handler: () => ok(null) });
    // @ts-expect-error a probe is public
    defineRoute({ ...probeShape, probe: true, access: { auth: 'credential', role: 'viewer', scope: null }, handler: () => ok(null) });
  });

  for (const route of everyRoute.filter((r) => r.access.auth === 'credential')) {
    it(`never runs ${key(route)} without a principal`, async () => {
      const result = await route.run({}, contextOf(null));
      assert.deepEqual(result.ok ? 'ran' : result.error.code, 'unauthenticated');
    });
  }

  for (const route of everyRoute.filter((r) => r.access.auth === 'credential' && r.access.scope === null)) {
    it(`never runs ${key(route)}, which no key reaches, for a key holder`, async () => {
      const result = await route.run({}, contextOf(keyHolder));
      assert.deepEqual(result.ok ? 'ran' : result.error.code, 'unauthenticated');
    });
  }

  it('checks namespace parameters by declaration only', () => {
    // @ts-expect-error the namespace parameter must be a string (or string list) field of the input
    defineRoute({ ...policy, method: 'GET', path: '/n', summary: 'n', input: v.object({ namespace: v.string() }), output: v.unknown(), namespaceParam: 'nope', handler: () => ok(null) });
    // @ts-expect-error ...not a number field
    defineRoute({ ...policy, method: 'GET', path: '/n', summary: 'n', input: v.object({ limit: v.number() }), output: v.unknown(), namespaceParam: 'limit', handler: () => ok(null) });
  });

  for (const route of routes.filter((r) => r.path.includes(':namespace'))) {
    it(`declares the namespace parameter of ${key(route)}`, () => assert.equal(route.namespaceParam, 'namespace'));
  }

  // The audit feed filters its own rows by the namespace a request named; reading it is the
  // admin's, and a refused request's namespace is exactly what they may need to find. The
  // scrape config's namespace is only written into the text it generates (where Prometheus runs).
  const READS_NO_CLUSTER_NAMESPACE = ['GET /admin/audit/events', 'GET /admin/audit/export', 'GET /observability/scrape-config'];
  for (const route of routes.filter((r) => !READS_NO_CLUSTER_NAMESPACE.includes(key(r)))) {
    const entries = 'entries' in route.input ? Object.keys(route.input.entries as object) : [];
    const named = entries.filter((field) => field === 'namespace' || field === 'namespaces');
    if (named.length === 0) continue;
    it(`declares ${key(route)}'s ${named.join(', ')} input as its namespace parameter`, () => assert.deepEqual([route.namespaceParam], named));
  }

  for (const tool of MCP_TOOLS) {
    const entries = 'entries' in tool.input ? Object.keys(tool.input.entries as object) : [];
    if (!entries.includes('namespace')) continue;
    it(`refuses a hidden namespace in the MCP tool ${tool.name} by declaration`, async () => {
      assert.equal(tool.namespaceArg, 'namespace');
      // Valid values of every other argument, so only the namespace can refuse (get_findings' kind is a finding kind).
      const args = { namespace: 'kube-system', pod: 'p', name: 'n', kind: tool.name === 'get_findings' ? 'misconfig' : 'Pod', id: 'pod:kube-system/p' };
      const wanted = Object.fromEntries(Object.entries(args).filter(([k]) => entries.includes(k)));
      const result = await callTool(tool.name, wanted, contextOf(null));
      assert.deepEqual(result.ok ? 'ran' : [result.error.code, result.error.message], ['forbidden', 'namespace kube-system is outside what Capstan may show']);
    });
  }

  it('closes exactly the MCP surface with the MCP kill switch', () => {
    assert.deepEqual(everyRoute.filter((r) => r.killSwitch === 'mcp').map(key).sort(), ['GET /mcp/tools', 'POST /mcp', 'POST /mcp/tools/call']);
  });

  it('closes every Helm route, and nothing else, with the expert-mode switch', () => {
    const closed = everyRoute.filter((r) => r.killSwitch === 'expert_mode');
    assert.deepEqual(closed, everyRoute.filter((r) => r.path.startsWith('/helm/')));
    assert.ok(closed.length >= 7);
  });

  it('declares exactly /healthz and /readyz probes, public and unaudited', () => {
    const probes = everyRoute.filter((r) => r.probe);
    assert.deepEqual(probes.map(key).sort(), ['GET /healthz', 'GET /readyz']);
    for (const probe of probes) assert.deepEqual([probe.access.auth, probe.audit, probe.rateLimit], ['public', 'none', null]);
  });
});
