// The verified-credential cache (issue 13): an authenticated read no longer queries the
// database each time, yet a change made through this agent takes effect on the next request,
// and one made by another process on the same database within CREDENTIAL_CACHE_MS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { CREDENTIAL_CACHE_MS } from '../../runtime/auth/credential-cache.ts';
import { credentialWrites, openDatabase } from '../../runtime/store/database.ts';
import { testApp } from '../support/app.ts';

/** A second handle on the agent's database file: what a recovery CLI in another process holds. */
async function otherProcess(h: Awaited<ReturnType<typeof testApp>>) {
  return openDatabase(h.services.dataDir, h.clock);
}

describe('credential cache', () => {
  it('counts writes to the credential tables through the handle, and nothing else', async () => {
    const h = await testApp();
    const watch = credentialWrites(h.services.db);
    assert.ok(watch, 'the agent database watches its credential tables');
    const cases: { what: string; run: () => Promise<unknown>; counts: boolean }[] = [
      { what: 'a select', run: () => h.services.db.selectFrom('users').selectAll().execute(), counts: false },
      { what: 'a write to an unwatched table', run: () => h.services.db.insertInto('ip_bans').values({ ip: '192.0.2.1', reason: 'auth_flood', created_at: 0, expires_at: null }).execute(), counts: false },
      { what: 'an update of users', run: () => h.services.db.updateTable('users').set({ active: 1 }).where('username', '=', 'viewer').execute(), counts: true },
      { what: 'a delete from sessions', run: () => h.services.db.deleteFrom('sessions').where('id', '=', 'none').execute(), counts: true },
      { what: 'an update of api_keys', run: () => h.services.db.updateTable('api_keys').set({ revoked_at: 1 }).where('id', '=', -1).execute(), counts: true },
      { what: 'an update of oauth_tokens', run: () => h.services.db.updateTable('oauth_tokens').set({ revoked_at: 1 }).where('user_id', '=', -1).execute(), counts: true },
      { what: 'a write inside a transaction', run: () => h.services.db.transaction().execute((trx) => trx.updateTable('users').set({ active: 1 }).where('id', '=', -1).execute()), counts: true },
      { what: 'a raw statement that writes', run: () => sql`UPDATE users SET active = 1 WHERE id = -1`.execute(h.services.db), counts: true },
      { what: 'a raw select', run: () => sql`SELECT 1`.execute(h.services.db), counts: false },
    ];
    for (const c of cases) {
      const before = watch.current();
      await c.run();
      assert.equal(watch.current() !== before, c.counts, c.what);
    }
  });

  it('a revocation, deactivation or demotion through the agent takes effect on the very next request', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'admin' } });
    const ops = (await h.login('ops', 'ops password 1')).cookie;
    const minted = await h.call('POST', '/me/api-keys', { cookie: ops, body: { name: 'k', scopes: ['workloads:read'] } });
    const key = String(minted.body.key);
    // Both credentials are verified, so both are cached now.
    assert.equal((await h.call('GET', '/admin/users', { cookie: ops })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 200);

    await h.call('PATCH', '/admin/users/ops', { cookie: admin, body: { role: 'viewer' } });
    assert.equal((await h.call('GET', '/admin/users', { cookie: ops })).status, 403, 'demoted at once');
    await h.call('DELETE', `/me/api-keys/${String((minted.body.api_key as { id: number }).id)}`, { cookie: ops });
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 401, 'revoked at once');
    await h.call('PATCH', '/admin/users/ops', { cookie: admin, body: { active: false } });
    assert.equal((await h.call('GET', '/namespaces', { cookie: ops })).status, 401, 'deactivated at once');
  });

  it('a change by another process on the same database is seen within CREDENTIAL_CACHE_MS', async () => {
    const h = await testApp();
    const viewer = await h.signIn('viewer');
    const admin = await h.signIn();
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'k', scopes: ['workloads:read'] } })).body.key);
    assert.equal((await h.call('GET', '/namespaces', { cookie: viewer })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 200);

    const other = await otherProcess(h);
    await other.deleteFrom('sessions').execute();
    await other.updateTable('api_keys').set({ revoked_at: h.clock.now().getTime() }).execute();
    await other.destroy();

    h.clock.advance(CREDENTIAL_CACHE_MS);
    assert.equal((await h.call('GET', '/namespaces', { cookie: viewer })).status, 401);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 401);
  });

  it('expiry is checked on every request, not when the row was cached', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const expires = new Date(h.clock.now().getTime() + 1000).toISOString();
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'k', scopes: ['workloads:read'], expires_at: expires } })).body.key);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 200);
    h.clock.advance(1000);
    const refused = await h.call('GET', '/namespaces', { key });
    assert.equal(refused.status, 401);
    assert.match(String(refused.body.message), /expired/);
  });
});
