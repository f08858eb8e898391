import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';

describe('users, roles and sessions', () => {
  it("acts at a key owner's new role immediately after a demotion, and refuses every key of a deactivated owner", async () => {
    const h = await testApp();
    const admin = await h.signIn();
    assert.equal((await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'admin' } })).status, 200);
    const ops = (await h.login('ops', 'ops password 1')).cookie;
    const minted = await h.call('POST', '/me/api-keys', { cookie: ops, body: { name: 'ci', scopes: ['activity:write', 'activity:read'] } });
    const key = String(minted.body.key);

    assert.equal((await h.call('POST', '/activity/retention', { key, body: { retention_days: 14 } })).status, 200);
    assert.equal((await h.call('PATCH', '/admin/users/ops', { cookie: admin, body: { role: 'viewer' } })).status, 200);
    const demoted = await h.call('POST', '/activity/retention', { key, body: { retention_days: 30 } });
    assert.deepEqual([demoted.status, demoted.body.error], [403, 'forbidden'], 'a viewer cannot call a write, key or not');
    assert.deepEqual((await h.call('GET', '/activity/retention', { key })).body, { retention_days: 14 });

    assert.equal((await h.call('PATCH', '/admin/users/ops', { cookie: admin, body: { active: false } })).status, 200);
    assert.equal((await h.call('GET', '/activity/retention', { key })).status, 401);
    assert.equal((await h.call('GET', '/me', { cookie: ops })).status, 401, 'their sessions end too');
  });

  it('never leaves the install without an active admin', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const res = await h.call('PATCH', '/admin/users/admin', { cookie: admin, body: { role: 'viewer' } });
    assert.deepEqual([res.status, res.body.field], [400, 'role']);
    assert.deepEqual([(await h.call('PATCH', '/admin/users/nobody', { cookie: admin, body: { active: false } })).status], [404]);
    const short = await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'x', password: 'short', role: 'viewer' } });
    assert.deepEqual([short.status, short.body.field], [400, 'password']);
  });

  it('answers a duplicate username 409 conflict naming the field, as a duplicate application name is', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const dup = await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'viewer', password: 'whatever 123', role: 'viewer' } });
    assert.deepEqual([dup.status, dup.body.error, dup.body.field], [409, 'conflict', 'username']);
  });

  it('lists sessions with the current one marked, and revokes them server-side', async () => {
    const h = await testApp();
    const first = await h.signIn();
    const second = await h.signIn();
    const viewer = await h.signIn('viewer');
    const mine = await h.call('GET', '/me/sessions', { cookie: first });
    const sessions = mine.body.sessions as { id: string; current: boolean; username: string }[];
    assert.equal(sessions.length, 2);
    assert.equal(sessions.filter((s) => s.current).length, 1);
    const other = sessions.find((s) => !s.current);
    assert.ok(other);
    assert.equal((await h.call('DELETE', `/me/sessions/${other.id}`, { cookie: first })).status, 200);
    assert.equal((await h.call('GET', '/me', { cookie: second })).status, 401);

    const all = (await h.call('GET', '/admin/sessions', { cookie: first })).body.sessions as { id: string; username: string }[];
    const viewerSession = all.find((s) => s.username === 'viewer');
    assert.ok(viewerSession);
    assert.equal((await h.call('DELETE', `/me/sessions/${viewerSession.id}`, { cookie: first })).status, 404, "not one of the admin's own");
    assert.equal((await h.call('GET', '/admin/sessions', { cookie: viewer })).status, 403);
    assert.equal((await h.call('DELETE', `/admin/sessions/${viewerSession.id}`, { cookie: first })).status, 200);
    assert.equal((await h.call('GET', '/me', { cookie: viewer })).status, 401);
  });

  it('applies an idle timeout changed at runtime to sessions already signed in, and 0 disables it', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const viewer = await h.signIn('viewer');
    const set = await h.call('PUT', '/admin/settings/security', { cookie: admin, body: { session_idle_timeout_secs: 600 } });
    assert.equal(set.body.session_idle_timeout_secs, 600);
    h.clock.advance(601_000);
    assert.equal((await h.call('GET', '/me', { cookie: viewer })).status, 401);

    const fresh = await h.signIn();
    assert.equal((await h.call('PUT', '/admin/settings/security', { cookie: fresh, body: { session_idle_timeout_secs: 0 } })).status, 200);
    h.clock.advance(5 * 3600_000);
    assert.equal((await h.call('GET', '/me', { cookie: fresh })).status, 200, 'no idle limit; the 24 h ceiling still holds');
    h.clock.advance(20 * 3600_000);
    assert.equal((await h.call('GET', '/me', { cookie: fresh })).status, 401);

    const bad = await h.call('PUT', '/admin/settings/security', { cookie: await h.signIn(), body: { session_idle_timeout_secs: -5 } });
    assert.deepEqual([bad.status, bad.body.field], [400, 'session_idle_timeout_secs']);
  });

  it('honours sso.local_login admin_only, and refuses turning password sign-in off while no SSO exists', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const off = await h.call('PUT', '/admin/settings/security', { cookie: admin, body: { local_login: 'off' } });
    assert.deepEqual([off.status, off.body.field], [400, 'local_login']);
    assert.equal((await h.call('PUT', '/admin/settings/security', { cookie: admin, body: { local_login: 'admin_only' } })).status, 200);
    assert.equal((await h.login('viewer', 'viewer password 1')).status, 403);
    assert.equal((await h.signIn()) !== '', true);
  });
  it('revokes API keys and connected apps at deactivation, so reactivation does not bring them back', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    assert.equal((await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'dana', password: 'dana password 1', role: 'viewer' } })).status, 200);
    const dana = await h.login('dana', 'dana password 1');
    const key = String((await h.call('POST', '/me/api-keys', { cookie: dana.cookie, body: { name: 'ci', scopes: ['workloads:read'] } })).body.key);

    // An MCP client connected through OAuth (the in-process app's origin is http://localhost).
    const resource = 'http://localhost/api/agent/mcp';
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const registered = await h.services.oauth.registerClient('Desktop Assistant (test)', ['http://127.0.0.1:9/cb']);
    assert.ok(registered.ok);
    const client = registered.value;
    const danaId = (await h.services.db.selectFrom('users').select('id').where('username', '=', 'dana').executeTakeFirstOrThrow()).id;
    const grant = { clientId: client.client_id, userId: danaId, redirectUri: 'http://127.0.0.1:9/cb', codeChallenge: challenge, resource };
    const exchange = async (code: string) => h.services.oauth.exchangeCode({ code, clientId: client.client_id, redirectUri: grant.redirectUri, codeVerifier: verifier, resource });
    const issued = await exchange(await h.services.oauth.issueCode(grant));
    assert.ok('token' in issued, JSON.stringify(issued));
    const bearer = { authorization: `Bearer ${issued.token}` };
    // A code approved before deactivation but not yet exchanged.
    const pendingCode = await h.services.oauth.issueCode(grant);

    assert.equal((await h.call('GET', '/namespaces', { key })).status, 200);
    assert.equal((await h.call('GET', '/api/agent/mcp/tools', { headers: bearer })).status, 200);

    assert.equal((await h.call('PATCH', '/admin/users/dana', { cookie: admin, body: { active: false } })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 401);
    assert.equal((await h.call('GET', '/api/agent/mcp/tools', { headers: bearer })).status, 401);

    assert.equal((await h.call('PATCH', '/admin/users/dana', { cookie: admin, body: { active: true } })).status, 200);
    assert.equal((await h.call('GET', '/namespaces', { key })).status, 401, 'the key died with the account');
    assert.equal((await h.call('GET', '/api/agent/mcp/tools', { headers: bearer })).status, 401, 'the token died with the account');
    assert.ok('error' in (await exchange(pendingCode)), 'a code approved before deactivation cannot be exchanged after reactivation');

    const again = await h.login('dana', 'dana password 1');
    const keys = (await h.call('GET', '/me/api-keys', { cookie: again.cookie })).body.api_keys as { revoked_at: string | null }[];
    assert.ok(keys.length === 1 && keys[0]?.revoked_at !== null, 'listed as revoked');
    assert.deepEqual((await h.call('GET', '/me/oauth/grants', { cookie: again.cookie })).body.grants, [], 'no connected apps left');
  });
});
