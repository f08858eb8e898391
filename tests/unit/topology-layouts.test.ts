// Saved topology layouts (`/topology/layout`): each user's own, only around an object they can
// see, bounded in size and count, gone on request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NamespaceObject } from '../../domain/cluster/model.ts';
import { MAX_LAYOUTS_PER_USER } from '../../schema/graph.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const ns = (name: string): NamespaceObject => ({ name, phase: 'Active', createdAt: null, labels: {} });
const cluster = { ...emptyCluster, namespaces: () => [ns('shop'), ns('kube-system'), ...Array.from({ length: MAX_LAYOUTS_PER_USER + 1 }, (_, i) => ns(`team-${i}`))] };
const positions = { 'namespace:shop': { x: 0, y: 0 }, 'pod:shop/web-1': { x: 300, y: -72.5 } };

describe('topology layouts', () => {
  it('saves, reads back, and forgets a layout; another user sees their own only', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn();
    const viewer = await h.signIn('viewer');
    assert.equal((await h.call('GET', '/topology/layout?focus=namespace:shop', { cookie: admin })).status, 404);
    const saved = await h.call('PUT', '/topology/layout', { cookie: viewer, body: { focus: 'namespace:shop', positions } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual((await h.call('GET', '/topology/layout?focus=namespace:shop', { cookie: viewer })).body.positions, positions);
    assert.equal((await h.call('GET', '/topology/layout?focus=namespace:shop', { cookie: admin })).status, 404, "the admin has none of the viewer's");
    assert.deepEqual((await h.call('DELETE', '/topology/layout?focus=namespace:shop', { cookie: viewer })).body, { deleted: true });
    assert.equal((await h.call('GET', '/topology/layout?focus=namespace:shop', { cookie: viewer })).status, 404);
  });

  it('refuses a hidden focus, bad positions, and a key without topology:write', async () => {
    const h = await testApp({ cluster });
    const me = await h.signIn();
    assert.equal((await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: 'namespace:kube-system', positions } })).status, 403);
    assert.equal((await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: 'namespace:nowhere', positions } })).status, 404);
    const far = await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: 'namespace:shop', positions: { a: { x: 1e9, y: 0 } } } });
    assert.equal(far.status, 400);
    const many = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`n${i}`, { x: i, y: i }]));
    assert.equal((await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: 'namespace:shop', positions: many } })).status, 400);
    const key = String((await h.call('POST', '/me/api-keys', { cookie: me, body: { name: 'reader', scopes: ['topology:read'] } })).body.key);
    const refused = await h.call('PUT', '/topology/layout', { key, body: { focus: 'namespace:shop', positions } });
    assert.deepEqual([refused.status, refused.body.error], [403, 'api_key_insufficient_scope']);
  });

  it(`keeps at most ${MAX_LAYOUTS_PER_USER} layouts a user, replacing one in place`, async () => {
    // Past the write class's per-minute budget: this is about the count, not the rate.
    const h = await testApp({ cluster, rateLimits: { ...DEFAULT_RATE_LIMITS, write: 10_000 } });
    const me = await h.signIn();
    for (let i = 0; i < MAX_LAYOUTS_PER_USER; i++) assert.equal((await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: `namespace:team-${i}`, positions } })).status, 200);
    const over = await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: `namespace:team-${MAX_LAYOUTS_PER_USER}`, positions } });
    assert.deepEqual([over.status, over.body.field], [409, 'focus']);
    assert.equal((await h.call('PUT', '/topology/layout', { cookie: me, body: { focus: 'namespace:team-0', positions: {} } })).status, 200, 'replacing is no new one');
  });
});
