// Seat counts (GET /admin/seats) and the access-control policy, both readable by an admin's key
// holding policy:read (spec §5); neither by a viewer, nor by a key without the scope.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';

describe('seats and the access-control policy under policy:read', () => {
  it('counts accounts by role and provider, active and deactivated, every pair listed', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'admin' } });
    await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'gone', password: 'gone password 1', role: 'viewer' } });
    await h.call('PATCH', '/admin/users/gone', { cookie: admin, body: { active: false } });
    const res = await h.call('GET', '/admin/seats', { cookie: admin });
    assert.equal(res.status, 200);
    const seats = res.body.seats as { role: string; provider: string; active: number; inactive: number }[];
    assert.equal(seats.length, 8);
    assert.deepEqual(seats.find((s) => s.role === 'admin' && s.provider === 'local'), { role: 'admin', provider: 'local', active: 2, inactive: 0 });
    assert.deepEqual(seats.find((s) => s.role === 'viewer' && s.provider === 'local'), { role: 'viewer', provider: 'local', active: 1, inactive: 1 });
    assert.deepEqual(seats.find((s) => s.role === 'viewer' && s.provider === 'saml'), { role: 'viewer', provider: 'saml', active: 0, inactive: 0 });
    assert.equal(res.body.total_active, 3);
  });

  it('reads both with a policy:read key, never with another key or as a viewer', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const mint = async (scopes: string[]) => String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: scopes.join(), scopes } })).body.key);
    const policy = await mint(['policy:read']);
    const other = await mint(['workloads:read']);
    const viewer = await h.signIn('viewer');
    for (const path of ['/admin/seats', '/admin/access-control']) {
      assert.equal((await h.call('GET', path, { key: policy })).status, 200, path);
      const scope = await h.call('GET', path, { key: other });
      assert.deepEqual([scope.status, scope.body.error], [403, 'api_key_insufficient_scope'], path);
      assert.equal((await h.call('GET', path, { cookie: viewer })).status, 403, path);
    }
    const write = await h.call('PUT', '/admin/access-control', { key: policy, body: { allowlist: [] } });
    assert.deepEqual([write.status, write.body.error], [403, 'api_key_forbidden'], 'changing the policy is a session only');
  });
});
