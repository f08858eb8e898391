// SAML single logout against a real IdP that supports it: Debian's SimpleSAMLphp
// (tests/support/simplesamlphp.ts), signing with RSA-SHA256 and demanding signed logout
// messages. The test plays the browser: a cookie jar at the IdP (its session is what single
// logout ends), the IdP's auto-submitted forms posted to the agent. Proven: sign-in through
// SimpleSAMLphp; SP-initiated logout (signed LogoutRequest, the IdP's signed LogoutResponse)
// ends both the Capstan and the IdP session; IdP-initiated logout ends the Capstan session and
// is answered with a signed LogoutResponse the IdP accepts; an unsigned, a badly signed, a
// replayed LogoutRequest and an unsolicited or unsigned LogoutResponse are refused and the
// session lives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { startSimpleSamlPhp, type Browser, type SimpleSamlPhp, type SspForm } from '../support/simplesamlphp.ts';

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
  await idp.stop();
});

const REDIRECT_SLO = /\s*<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"[^>]*\/>/;

/**
 * `keypair`: the SP keypair Capstan signs its logout messages with (made by Capstan).
 * `binding`: the SingleLogoutService binding the IdP is given (Capstan publishes both, and
 * SimpleSAMLphp prefers HTTP-Redirect; for HTTP-POST the other is left out of what it is given).
 */
