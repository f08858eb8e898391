// LDAP sign-in against a real OpenLDAP server (tests/support/slapd.ts): ldaps:// and StartTLS
// with a certificate made for this run, plaintext and empty passwords refused before any bind
// (counted in slapd's own log), injection-looking usernames, groups to roles, the admin-email
// list, pinning, membership re-read at each sign-in and applied to live sessions, deactivation
// per request, TOTP for LDAP users, sso.local_login and the Enterprise gate with its lapse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import type { LicensedFeature } from '../../schema/access.ts';
import { totpCodeAt, totpStep } from '../../runtime/auth/totp.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { GROUPS_DN, isRootBind, PEOPLE_DN, startSlapd, type Slapd } from '../support/slapd.ts';

let slapd: Slapd;

before(async () => {
  slapd = await startSlapd(
    [
      { uid: 'alice', password: 'alice password', mail: 'Alice@Example.com' },
      { uid: 'bob', password: 'bob password', mail: 'bob@example.com' },
      { uid: 'carol', password: 'carol password', mail: 'carol@example.com' },
      { uid: 'dave', password: 'dave password' },
      { uid: 'admin', password: 'directory admin password', mail: 'admin@example.com' },
    ],
    [
      { cn: 'admins', members: ['alice'] },
      { cn: 'devs', members: ['bob', 'carol'] },
    ],
  );
});
after(async () => {
  await slapd.stop();
});

/** A license that a test can let lapse: Enterprise until `lapse()`. */
function license() {
  let tier = 'enterprise';
  return { get tier() { return tier; }, has: (f: LicensedFeature) => tier === 'enterprise' || f === 'mcp', lapse: () => { tier = 'free'; } };
}

