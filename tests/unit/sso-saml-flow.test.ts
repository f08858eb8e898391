// The SAML sign-in flow in process, through the production middleware chain, against responses
// signed here with an IdP key made for the run (node-saml's own signXml, as an IdP's library
// would): where a started sign-in's state lives (a sealed flow cookie, or a sealed RelayState
// when public_url is plain HTTP; never a server-side table an anonymous client can fill), and
// when the ACS requires the flow cookie (decided by the configured public_url, not by how a
// request arrived). The flows against real IdPs are in tests/integration/sso-saml*.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';
import { before, describe, it } from 'node:test';
import { generateSpKeypair } from '../../runtime/sso/saml-keypair.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';

interface SignOptions {
  privateKey: string;
  signatureAlgorithm: 'sha256';
  digestAlgorithm: 'sha256';
}
const { signXml } = createRequire(import.meta.url)('@node-saml/node-saml/lib/xml.js') as { signXml: (xml: string, xpath: string, location: { reference: string; action: 'after' }, options: SignOptions) => string };

const IDP = 'https://idp.test/metadata';
const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };

let idp: { privateKeyPem: string; certPem: string };
before(async () => {
  idp = await generateSpKeypair('test idp', new Date());
});

/** A Response answering `requestId`, its assertion signed by the IdP (RSA-SHA256). */
function signedResponse(publicUrl: string, requestId: string, nameId = 'bob@example.com'): string {
  const acs = `${publicUrl}/api/agent/auth/saml/acs`;
  const audience = `${publicUrl}/api/agent/auth/saml/metadata`;
  const t = Date.now();
  const at = (ms: number) => new Date(t + ms).toISOString();
  const id = () => `_${randomBytes(16).toString('hex')}`;
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id()}" Version="2.0" IssueInstant="${at(0)}" Destination="${acs}" InResponseTo="${requestId}">` +
    `<saml:Issuer>${IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${id()}" Version="2.0" IssueInstant="${at(0)}"><saml:Issuer>${IDP}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${at(300_000)}" Recipient="${acs}" InResponseTo="${requestId}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${at(-60_000)}" NotOnOrAfter="${at(300_000)}"><saml:AudienceRestriction><saml:Audience>${audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="${id()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${nameId}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion></samlp:Response>`;
  const signed = signXml(xml, "//*[local-name(.)='Assertion']", { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' }, { privateKey: idp.privateKeyPem, signatureAlgorithm: 'sha256', digestAlgorithm: 'sha256' });
  return Buffer.from(signed).toString('base64');
}

async function setup(publicUrl: string) {
  const h = await testApp({ licensing: enterprise, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const saved = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: publicUrl, idp_sso_url: 'https://idp.test/sso', idp_cert_pem: idp.certPem, idp_entity_id: IDP, require_encrypted_assertions: false } });
  assert.equal(saved.status, 200, saved.text);
  /** GET /auth/saml/login as `origin` (how the request arrived) from `ip`: the AuthnRequest's ID, the RelayState and the flow cookie set. */
  const start = async (origin: string, ip = '192.0.2.10', returnTo?: string) => {
    const res = await h.app.request(`${origin}/api/agent/auth/saml/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`, {}, { incoming: { socket: { remoteAddress: ip } } });
    assert.equal(res.status, 302, await res.clone().text());
    const location = new URL(res.headers.get('location') ?? '');
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    const requestId = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
    assert.ok(requestId, request);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('capstan_saml=')) ?? null;
    const flow = setCookie === null ? null : (/^capstan_saml=([^;]*)/.exec(setCookie)?.[1] ?? '');
    return { requestId, relayState: location.searchParams.get('RelayState') ?? '', setCookie, flow };
  };
  /** POST /auth/saml/acs as the IdP's form would, over `origin`, with the flow cookie if given. */
  const acs = async (origin: string, SAMLResponse: string, RelayState: string, flow: string | null) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...(flow === null ? {} : { cookie: `capstan_saml=${flow}` }) };
    const res = await h.app.request(`${origin}/api/agent/auth/saml/acs`, { method: 'POST', headers, body: new URLSearchParams({ SAMLResponse, RelayState }).toString() }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    const cookies = res.headers.getSetCookie();
    const session = cookies.map((c) => /^capstan_session=([^;]+)/.exec(c)?.[1]).find((c) => c !== undefined) ?? '';
    return { status: res.status, location: res.headers.get('location'), cookies, session, text: await res.text() };
  };
  return { ...h, start, acs };
}

