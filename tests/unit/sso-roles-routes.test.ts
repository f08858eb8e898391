// Admin → Groups' default role and un-pinning a hand-set role, over the in-process app with the
// production chain: an admin's session only (viewers and API keys refused), bad input named,
// audited; sign-ins here go straight to the SSO service (the identity a provider would vouch
// for), the real directory's turn is tests/integration/sso-ldap-roles.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SsoIdentity } from '../../handlers/sso/service.ts';
import { testApp } from '../support/app.ts';

const identity = (subject: string, groups: string[], email: string | null = `${subject}@example.com`): SsoIdentity => ({ provider: 'oidc', subject, email, emailVerified: true, groups });

async function setup() {
  const h = await testApp();
  const admin = await h.signIn('admin');
  const viewer = await h.signIn('viewer');
  const signIn = async (id: SsoIdentity) => {
    const account = await h.services.sso.signIn(id);
    assert.ok(account.ok, JSON.stringify(account));
    return account.value;
  };
  const audited = async (action: string) =>
    (await h.services.db.selectFrom('audit_log').select(['actor', 'status', 'detail']).where('action', '=', action).orderBy('id').execute());
  return { ...h, admin, viewer, signIn, audited };
}

describe('Admin → Groups: the default role', () => {
  it('is viewer until an admin changes it; new groups then get it, groups already listed keep theirs', async () => {
    const h = await setup();
    const listed = await h.call('GET', '/admin/groups', { cookie: h.admin });
    assert.deepEqual(listed.body, { groups: [], default_role: 'viewer' });
    assert.equal((await h.signIn(identity('ann', ['devs']))).role, 'viewer', 'a new group defaults to viewer');

    const set = await h.call('PUT', '/admin/groups/default-role', { cookie: h.admin, body: { default_role: 'admin' } });
    assert.deepEqual([set.status, set.body], [200, { default_role: 'admin' }]);
    assert.equal((await h.call('GET', '/admin/groups', { cookie: h.admin })).body.default_role, 'admin');

    assert.equal((await h.signIn(identity('ann', ['devs']))).role, 'viewer', 'devs was listed before the change and keeps viewer');
    assert.equal((await h.signIn(identity('bea', ['platform']))).role, 'admin', 'a group first seen now gets the new default');
    assert.equal((await h.signIn(identity('cid', []))).role, 'viewer', 'no groups at all is viewer: the default is a group role');
    const groups = (await h.call('GET', '/admin/groups', { cookie: h.admin })).body.groups as Record<string, unknown>[];
    assert.deepEqual(groups.map((g) => [g.name, g.role]), [['devs', 'viewer'], ['platform', 'admin']]);

    // The admin's test of a configuration previews with the default too (nothing recorded).
    assert.equal(await h.services.sso.previewRole(identity('dan', ['brand-new'])), 'admin');
    assert.equal(((await h.call('GET', '/admin/groups', { cookie: h.admin })).body.groups as unknown[]).length, 2);

    const audit = await h.audited('PUT /admin/groups/default-role');
    assert.equal(audit.length, 1);
    const [row] = audit;
    assert.ok(row);
    assert.equal(row.actor, 'admin@192.0.2.10');
    assert.match(row.detail, /default_role.*admin/);
    assert.match(row.detail, /previous.*viewer/);
  });

  it('is an admin session\'s alone, and refuses a role that does not exist naming the field', async () => {
    const h = await setup();
    const key = await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'automation', scopes: ['workloads:read'] } });
    const byKey = await h.call('PUT', '/admin/groups/default-role', { key: String(key.body.key), body: { default_role: 'admin' } });
    assert.deepEqual([byKey.status, byKey.body.error], [403, 'api_key_forbidden']);
    assert.equal((await h.call('PUT', '/admin/groups/default-role', { cookie: h.viewer, body: { default_role: 'admin' } })).status, 403);
    assert.equal((await h.call('PUT', '/admin/groups/default-role', { body: { default_role: 'admin' } })).status, 401);
    for (const body of [{ default_role: 'owner' }, {}, { default_role: null }]) {
      const bad = await h.call('PUT', '/admin/groups/default-role', { cookie: h.admin, body });
      assert.deepEqual([bad.status, bad.body.error, bad.body.field], [400, 'invalid_input', 'default_role'], JSON.stringify(body));
    }
    assert.equal((await h.call('GET', '/admin/groups', { cookie: h.admin })).body.default_role, 'viewer', 'nothing refused was stored');
  });
});