async function setup() {
  const lic = license();
  const h = await testApp({ licensing: lic, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const config = (over: Record<string, unknown> = {}) => ({ url: slapd.ldapsUrl, bind_dn_template: `uid={username},${PEOPLE_DN}`, group_base_dn: GROUPS_DN, ca_pem: slapd.caPem, ...over });
  const configure = (over: Record<string, unknown> = {}) => h.call('PUT', '/api/agent/admin/sso/ldap', { cookie: admin, body: config(over) });
  const ldapLogin = async (username: string, password: string, code?: string) => {
    const res = await h.call('POST', '/api/agent/auth/ldap/login', { body: { username, password, ...(code ? { code } : {}) } });
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { ...res, setCookie, cookie: /capstan_session=([^;]+)/.exec(setCookie)?.[1] ?? '' };
  };
  const me = async (cookie: string) => h.call('GET', '/api/agent/me', { cookie });
  return { ...h, lic, admin, config, configure, ldapLogin, me };
}

/** Sign-in binds slapd logged (the root's own binds left out). */
const userBinds = () => slapd.binds().filter((dn) => !isRootBind(dn));

/** Waits (bounded) until slapd has logged at least `n` sign-in binds: its log is written asynchronously. */
async function bindsReach(n: number): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (userBinds().length < n) {
    if (Date.now() > deadline) throw new Error(`slapd logged ${userBinds().length} binds, expected ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return userBinds();
}

describe('LDAP sign-in against slapd', () => {
  it('configuring needs Enterprise and an admin session; stored sealed; a user signs in over ldaps, provisioned, Lax cookie, audited as email@ip', async () => {
    const h = await setup();
    const key = await h.call('POST', '/api/agent/me/api-keys', { cookie: h.admin, body: { name: 'automation', scopes: ['workloads:read'] } });
    assert.equal(key.status, 200);
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { key: String(key.body.key) })).status, 403);
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { key: String(key.body.key) })).body.error, 'api_key_forbidden');
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { cookie: await h.signIn('viewer') })).status, 403);

    assert.equal((await h.ldapLogin('alice', 'alice password')).status, 404, 'LDAP sign-in is gone until configured');
    const saved = await h.configure();
    assert.equal(saved.status, 200, saved.text);
    const stored = await h.services.db.selectFrom('sso_providers').selectAll().executeTakeFirstOrThrow();
    assert.equal(stored.config_sealed.includes('uid={username}'), false, 'the configuration is encrypted at rest');
    const view = await h.call('GET', '/api/agent/admin/sso', { cookie: h.admin });
    assert.deepEqual((view.body.ldap as Record<string, unknown>).enabled, true);
    assert.equal(((view.body.ldap as Record<string, unknown>).config as Record<string, unknown>).bind_dn_template, `uid={username},${PEOPLE_DN}`);
    assert.deepEqual((await h.call('GET', '/api/agent/auth/methods')).body, { local_login: 'all', sso: [{ provider: 'ldap', path: '/auth/ldap/login', totp: false }] });

    const alice = await h.ldapLogin('alice', 'alice password');
    assert.equal(alice.status, 200, alice.text);
    assert.deepEqual(alice.body, { user: { username: 'alice@example.com', role: 'viewer', auth_method: 'ldap' } });
    assert.match(alice.setCookie, /SameSite=Lax/i);
    assert.match((await h.login('admin', 'correct horse battery staple')).headers.get('set-cookie') ?? '', /SameSite=Strict/i);
    const who = await h.me(alice.cookie);
    assert.deepEqual(who.body, { username: 'alice@example.com', role: 'viewer', auth_method: 'ldap' });
    assert.equal((await h.me(h.admin)).body.auth_method, 'password');
    const identity = await h.services.db.selectFrom('sso_identities').selectAll().executeTakeFirstOrThrow();
    assert.equal(identity.provider, 'ldap');
    assert.match(identity.subject, /^[0-9a-f-]{36}$/, 'keyed on the entryUUID');
    const audited = await h.services.db.selectFrom('audit_log').select(['actor', 'action']).where('actor', '=', 'alice@example.com@192.0.2.10').execute();
    assert.ok(audited.length > 0, 'the sign-in is audited as email@ip');

    // Signing in again is the same account.
    assert.equal((await h.ldapLogin('alice', 'alice password')).status, 200);
    assert.equal((await h.services.db.selectFrom('sso_identities').selectAll().execute()).length, 1);
  });

  it('StartTLS on ldap:// signs in; plaintext ldap:// is refused at configuration and no bind is made', async () => {
    const h = await setup();
    const plain = await h.configure({ url: slapd.ldapUrl });
    assert.equal(plain.status, 400);
    assert.equal(plain.body.field, 'url');
    const tested = await h.call('POST', '/api/agent/admin/sso/ldap/test', { cookie: h.admin, body: { config: h.config({ url: slapd.ldapUrl }), username: 'bob', password: 'bob password' } });
    assert.equal(tested.status, 400);
    assert.equal((await h.configure({ url: slapd.ldapUrl, starttls: true })).status, 200);
    const before = userBinds().length;
    const bob = await h.ldapLogin('bob', 'bob password');
    assert.equal(bob.status, 200, bob.text);
    assert.equal(bob.body.user && (bob.body.user as Record<string, unknown>).username, 'bob@example.com');
    // Only the StartTLS sign-in bound: the refused plaintext attempts never reached the directory.
    const binds = await bindsReach(before + 1);
    assert.deepEqual(binds.slice(before), [`uid=bob,${PEOPLE_DN}`]);
  });

  it('a certificate the configured CA does not vouch for is refused, unless the development toggle skips verification', async () => {
    const h = await setup();
    assert.equal((await h.configure({ ca_pem: null })).status, 200);
    const refused = await h.ldapLogin('bob', 'bob password');
    assert.equal(refused.status, 503, refused.text);
    assert.equal((await h.configure({ ca_pem: null, insecure_skip_verify: true })).status, 200);
    assert.equal((await h.ldapLogin('bob', 'bob password')).status, 200);
  });

  it('wrong passwords are refused; empty passwords are refused before any bind; injection-looking usernames stay inside their RDN', async () => {
    const h = await setup();
    await h.configure();
    const before = userBinds().length;
    const empty = await h.ldapLogin('alice', '');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.field, 'password');
    const injected = ['*', 'alice,ou=people', 'x)(uid=*', 'alice\\', '#alice', 'alice+cn=alice'];
    for (const username of injected) {
      const res = await h.ldapLogin(username, 'alice password');
      assert.equal(res.status, 401, `${username}: ${res.text}`);
      assert.equal(res.cookie, '');
    }
    const wrong = await h.ldapLogin('alice', 'not alice password');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'unauthenticated');
    // One bind per injected name and one for the wrong password: none for the empty password,
    // and none of them named alice's own entry.
    const binds = (await bindsReach(before + injected.length + 1)).slice(before);
    assert.equal(binds.length, injected.length + 1);
    assert.equal(binds.filter((dn) => dn === `uid=alice,${PEOPLE_DN}`).length, 1, 'only the wrong-password attempt bound as alice');
    assert.equal((await h.services.db.selectFrom('sso_identities').selectAll().execute()).length, 0);
  });

  it('the lockout counts spellings the directory treats as one name (case, spaces) as one account', async () => {
    const h = await setup();
    await h.configure();
    for (const spelling of ['alice', 'ALICE', ' alice', 'Alice ', 'aLiCe']) assert.equal((await h.ldapLogin(spelling, 'wrong password')).status, 401);
    assert.equal((await h.ldapLogin('alice  ', 'wrong password')).status, 429, 'the sixth wrong attempt locks the account from this address');
    const locked = await h.ldapLogin('alice', 'alice password');
    assert.equal(locked.status, 429, 'the right password is refused while locked');
    assert.equal((await h.ldapLogin('bob', 'bob password')).status, 200, 'another account is unaffected');
  });

  it('groups appear as viewer; an admin group, or an email on the admin list, makes admin; a group role change reaches live sessions', async () => {
    const h = await setup();
    await h.configure();
    const alice = await h.ldapLogin('alice', 'alice password');
    const bob = await h.ldapLogin('bob', 'bob password');
    const groups = await h.call('GET', '/api/agent/admin/groups', { cookie: h.admin });
    assert.deepEqual(
      (groups.body.groups as Record<string, unknown>[]).map((g) => [g.provider, g.name, g.role]),
      [['ldap', 'admins', 'viewer'], ['ldap', 'devs', 'viewer']],
    );
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { cookie: alice.cookie })).status, 403);
    const set = await h.call('PUT', '/api/agent/admin/groups/ldap/admins', { cookie: h.admin, body: { role: 'admin' } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.users_updated, 1);
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { cookie: alice.cookie })).status, 200, 'the live session acts at the new role');
    assert.equal((await h.me(bob.cookie)).body.role, 'viewer');
    assert.equal((await h.call('PUT', '/api/agent/admin/groups/ldap/nobody', { cookie: h.admin, body: { role: 'admin' } })).status, 404);

    const emails = await h.call('PUT', '/api/agent/admin/sso/admin-emails', { cookie: h.admin, body: { admin_emails: ['BOB@Example.com'] } });
    assert.equal(emails.status, 200, emails.text);
    assert.deepEqual(emails.body.admin_emails, ['bob@example.com']);
    // The directory's mail attribute matches the admin emails only once the admin trusts it (trust_email, off by default).
    assert.equal((await h.ldapLogin('bob', 'bob password')).body.user && ((await h.me(bob.cookie)).body.role), 'viewer');
    assert.equal((await h.configure({ trust_email: true })).status, 200);
    assert.equal((await h.ldapLogin('bob', 'bob password')).body.user && ((await h.me(bob.cookie)).body.role), 'admin');
  });

  it('a role set by hand is pinned across sign-ins; membership changes in the directory apply at the next sign-in, to live sessions too', async () => {
    const h = await setup();
    await h.configure();
    await h.ldapLogin('alice', 'alice password');
    await h.call('PUT', '/api/agent/admin/groups/ldap/admins', { cookie: h.admin, body: { role: 'admin' } });
    const pinned = await h.call('PATCH', '/api/agent/admin/users/alice@example.com', { cookie: h.admin, body: { role: 'viewer' } });
    assert.equal(pinned.status, 200, pinned.text);
    const again = await h.ldapLogin('alice', 'alice password');
    assert.equal((again.body.user as Record<string, unknown>).role, 'viewer', 'the pinned role survives a sign-in from an admin group');

    const carol = await h.ldapLogin('carol', 'carol password');
    assert.equal((carol.body.user as Record<string, unknown>).role, 'viewer');
    await slapd.setMembers('admins', ['alice', 'carol']);
    try {
      const promoted = await h.ldapLogin('carol', 'carol password');
      assert.equal((promoted.body.user as Record<string, unknown>).role, 'admin');
      assert.equal((await h.me(carol.cookie)).body.role, 'admin', 'the earlier session acts at the re-read role');
    } finally {
      await slapd.setMembers('admins', ['alice']);
    }
    const demoted = await h.ldapLogin('carol', 'carol password');
    assert.equal((demoted.body.user as Record<string, unknown>).role, 'viewer');
    assert.equal((await h.me(carol.cookie)).body.role, 'viewer');
  });

  it('neither a sign-in nor a group change demotes the last active admin', async () => {
    const h = await setup();
    await h.configure();
    await h.ldapLogin('alice', 'alice password');
    await h.call('PUT', '/api/agent/admin/groups/ldap/admins', { cookie: h.admin, body: { role: 'admin' } });
    const alice = await h.ldapLogin('alice', 'alice password');
    assert.equal((alice.body.user as Record<string, unknown>).role, 'admin');
    // Alice, now the only other admin, deactivates the local admin: she is the last one.
    assert.equal((await h.call('PATCH', '/api/agent/admin/users/admin', { cookie: alice.cookie, body: { active: false } })).status, 200);
    const kept = await h.call('PUT', '/api/agent/admin/groups/ldap/admins', { cookie: alice.cookie, body: { role: 'viewer' } });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.users_updated, 0);
    await slapd.setMembers('admins', []);
    try {
      const again = await h.ldapLogin('alice', 'alice password');
      assert.equal((again.body.user as Record<string, unknown>).role, 'admin', 'the last active admin stays admin');
    } finally {
      await slapd.setMembers('admins', ['alice']);
    }
  });

  it('a deactivated LDAP user is rejected on the next request and cannot sign in again through the directory', async () => {
    const h = await setup();
    await h.configure();
    const carol = await h.ldapLogin('carol', 'carol password');
    assert.equal((await h.me(carol.cookie)).status, 200);
    const off = await h.call('PATCH', '/api/agent/admin/users/carol@example.com', { cookie: h.admin, body: { active: false } });
    assert.equal(off.status, 200, off.text);
    assert.equal((await h.me(carol.cookie)).status, 401);
    const again = await h.ldapLogin('carol', 'carol password');
    assert.equal(again.status, 403);
    assert.equal(again.cookie, '');
  });

  it('TOTP for LDAP users: off by default; when enabled an enrolled user needs a code, used once', async () => {
    const h = await setup();
    await h.configure();
    const early = await h.ldapLogin('dave', 'dave password');
    const refused = await h.call('POST', '/api/agent/me/second-factor/enrol', { cookie: early.cookie });
    assert.equal(refused.status, 400, 'not offered while TOTP for LDAP is off');
    assert.equal(refused.body.field, 'totp');
    await h.configure({ totp: true });
    const dave = await h.ldapLogin('dave', 'dave password');
    assert.equal((dave.body.user as Record<string, unknown>).username, `ldap:${(await h.services.db.selectFrom('sso_identities').select('subject').executeTakeFirstOrThrow()).subject}`, 'no email: named by provider and subject');
    const enrol = await h.call('POST', '/api/agent/me/second-factor/enrol', { cookie: dave.cookie });
    const secret = decodeBase32IgnorePadding(String(enrol.body.secret));
    const codeAt = (offsetSecs = 0) => totpCodeAt(secret, totpStep(new Date(h.clock.now().getTime() + offsetSecs * 1000)));
    assert.equal((await h.call('POST', '/api/agent/me/second-factor/confirm', { cookie: dave.cookie, body: { code: codeAt() } })).status, 200);
    h.clock.advance(30_000);

    const noCode = await h.ldapLogin('dave', 'dave password');
    assert.equal(noCode.status, 401);
    assert.equal(noCode.body.error, 'second_factor_required');
    const code = codeAt();
    assert.equal((await h.ldapLogin('dave', 'dave password', code)).status, 200);
    assert.equal((await h.ldapLogin('dave', 'dave password', code)).status, 401, 'a code is accepted once');

    await h.configure({ totp: false });
    assert.equal((await h.ldapLogin('dave', 'dave password')).status, 200, 'with TOTP for LDAP off, no code is asked for');
  });

  it('sso.local_login: off needs an enabled SSO method and makes the password endpoint 404; admin_only lets only admins in; disabling LDAP brings admins back', async () => {
    const h = await setup();
    const refused = await h.call('PUT', '/api/agent/admin/settings/security', { cookie: h.admin, body: { local_login: 'off' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.field, 'local_login');

    await h.configure();
    assert.equal((await h.call('PUT', '/api/agent/admin/settings/security', { cookie: h.admin, body: { local_login: 'admin_only' } })).status, 200);
    assert.equal((await h.login('viewer', 'viewer password 1')).status, 403);
    assert.equal((await h.login('admin', 'correct horse battery staple')).status, 200);

    assert.equal((await h.call('PUT', '/api/agent/admin/settings/security', { cookie: h.admin, body: { local_login: 'off' } })).status, 200);
    assert.equal((await h.login('admin', 'correct horse battery staple')).status, 404, 'the password endpoint is gone');
    assert.equal((await h.call('GET', '/api/agent/auth/methods')).body.local_login, 'off');
    assert.equal((await h.ldapLogin('bob', 'bob password')).status, 200, 'LDAP sign-in is unaffected');

    // The license lapses: configuring is 402, signing in and disabling still work.
    h.lic.lapse();
    assert.equal((await h.configure()).status, 402);
    assert.equal((await h.ldapLogin('bob', 'bob password')).status, 200, 'sign-in keeps working after the license lapses');
    const disabled = await h.call('DELETE', '/api/agent/admin/sso/ldap', { cookie: h.admin });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal((await h.ldapLogin('bob', 'bob password')).status, 404);
    assert.deepEqual((await h.call('GET', '/api/agent/auth/methods')).body, { local_login: 'admin_only', sso: [] });
    assert.equal((await h.login('admin', 'correct horse battery staple')).status, 200, 'admins can sign in with a password again');
  });
});
