import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../../runtime/http/app.ts';
import { silentLogger } from '../../runtime/log.ts';
import { routes } from '../../runtime/routes.ts';
import { Scope } from '../../schema/access.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

const ALL_SCOPES = Scope.options;

async function harness() {
  const clock = new ManualClock();
  const services = await testServices({ clock });
  const app = createApp({ routes, services, middleware: services.middleware, validateOutput: true, log: silentLogger });
  const call = async (method: string, path: string, opts: { body?: unknown; cookie?: string; key?: string; bearer?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.cookie) headers.cookie = `capstan_session=${opts.cookie}`;
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    const res = await app.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const session = async (username: string, password: string) => {
    const res = await app.request('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    return /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  };
  const admin = await session('admin', ADMIN_PASSWORD);
  const viewer = await session('viewer', VIEWER_PASSWORD);
  const mint = async (cookie: string, scopes: readonly string[], extra: object = {}) => {
    const res = await call('POST', '/api/agent/me/api-keys', { cookie, body: { name: 'test', scopes, ...extra } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { key: String(res.body.key), id: (res.body.api_key as { id: number }).id };
  };
  return { clock, services, call, admin, viewer, mint };
}

describe('API keys', () => {
  it('shows the key once, lists only metadata, and authenticates by X-API-Key or Bearer', async () => {
    const h = await harness();
    const { key } = await h.mint(h.admin, ['workloads:read']);
    assert.match(key, /^capstan_[0-9a-f]{8}_[a-z2-7]{32}$/);
    const listed = await h.call('GET', '/api/agent/me/api-keys', { cookie: h.admin });
    assert.doesNotMatch(JSON.stringify(listed.body), new RegExp(key.split('_')[2] ?? 'x'));
    assert.deepEqual((listed.body.api_keys as { scopes: string[] }[])[0]?.scopes, ['workloads:read']);
    assert.equal((await h.call('GET', '/api/agent/namespaces', { key })).status, 200);
    assert.equal((await h.call('GET', '/api/agent/namespaces', { bearer: key })).status, 200);
  });

  it('refuses malformed, unknown, revoked and expired keys, and keys of a deactivated owner, with 401', async () => {
    const h = await harness();
    for (const key of ['capstan_nope', 'capstan_00000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '']) {
      assert.equal((await h.call('GET', '/namespaces', { key })).status, 401, key);
    }
    const revoked = await h.mint(h.admin, ['workloads:read']);
    const other = await h.mint(h.admin, ['workloads:read']);
    assert.equal((await h.call('DELETE', `/api/agent/me/api-keys/${revoked.id}`, { cookie: h.admin })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key: revoked.key })).status, 401);
    assert.equal((await h.call('GET', '/namespaces', { key: other.key })).status, 200, "the owner's other keys keep working");

    const expiring = await h.mint(h.admin, ['workloads:read'], { expires_at: new Date(h.clock.now().getTime() + 60_000).toISOString() });
    assert.equal((await h.call('GET', '/namespaces', { key: expiring.key })).status, 200);
    h.clock.advance(60_000);
    assert.equal((await h.call('GET', '/namespaces', { key: expiring.key })).status, 401);

    const viewerKey = await h.mint(h.viewer, ['workloads:read']);
    await h.services.db.updateTable('users').set({ active: 0 }).where('username', '=', 'viewer').execute();
    assert.equal((await h.call('GET', '/namespaces', { key: viewerKey.key })).status, 401);
  });

  it('rejects bad key requests with 400 naming the field', async () => {
    const h = await harness();
    const none = await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'x', scopes: [] } });
    assert.deepEqual([none.status, none.body.field], [400, 'scopes']);
    const unknown = await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'x', scopes: ['root:all'] } });
    assert.deepEqual([unknown.status, unknown.body.field], [400, 'scopes.0']);
    const past = await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'x', scopes: ['mcp:read'], expires_at: '2020-01-01T00:00:00Z' } });
    assert.deepEqual([past.status, past.body.field], [400, 'expires_at']);
  });

  it("lets an admin list and revoke anyone's keys, and a viewer only their own", async () => {
    const h = await harness();
    const adminKey = await h.mint(h.admin, ['workloads:read']);
    const viewerKey = await h.mint(h.viewer, ['workloads:read']);
    assert.equal((await h.call('DELETE', `/me/api-keys/${adminKey.id}`, { cookie: h.viewer })).status, 404);
    assert.equal((await h.call('GET', '/admin/api-keys', { cookie: h.viewer })).status, 403);
    const all = await h.call('GET', '/admin/api-keys', { cookie: h.admin });
    assert.deepEqual((all.body.api_keys as { owner: string }[]).map((k) => k.owner), ['admin', 'viewer']);
    assert.equal((await h.call('DELETE', `/admin/api-keys/${viewerKey.id}`, { cookie: h.admin })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key: viewerKey.key })).status, 401);
  });

  it('answers every credential route x every scope x admin and viewer owners as the route table declares', async () => {
    const h = await harness();
    // Past the expert-mode switch (its own test: tests/integration/helm.test.ts), so every Helm route shows its policy.
    await h.services.runtimeSettings.set('expert_mode', { enabled: true });
    const keys = new Map<string, string>();
    for (const [owner, cookie] of [['admin', h.admin], ['viewer', h.viewer]] as const) {
      for (const scope of ALL_SCOPES) keys.set(`${owner}:${scope}`, (await h.mint(cookie, [scope])).key);
    }
    let checked = 0;
    for (const route of routes) {
      if (route.access.auth !== 'credential') continue;
      const path = '/api/agent' + route.path.replace(/:[A-Za-z]+/g, '1');
      for (const owner of ['admin', 'viewer'] as const) {
        for (const scope of ALL_SCOPES) {
          const res = await h.call(route.method, path, { key: keys.get(`${owner}:${scope}`), body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
          const where = `${route.method} ${route.path} with a ${owner}'s ${scope} key`;
          if (route.access.scope === null) {
            assert.deepEqual([res.status, res.body.error], [403, 'api_key_forbidden'], where);
          } else if (scope !== route.access.scope) {
            assert.deepEqual([res.status, res.body.error, res.body.scope], [403, 'api_key_insufficient_scope', route.access.scope], where);
          } else if (route.access.role === 'admin' && owner === 'viewer') {
            assert.deepEqual([res.status, res.body.error], [403, 'forbidden'], where);
          } else {
            assert.ok(res.status !== 401 && res.status !== 403, `${where}: ${res.status}`);
          }
          checked++;
        }
      }
    }
    assert.ok(checked >= routes.length * 2, `only ${checked} combinations`);
  });
});
