// The admin-email list (spec §5 "SSO" 3) matches only an email the provider vouches for (review
// defect 11): anyone can put any address on an account at a provider that does not check it.
// OIDC: the ID token's `email_verified` is true. LDAP and SAML assert nothing of the kind, so
// their emails match only once the admin sets `trust_email` on that provider (off by default).
// Sign-ins go straight to the SSO service, or through LDAP sign-in with a stand-in directory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LdapDirectory, SsoIdentity } from '../../handlers/sso/service.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp } from '../support/app.ts';

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const LISTED = 'boss@example.com';

async function setup() {
  const h = await testApp({ licensing: enterprise });
  const admin = await h.signIn('admin');
  assert.equal((await h.call('PUT', '/api/agent/admin/sso/admin-emails', { cookie: admin, body: { admin_emails: [LISTED] } })).status, 200);
  const signIn = async (id: SsoIdentity) => {
    const account = await h.services.sso.signIn(id);
    assert.ok(account.ok, JSON.stringify(account));
    return account.value;
  };
  return { ...h, admin, signIn };
}

const oidc = (subject: string, emailVerified: boolean, groups: string[] = []): SsoIdentity => ({ provider: 'oidc', subject, email: LISTED.toUpperCase(), emailVerified, groups });

describe('the admin-email list and unverified emails', () => {
  it('an OIDC sign-in with a listed email the provider did not verify stays viewer; a verified one is admin', async () => {
    const h = await setup();
    assert.equal(await h.services.sso.previewRole(oidc('mallory', false)), 'viewer');
    const mallory = await h.signIn(oidc('mallory', false, ['devs']));
    assert.equal(mallory.role, 'viewer');
    // Re-resolved from what the last sign-in recorded: still not a verified email.
    const unpinned = await h.call('DELETE', `/api/agent/admin/users/${encodeURIComponent(mallory.username)}/role-pin`, { cookie: h.admin });
    assert.equal(unpinned.status, 200, unpinned.text);
    assert.equal(unpinned.body.role, 'viewer');
    assert.equal((await h.call('PUT', '/api/agent/admin/groups/oidc/devs', { cookie: h.admin, body: { role: 'viewer' } })).status, 200);
    assert.equal((await h.services.users.list()).find((u) => u.username === mallory.username)?.role, 'viewer');

    // The same person once the provider has verified the address.
    assert.equal((await h.signIn(oidc('mallory', true))).role, 'admin');
    // ... and back to viewer at the next sign-in that no longer vouches for it.
    assert.equal((await h.signIn(oidc('mallory', false))).role, 'viewer');
  });

  it('LDAP: the directory\'s email matches only with trust_email set (off by default), at sign-in and in the test', async () => {
    const h = await setup();
    const authenticate: LdapDirectory['authenticate'] = (_config, username) => Promise.resolve({ ok: true, value: { dn: `uid=${username},dc=example,dc=com`, subject: `uuid-${username}`, email: LISTED, groups: [] } });
    h.services.ldap.authenticate = authenticate;
    const config = { url: 'ldaps://ldap.example.com', bind_dn_template: 'uid={username},dc=example,dc=com' };

    assert.equal((await h.call('PUT', '/api/agent/admin/sso/ldap', { cookie: h.admin, body: config })).status, 200);
    const tested = await h.call('POST', '/api/agent/admin/sso/ldap/test', { cookie: h.admin, body: { config, username: 'eve', password: 'pw' } });
    assert.deepEqual([tested.status, tested.body.role], [200, 'viewer'], tested.text);
    const eve = await h.call('POST', '/api/agent/auth/ldap/login', { body: { username: 'eve', password: 'pw' } });
    assert.deepEqual([eve.status, (eve.body.user as { role: string }).role], [200, 'viewer'], eve.text);

    const trusted = { ...config, trust_email: true };
    const saved = await h.call('PUT', '/api/agent/admin/sso/ldap', { cookie: h.admin, body: trusted });
    assert.equal(((saved.body.ldap as { config: { trust_email: boolean } }).config).trust_email, true);
    const tested2 = await h.call('POST', '/api/agent/admin/sso/ldap/test', { cookie: h.admin, body: { config: trusted, username: 'eve', password: 'pw' } });
    assert.equal(tested2.body.role, 'admin');
    const again = await h.call('POST', '/api/agent/auth/ldap/login', { body: { username: 'eve', password: 'pw' } });
    assert.equal((again.body.user as { role: string }).role, 'admin');
  });

  it('SAML: trust_email is off by default, and a PUT that leaves it out keeps the stored choice', async () => {
    const h = await setup();
    const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n';
    const base = { public_url: 'https://capstan.example.com', idp_sso_url: 'https://idp.example.com/sso', idp_cert_pem: CERT };
    const put = async (body: Record<string, unknown>) => {
      const res = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: h.admin, body });
      assert.equal(res.status, 200, res.text);
      return (res.body.config as { trust_email: boolean }).trust_email;
    };
    assert.equal(await put(base), false);
    assert.equal(await put({ ...base, trust_email: true }), true);
    assert.equal(await put(base), true, 'left out: kept');
    assert.equal(await put({ ...base, trust_email: false }), false);
  });
});