async function setup({ keypair = true, binding = 'post' }: { keypair?: boolean; binding?: 'post' | 'redirect' } = {}) {
  const licensing = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
  const h = await testApp({ licensing, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const body = { public_url: PUBLIC_URL, idp_metadata_xml: await idp.metadata(), email_attribute: 'mail', groups_attribute: 'groups', ...(keypair ? { generate_sp_key: true, require_encrypted_assertions: false } : {}) };
  const saved = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body });
  assert.equal(saved.status, 200, saved.text);
  const metadata = await h.app.request('/api/agent/auth/saml/metadata', {}, from);
  assert.equal(metadata.status, 200);
  const xml = await metadata.text();
  assert.match(xml, REDIRECT_SLO);
  idp.putServiceProvider(binding === 'post' ? xml.replace(REDIRECT_SLO, '') : xml);
  const start = async () => {
    const res = await h.app.request('/api/agent/auth/saml/login', {}, from);
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
  /** Follows an IdP redirect to the agent (the redirect binding's GET), the query string as the IdP wrote it. */
  const get = async (url: string) => {
    const u = new URL(url);
    const res = await h.app.request(`${u.pathname}${u.search}`, {}, from);
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  };
  const me = (cookie: string) => h.call('GET', '/api/agent/me', { cookie });
  /** GET /auth/saml/logout with the session cookie. */
  const logout = async (cookie: string) => {
    const res = await h.app.request('/api/agent/auth/saml/logout', { headers: { cookie: `capstan_session=${cookie}` } }, from);
    return { status: res.status, location: res.headers.get('location') ?? '', setCookie: res.headers.get('set-cookie') ?? '', text: await res.text() };
  };
  /** Signs `user` in through the IdP in `browser`; answers the Capstan session cookie. */
  const signIn = async (browser: Browser, user: string) => {
    const signedIn = await post(await idp.signIn(browser, await start(), user, `${user} password`));
    assert.equal(signedIn.status, 302, `${signedIn.text}\n${idp.log()}`);
    return signedIn.cookie;
  };
  return { ...h, start, post, get, me, logout, signIn };
}

/**
 * LogoutResponses SimpleSAMLphp has taken: it logs "Received SAML 2.0 LogoutResponse" only after
 * validateMessage, which with validate.logout on refuses an unsigned or badly signed one.
 * (Its own session ends when the logout starts, so a new password prompt proves nothing here.)
 */
const answersAccepted = () => (idp.log(Number.MAX_SAFE_INTEGER).match(/Received SAML 2\.0 LogoutResponse/g) ?? []).length;
const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
const encode = (xml: string) => Buffer.from(xml).toString('base64');
/** Starts IdP-initiated logout in `browser` and answers the LogoutRequest form the IdP posts to the agent. */
async function idpInitiated(browser: Browser): Promise<SspForm> {
  const step = await browser.go(`${idp.sloUrl}?ReturnTo=${encodeURIComponent(`${idp.url}/logged-out`)}`);
  assert.equal(step.kind, 'form', `${JSON.stringify(step).slice(0, 600)}\n${idp.log()}`);
  assert.notEqual(step.form.fields.SAMLRequest, undefined);
  return step.form;
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
    // The IdP's name for the session is kept for single logout.
    const rows = await h.services.db.selectFrom('saml_sessions').selectAll().execute();
    const [row] = rows;
    assert.equal(rows.length, 1);
    assert.ok(row);
    assert.equal(row.name_id, 'carol@example.com');
    assert.ok(row.session_index, 'SimpleSAMLphp gives a SessionIndex');
    const metadata = await (await h.app.request('/api/agent/auth/saml/metadata', {}, from)).text();
    assert.match(metadata, /SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http:\/\/capstan.test:8080\/api\/agent\/auth\/saml\/slo"/);
  });

  it('SP-initiated: signing out ends the Capstan session and, by a signed LogoutRequest, the IdP session', async () => {
    const h = await setup();
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'carol');
    const out = await h.logout(cookie);
    assert.equal(out.status, 302, out.text);
    assert.match(out.setCookie, /capstan_session=;/, 'the cookie is cleared');
    assert.equal((await h.me(cookie)).status, 401, 'the Capstan session ended at once');
    const toIdp = new URL(out.location);
    assert.equal(`${toIdp.origin}${toIdp.pathname}`, idp.sloUrl);
    assert.equal(toIdp.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'signed, RSA-SHA256');
    assert.ok(toIdp.searchParams.get('Signature'));
    // The IdP accepts it (validate.logout: it refuses unsigned ones) and answers with its signed LogoutResponse.
    const step = await browser.go(out.location);
    assert.equal(step.kind, 'form', `${JSON.stringify(step).slice(0, 600)}\n${idp.log()}`);
    assert.equal(step.form.action, `${PUBLIC_URL}/api/agent/auth/saml/slo`);
    const response = step.form.fields.SAMLResponse ?? '';
    assert.match(decode(response), /LogoutResponse[\s\S]*status:Success/);
    // Unsigned (its Signature stripped), it is refused; signed, it lands on the return path.
    const stripped = await h.post({ ...step.form, fields: { SAMLResponse: encode(decode(response).replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')) } });
    assert.equal(stripped.status, 401, stripped.text);
    assert.match(stripped.text, /not signed/);
    const landed = await h.post(step.form);
    assert.equal(landed.status, 302, landed.text);
    assert.equal(landed.location, '/');
    // Answered once: the same response again answers no request of ours.
    const again = await h.post(step.form);
    assert.equal(again.status, 401, again.text);
    // The IdP session is gone: signing in again asks for the password.
    assert.equal(await idp.asksForPassword(browser, await h.start()), true);
  });

  it('IdP-initiated: a signed LogoutRequest ends the Capstan session and is answered with a signed LogoutResponse the IdP accepts', async () => {
    const h = await setup();
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'dave');
    const other = await h.signIn(idp.newBrowser(), 'carol');
    const form = await idpInitiated(browser);
    assert.equal(form.action, `${PUBLIC_URL}/api/agent/auth/saml/slo`);
    assert.match(decode(form.fields.SAMLRequest ?? ''), /<ds:Signature/);
    assert.equal((await h.me(cookie)).status, 200);
    const accepted = answersAccepted();
    const answered = await h.post(form);
    assert.equal(answered.status, 302, answered.text);
    assert.equal((await h.me(cookie)).status, 401, "dave's Capstan session ended");
    assert.equal((await h.me(other)).status, 200, "carol's session is not touched");
    const back = new URL(answered.location ?? '');
    assert.equal(`${back.origin}${back.pathname}`, idp.sloUrl);
    assert.equal(back.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    // The IdP accepts our signed LogoutResponse and finishes at ReturnTo.
    const done = await browser.go(answered.location ?? '');
    assert.equal(done.kind, 'page', JSON.stringify(done).slice(0, 600));
    assert.equal(answersAccepted(), accepted + 1, `SimpleSAMLphp validated our signed LogoutResponse (validate.logout): ${idp.log(3000)}`);
    // SimpleSAMLphp's error levels and PHP's exceptions, as words: the log also holds base64
    // SAMLRequests and signatures, where any letters may spell "error" (one run's did: "6ErroRiN").
    assert.doesNotMatch(idp.log(), /simplesamlphp (ERROR|CRITICAL|ALERT|EMERGENCY)\b|\b\w*Exception\b|Unsuccessful logout/, 'SimpleSAMLphp logged no error');
    assert.equal(await idp.asksForPassword(browser, await h.start()), true);
    // A replay of the same genuine request is refused.
    const replayed = await h.post(form);
    assert.equal(replayed.status, 401, replayed.text);
  });

  it('without an SP keypair, signing out ends the Capstan session only (no unsigned LogoutRequest is sent); signed out already, it just lands', async () => {
    const h = await setup({ keypair: false });
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'carol');
    const out = await h.logout(cookie);
    assert.equal(out.status, 302, out.text);
    assert.equal(out.location, '/');
    assert.equal((await h.me(cookie)).status, 401);
    assert.equal(await idp.asksForPassword(browser, await h.start()), false, 'the IdP was not told');
    const again = await h.logout(cookie);
    assert.equal(again.status, 302, again.text);
    assert.equal(again.location, '/');
  });

  it('an unsigned, a badly signed or a SHA-1 LogoutRequest is refused and the session lives', async () => {
    const h = await setup();
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'dave');
    const form = await idpInitiated(browser);
    const xml = decode(form.fields.SAMLRequest ?? '');
    const cases: [string, string, RegExp][] = [
      ['its Signature stripped', xml.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, ''), /not signed/],
      ['another NameID under the signature', xml.replace('dave@example.com', 'carol@example.com'), /signature/i],
      ['SHA-1 claimed', xml.replace('xmldsig-more#rsa-sha256', 'xmldsig#rsa-sha1'), /RSA-SHA256/],
    ];
    for (const [name, edited, message] of cases) {
      assert.notEqual(edited, xml, name);
      const res = await h.post({ ...form, fields: { ...form.fields, SAMLRequest: encode(edited) } });
      assert.equal(res.status, 401, `${name}: ${res.text}`);
      assert.match(res.text, message, name);
      assert.equal((await h.me(cookie)).status, 200, `${name}: the session lives`);
    }
    // Hand-built, never signed, naming dave.
    const forged = `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_forged1" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${PUBLIC_URL}/api/agent/auth/saml/slo"><saml:Issuer>${idp.url}/saml2/idp/metadata.php</saml:Issuer><saml:NameID>dave@example.com</saml:NameID></samlp:LogoutRequest>`;
    const res = await h.post({ action: form.action, fields: { SAMLRequest: encode(forged) } });
    assert.equal(res.status, 401, res.text);
    assert.equal((await h.me(cookie)).status, 200, 'the session lives');
    // Neither field, or both: 400 naming the field.
    const neither = await h.post({ action: form.action, fields: { RelayState: 'x' } });
    assert.equal(neither.status, 400, neither.text);
    assert.match(neither.text, /SAMLRequest/);
  });
});

