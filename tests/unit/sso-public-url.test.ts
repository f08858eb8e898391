// sso.publicUrl reaching Admin → SSO: CAPSTAN_SSO_PUBLIC_URL read at start by the rule the
// wizard's public_url obeys (a bad value stops the start naming the variable), and GET /admin/sso
// answering it beside every provider's configuration, OIDC's secret and everything else masked
// as the provider's own routes mask it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { MASKED_SECRET } from '../../schema/sso.ts';
import { testApp } from '../support/app.ts';
import { discoveryIssuerForFile } from '../support/oidc-discovery.ts';

describe('CAPSTAN_SSO_PUBLIC_URL', () => {
  const accepted: [string | undefined, string | null][] = [
    [undefined, null],
    ['', null],
    ['   ', null],
    ['https://capstan.example.com', 'https://capstan.example.com'],
    ['https://capstan.example.com/', 'https://capstan.example.com'],
    [' http://127.0.0.1:8080 ', 'http://127.0.0.1:8080'],
    ['https://[::1]:8443', 'https://[::1]:8443'],
  ];
  for (const [value, expected] of accepted) {
    it(`reads ${JSON.stringify(value)} as ${JSON.stringify(expected)}`, () => {
      assert.equal(agentOptionsFromEnv(value === undefined ? {} : { CAPSTAN_SSO_PUBLIC_URL: value }).ssoPublicUrl, expected);
    });
  }

  const refused = ['capstan.example.com', 'ftp://capstan.example.com', 'https://capstan.example.com/dashboard', 'https://capstan.example.com?x=1', 'https://capstan.example.com#top', 'https://', 'https://a b.example.com', 'https://bad host:99999'];
  for (const value of refused) {
    it(`refuses ${JSON.stringify(value)}, naming the variable`, () => {
      assert.throws(() => agentOptionsFromEnv({ CAPSTAN_SSO_PUBLIC_URL: value }), /CAPSTAN_SSO_PUBLIC_URL must be http\(s\):\/\/host\[:port\]/);
    });
  }
});

const discovery = discoveryIssuerForFile();

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n';

describe('GET /admin/sso', () => {
  it('answers the installed sso.publicUrl (or null) and no provider before any is configured', async () => {
    for (const ssoPublicUrl of ['https://capstan.example.com', null]) {
      const h = await testApp({ licensing: enterprise, ssoPublicUrl });
      const res = await h.call('GET', '/api/agent/admin/sso', { cookie: await h.signIn('admin') });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.public_url, ssoPublicUrl);
      assert.equal(res.body.ldap, null);
      assert.equal(res.body.oidc, null);
      assert.equal(res.body.saml, null);
    }
  });

  it('shows OIDC with its secret masked and SAML with the SP addresses to give the IdP, enabled or off', async () => {
    const h = await testApp({ licensing: enterprise, ssoPublicUrl: 'https://capstan.example.com' });
    const admin = await h.signIn('admin');
    const oidc = await h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: admin, body: { issuer: discovery.issuer(), client_id: 'capstan', client_secret: 'the real secret', public_url: 'https://capstan.example.com' } });
    assert.equal(oidc.status, 200, oidc.text);
    const saml = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: 'https://capstan.example.com/', idp_sso_url: 'https://idp.example.com/sso', idp_cert_pem: CERT, groups_attribute: 'memberOf' } });
    assert.equal(saml.status, 200, saml.text);

    const res = await h.call('GET', '/api/agent/admin/sso', { cookie: admin });
    assert.equal(res.status, 200, res.text);
    assert.doesNotMatch(res.text, /the real secret/);
    const o = res.body.oidc as { enabled: boolean; config: { client_secret: string; issuer: string }; redirect_uri: string };
    assert.equal(o.enabled, true);
    assert.equal(o.config.client_secret, MASKED_SECRET);
    assert.equal(o.config.issuer, discovery.issuer());
    assert.equal(o.redirect_uri, 'https://capstan.example.com/api/agent/auth/oidc/callback');
    const s = res.body.saml as { enabled: boolean; config: { idp_sso_url: string; groups_attribute: string; email_attribute: string }; sp_entity_id: string; acs_url: string; metadata_url: string };
    assert.equal(s.enabled, true);
    assert.equal(s.config.idp_sso_url, 'https://idp.example.com/sso');
    assert.equal(s.config.groups_attribute, 'memberOf');
    assert.equal(s.config.email_attribute, 'email');
    assert.equal(s.acs_url, 'https://capstan.example.com/api/agent/auth/saml/acs');
    assert.equal(s.metadata_url, 'https://capstan.example.com/api/agent/auth/saml/metadata');
    assert.equal(s.sp_entity_id, s.metadata_url);
    // GET /admin/sso's SAML part is exactly what GET /admin/sso/saml answers.
    assert.deepEqual(s, (await h.call('GET', '/api/agent/admin/sso/saml', { cookie: admin })).body);

    assert.equal((await h.call('DELETE', '/api/agent/admin/sso/saml', { cookie: admin })).status, 200);
    assert.equal((await h.call('DELETE', '/api/agent/admin/sso/oidc', { cookie: admin })).status, 200);
    const off = await h.call('GET', '/api/agent/admin/sso', { cookie: admin });
    assert.equal((off.body.saml as { enabled: boolean }).enabled, false);
    assert.equal((off.body.oidc as { enabled: boolean }).enabled, false);
  });

  it('is an admin session\'s only', async () => {
    const h = await testApp({ licensing: enterprise });
    assert.equal((await h.call('GET', '/api/agent/admin/sso', { cookie: await h.signIn('viewer') })).status, 403);
  });
});