describe('SAML sign-in state', () => {
  it('10,000 anonymous login starts from many addresses leave nothing behind to fill: a legitimate sign-in still succeeds', async () => {
    const publicUrl = 'https://capstan.test';
    const h = await setup(publicUrl);
    for (let i = 0; i < 10_000; i++) {
      const res = await h.app.request(`${publicUrl}/api/agent/auth/saml/login`, {}, { incoming: { socket: { remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } } });
      assert.equal(res.status, 302, `start ${i}: ${await res.text()}`);
    }
    const started = await h.start(publicUrl, '192.0.2.10', '/workloads');
    const signedIn = await h.acs(publicUrl, signedResponse(publicUrl, started.requestId), started.relayState, started.flow);
    assert.equal(signedIn.status, 302, signedIn.text);
    assert.equal(signedIn.location, '/workloads');
    const me = await h.call('GET', '/api/agent/me', { cookie: signedIn.session });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.username, 'bob@example.com');
  });

  it('with an https public_url the state rides in the sealed flow cookie: its own request only, once, not after 10 minutes, not without the cookie', async () => {
    const publicUrl = 'https://capstan.test';
    const h = await setup(publicUrl);
    const a = await h.start(publicUrl);
    const b = await h.start(publicUrl);
    assert.ok(a.flow && b.flow);
    assert.ok(a.relayState.length <= 80, 'the RelayState stays within SAML bindings §3.4.3\'s 80 bytes');
    assert.doesNotMatch(Buffer.from(a.flow, 'base64url').toString('latin1'), new RegExp(a.requestId), 'sealed: the request ID cannot be read from the cookie');
    const response = signedResponse(publicUrl, a.requestId);
    const refusals: [string, string, string | null, RegExp][] = [
      ['no flow cookie', a.relayState, null, /flow cookie/],
      ["another sign-in's flow cookie", a.relayState, b.flow, /RelayState|InResponseTo/],
      ["another sign-in's cookie and RelayState", b.relayState, b.flow, /InResponseTo/],
      ['a flow cookie that is not ours', a.relayState, 'forged', /flow cookie/],
    ];
    for (const [name, relayState, flow, reason] of refusals) {
      const refused = await h.acs(publicUrl, response, relayState, flow);
      assert.equal(refused.status, 401, `${name}: ${refused.text}`);
      assert.match(refused.text, reason, name);
      assert.equal(refused.session, '', name);
    }
    const ok = await h.acs(publicUrl, response, a.relayState, a.flow);
    assert.equal(ok.status, 302, ok.text);
    assert.ok(ok.cookies.some((c) => /^capstan_saml=;.*Max-Age=0/.test(c)), ok.cookies.join(' | '));
    const again = await h.acs(publicUrl, signedResponse(publicUrl, a.requestId), a.relayState, a.flow);
    assert.equal(again.status, 401, again.text);
    assert.match(again.text, /InResponseTo is not valid/, 'each request is answered once');

    const late = await h.start(publicUrl);
    h.clock.advance(10 * 60_000 + 1);
    const expired = await h.acs(publicUrl, signedResponse(publicUrl, late.requestId), late.relayState, late.flow);
    assert.equal(expired.status, 401, expired.text);
    assert.match(expired.text, /10 minutes/);
  });

  it('with an https public_url the ACS requires the flow cookie even when the request arrives over plain HTTP (a proxy not telling the scheme)', async () => {
    const publicUrl = 'https://capstan.test';
    const h = await setup(publicUrl);
    const started = await h.start('http://capstan.test');
    assert.ok(started.setCookie, 'the flow cookie is set whatever scheme the start arrived by');
    assert.match(started.setCookie, /HttpOnly/);
    assert.match(started.setCookie, /Secure/);
    assert.match(started.setCookie, /SameSite=None/);
    const withoutCookie = await h.acs('http://capstan.test', signedResponse(publicUrl, started.requestId), started.relayState, null);
    assert.equal(withoutCookie.status, 401, withoutCookie.text);
    assert.equal(withoutCookie.session, '');
    const withCookie = await h.acs('http://capstan.test', signedResponse(publicUrl, started.requestId), started.relayState, started.flow);
    assert.equal(withCookie.status, 302, withCookie.text);
  });

  it('with a plain-HTTP public_url (development) the state rides sealed in the RelayState: no cookie, a forged or swapped RelayState refused', async () => {
    const publicUrl = 'http://capstan.test:8080';
    const h = await setup(publicUrl);
    const a = await h.start(publicUrl, '192.0.2.10', '/nodes');
    const b = await h.start(publicUrl);
    assert.equal(a.setCookie, null, 'no flow cookie: a cross-site POST over HTTP could not carry one');
    const forged = await h.acs(publicUrl, signedResponse(publicUrl, a.requestId), 'forged.relaystate', null);
    assert.equal(forged.status, 401, forged.text);
    assert.match(forged.text, /RelayState/);
    const swapped = await h.acs(publicUrl, signedResponse(publicUrl, a.requestId), b.relayState, null);
    assert.equal(swapped.status, 401, swapped.text);
    const ok = await h.acs(publicUrl, signedResponse(publicUrl, a.requestId), a.relayState, null);
    assert.equal(ok.status, 302, ok.text);
    assert.equal(ok.location, '/nodes');
    const replayed = await h.acs(publicUrl, signedResponse(publicUrl, a.requestId), a.relayState, null);
    assert.equal(replayed.status, 401, replayed.text);
  });
});
