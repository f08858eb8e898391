// Admin → Groups' default role and un-pinning a hand-set role, against a real OpenLDAP server
// (tests/support/slapd.ts): groups the directory lists for the first time get the default role,
// groups already listed keep theirs, and an un-pinned account follows its directory groups
// again, at once and at the next sign-in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { GROUPS_DN, PEOPLE_DN, startSlapd, type Slapd } from '../support/slapd.ts';

let slapd: Slapd;

before(async () => {
  slapd = await startSlapd(
    [
      { uid: 'erin', password: 'erin password', mail: 'erin@example.com' },
      { uid: 'fay', password: 'fay password', mail: 'fay@example.com' },
      { uid: 'gus', password: 'gus password', mail: 'gus@example.com' },
    ],
    [
      { cn: 'sre', members: ['erin'] },
      { cn: 'qa', members: ['fay'] },
    ],
  );
});
after(async () => {
  await slapd.stop();
});

async function setup() {
  const licensing = { tier: 'enterprise' as const, has: (_f: LicensedFeature) => true };
  const h = await testApp({ licensing, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const configured = await h.call('PUT', '/api/agent/admin/sso/ldap', {
    cookie: admin,
    body: { url: slapd.ldapsUrl, bind_dn_template: `uid={username},${PEOPLE_DN}`, group_base_dn: GROUPS_DN, ca_pem: slapd.caPem },
  });
  assert.equal(configured.status, 200, configured.text);
  /** Signs in through the directory; answers the role sign-in gave and the session cookie. */
  const ldapLogin = async (username: string) => {
    const res = await h.call('POST', '/api/agent/auth/ldap/login', { body: { username, password: `${username} password` } });
    assert.equal(res.status, 200, res.text);
    return { role: (res.body.user as Record<string, unknown>).role, cookie: /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '' };
  };
  const groups = async () => {
    const listed = await h.call('GET', '/api/agent/admin/groups', { cookie: admin });
    return { default_role: listed.body.default_role, groups: (listed.body.groups as Record<string, unknown>[]).map((g) => [g.name, g.role]) };
  };
  return { ...h, admin, ldapLogin, groups };
}

describe('Admin → Groups default role and un-pinning, against slapd', () => {
  it('a directory group seen for the first time gets the default role; groups already listed keep theirs', async () => {
    const h = await setup();
    assert.equal((await h.ldapLogin('erin')).role, 'viewer', 'the default default is viewer');
    assert.deepEqual(await h.groups(), { default_role: 'viewer', groups: [['sre', 'viewer']] });

    const set = await h.call('PUT', '/api/agent/admin/groups/default-role', { cookie: h.admin, body: { default_role: 'admin' } });
    assert.equal(set.status, 200, set.text);
    assert.equal((await h.ldapLogin('fay')).role, 'admin', 'qa is first seen now, with the default admin');
    assert.equal((await h.ldapLogin('erin')).role, 'viewer', 'sre was listed before and keeps viewer');
    assert.equal((await h.ldapLogin('gus')).role, 'viewer', 'no directory groups: viewer');
    assert.deepEqual(await h.groups(), { default_role: 'admin', groups: [['qa', 'admin'], ['sre', 'viewer']] });
  });

  it('an un-pinned account follows its directory groups again: at once, and at the next sign-in', async () => {
    const h = await setup();
    await h.ldapLogin('fay');
    assert.equal((await h.call('PUT', '/api/agent/admin/groups/ldap/qa', { cookie: h.admin, body: { role: 'admin' } })).status, 200);
    const erin = await h.ldapLogin('erin');
    assert.equal(erin.role, 'viewer');

    // Pinned admin by hand: leaving every directory group changes nothing at sign-in.
    assert.equal((await h.call('PATCH', '/api/agent/admin/users/erin@example.com', { cookie: h.admin, body: { role: 'admin' } })).status, 200);
    await slapd.setMembers('sre', []);
    try {
      assert.equal((await h.ldapLogin('erin')).role, 'admin', 'pinned');

      // Un-pinned: re-resolved now from the groups the last sign-in read (none), so viewer,
      // and the session she already holds acts at it on its next request.
      const unpinned = await h.call('DELETE', '/api/agent/admin/users/erin@example.com/role-pin', { cookie: h.admin });
      assert.equal(unpinned.status, 200, unpinned.text);
      assert.deepEqual(unpinned.body, { username: 'erin@example.com', role: 'viewer', role_pinned: false, was_pinned: true });
      assert.equal((await h.call('GET', '/api/agent/me', { cookie: erin.cookie })).body.role, 'viewer');

      // And the next sign-in reads the directory again: added to qa (admin), she is admin.
      await slapd.setMembers('qa', ['fay', 'erin']);
      assert.equal((await h.ldapLogin('erin')).role, 'admin', 'the directory decides again');
      const listed = ((await h.call('GET', '/api/agent/admin/users', { cookie: h.admin })).body.users as Record<string, unknown>[]).find((u) => u.username === 'erin@example.com');
      assert.deepEqual([listed?.role, listed?.role_pinned, listed?.sso_provider], ['admin', false, 'ldap']);
    } finally {
      await slapd.setMembers('sre', ['erin']);
      await slapd.setMembers('qa', ['fay']);
    }
  });
});