describe('un-pinning a hand-set role', () => {
  it('puts an SSO account back on its groups at once and at every sign-in after; audited', async () => {
    const h = await setup();
    await h.signIn(identity('ann', ['ops']));
    assert.equal((await h.call('PUT', '/admin/groups/oidc/ops', { cookie: h.admin, body: { role: 'admin' } })).status, 200);
    const pinned = await h.call('PATCH', '/admin/users/ann@example.com', { cookie: h.admin, body: { role: 'viewer' } });
    assert.equal(pinned.status, 200, pinned.text);
    assert.deepEqual([(pinned.body.user as Record<string, unknown>).role_pinned, (pinned.body.user as Record<string, unknown>).sso_provider], [true, 'oidc']);
    assert.equal((await h.signIn(identity('ann', ['ops']))).role, 'viewer', 'pinned: the admin group no longer counts');

    const unpinned = await h.call('DELETE', '/admin/users/ann@example.com/role-pin', { cookie: h.admin });
    assert.equal(unpinned.status, 200, unpinned.text);
    assert.deepEqual(unpinned.body, { username: 'ann@example.com', role: 'admin', role_pinned: false, was_pinned: true }, 're-resolved now from the last sign-in\'s groups');
    const listed = ((await h.call('GET', '/admin/users', { cookie: h.admin })).body.users as Record<string, unknown>[]).find((u) => u.username === 'ann@example.com');
    assert.deepEqual([listed?.role, listed?.role_pinned, listed?.sso_provider], ['admin', false, 'oidc']);

    // The provider decides again: leaving the admin group demotes at the next sign-in.
    assert.equal((await h.signIn(identity('ann', ['devs']))).role, 'viewer');
    assert.equal((await h.signIn(identity('ann', ['ops']))).role, 'admin');

    // Un-pinning what is not pinned changes nothing and says so.
    const again = await h.call('DELETE', '/admin/users/ann@example.com/role-pin', { cookie: h.admin });
    assert.deepEqual(again.body, { username: 'ann@example.com', role: 'admin', role_pinned: false, was_pinned: false });

    const audit = await h.audited('DELETE /admin/users/:username/role-pin');
    assert.equal(audit.length, 2);
    const [row] = audit;
    assert.ok(row);
    assert.match(row.detail, /ann@example\.com/);
    assert.match(row.detail, /was_pinned.*true/);
  });

  it('refuses local accounts (400 on username), unknown users (404), viewers and API keys; never leaves no active admin', async () => {
    const h = await setup();
    const local = await h.call('DELETE', '/admin/users/viewer/role-pin', { cookie: h.admin });
    assert.deepEqual([local.status, local.body.field], [400, 'username']);
    assert.equal((await h.call('DELETE', '/admin/users/nobody/role-pin', { cookie: h.admin })).status, 404);
    assert.equal((await h.call('DELETE', '/admin/users/admin/role-pin', { cookie: h.viewer })).status, 403);
    const key = await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'automation', scopes: ['workloads:read'] } });
    assert.equal((await h.call('DELETE', '/admin/users/admin/role-pin', { key: String(key.body.key) })).status, 403);

    // An SSO admin pinned by hand while the only active admin: un-pinning would make them a
    // viewer (no admin group), so they stay admin, as sign-ins and group changes keep them.
    await h.signIn(identity('ann', []));
    assert.equal((await h.call('PATCH', '/admin/users/ann@example.com', { cookie: h.admin, body: { role: 'admin' } })).status, 200);
    assert.equal((await h.call('PATCH', '/admin/users/admin', { cookie: h.admin, body: { active: false } })).status, 200);
    // The local admin's sessions ended with it; ann, the only active admin, is not signed in
    // through a provider here, so the service is called as the route would.
    const done = await h.services.sso.unpinRole('ann@example.com');
    assert.ok(done.ok);
    assert.deepEqual([done.value.role, done.value.wasPinned], ['admin', true], 'the last active admin keeps the role');
  });
});