describe('SAML single logout, HTTP-Redirect binding (SimpleSAMLphp given both, prefers it)', () => {
  /** Starts IdP-initiated logout in `browser`: the IdP's redirect to the agent with a signed LogoutRequest. */
  async function idpRedirect(browser: Browser): Promise<URL> {
    const step = await browser.go(`${idp.sloUrl}?ReturnTo=${encodeURIComponent(`${idp.url}/logged-out`)}`);
    assert.equal(step.kind, 'redirect', `${JSON.stringify(step).slice(0, 600)}\n${idp.log()}`);
    const url = new URL(step.location);
    assert.equal(`${url.origin}${url.pathname}`, `${PUBLIC_URL}/api/agent/auth/saml/slo`);
    assert.ok(url.searchParams.get('SAMLRequest'));
    assert.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    return url;
  }

  it('SP-initiated: the IdP answers by redirect with a signed LogoutResponse; both sessions end', async () => {
    const h = await setup({ binding: 'redirect' });
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'carol');
    const out = await h.logout(cookie);
    assert.equal(out.status, 302, out.text);
    assert.equal((await h.me(cookie)).status, 401);
    const step = await browser.go(out.location);
    assert.equal(step.kind, 'redirect', `${JSON.stringify(step).slice(0, 600)}\n${idp.log()}`);
    const back = new URL(step.location);
    assert.ok(back.searchParams.get('SAMLResponse'));
    assert.ok(back.searchParams.get('Signature'));
    // Its signature stripped, it is refused; as the IdP sent it, it lands on the return path.
    const unsigned = new URL(back);
    unsigned.searchParams.delete('Signature');
    unsigned.searchParams.delete('SigAlg');
    const refused = await h.get(unsigned.toString());
    assert.equal(refused.status, 401, refused.text);
    assert.match(refused.text, /not signed/);
    const landed = await h.get(step.location);
    assert.equal(landed.status, 302, landed.text);
    assert.equal(landed.location, '/');
    assert.equal((await h.get(step.location)).status, 401, 'answered once');
    assert.equal(await idp.asksForPassword(browser, await h.start()), true, 'the IdP session ended');
  });

  it('IdP-initiated: a signed LogoutRequest ends the session, the IdP accepts our signed answer; unsigned, SHA-1-claimed, altered and replayed ones are refused', async () => {
    const h = await setup({ binding: 'redirect' });
    const browser = idp.newBrowser();
    const cookie = await h.signIn(browser, 'dave');
    const other = await h.signIn(idp.newBrowser(), 'carol');
    const request = await idpRedirect(browser);
    const broken: [string, (u: URL) => void, RegExp][] = [
      ['its Signature and SigAlg removed', (u) => (u.searchParams.delete('Signature'), u.searchParams.delete('SigAlg')), /not signed/],
      ['SigAlg claiming RSA-SHA1', (u) => u.searchParams.set('SigAlg', 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'), /RSA-SHA256/],
      ['another Signature', (u) => u.searchParams.set('Signature', Buffer.alloc(256, 7).toString('base64')), /signature/i],
    ];
    for (const [name, edit, message] of broken) {
      const u = new URL(request);
      edit(u);
      const res = await h.get(u.toString());
      assert.equal(res.status, 401, `${name}: ${res.text}`);
      assert.match(res.text, message, name);
      assert.equal((await h.me(cookie)).status, 200, `${name}: the session lives`);
    }
    const accepted = answersAccepted();
    const answered = await h.get(request.toString());
    assert.equal(answered.status, 302, answered.text);
    assert.equal((await h.me(cookie)).status, 401, "dave's Capstan session ended");
    assert.equal((await h.me(other)).status, 200, "carol's lives");
    const back = new URL(answered.location ?? '');
    assert.equal(`${back.origin}${back.pathname}`, idp.sloUrl);
    assert.equal(back.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    const done = await browser.go(answered.location ?? '');
    assert.equal(done.kind, 'page', JSON.stringify(done).slice(0, 600));
    assert.equal(answersAccepted(), accepted + 1, `SimpleSAMLphp validated our signed LogoutResponse (validate.logout): ${idp.log(3000)}`);
    assert.equal(await idp.asksForPassword(browser, await h.start()), true, 'the IdP session ended');
    assert.equal((await h.get(request.toString())).status, 401, 'a replay is refused');
  });
});
