// SAML single logout's refusals (runtime/sso/saml-logout.ts) by table, through the agent's own
// SAML service over a fresh database: logout messages signed here with an IdP key made for the
// run (node-saml's own signXml, as an IdP's library would), each broken in one way. The flows
// against a real IdP are in tests/integration/sso-saml-slo.test.ts; these are the rules that IdP
// cannot be made to break (issuer, destination, freshness, status, a second SessionIndex).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createSign } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { before, describe, it } from 'node:test';
import * as v from 'valibot';
import { generateSpKeypair } from '../../runtime/sso/saml-keypair.ts';
import { SamlConfigInput, type SamlConfig } from '../../schema/sso.ts';
import { testServices, type TestServices } from '../support/services.ts';

interface SignOptions {
  privateKey: string;
  signatureAlgorithm: 'sha1' | 'sha256';
  digestAlgorithm: 'sha1' | 'sha256';
}
const { signXml } = createRequire(import.meta.url)('@node-saml/node-saml/lib/xml.js') as { signXml: (xml: string, xpath: string, location: { reference: string; action: 'after' }, options: SignOptions) => string };

const IDP = 'https://idp.test/metadata';
const SLO = 'https://capstan.test/api/agent/auth/saml/slo';
const MIN = 60_000;

let s: TestServices;
let config: SamlConfig;
let idpKey: string;
let otherKey: string;
let sessions: { a1: string; a2: string; bob: string };

before(async () => {
  s = await testServices();
  const idp = await generateSpKeypair('test idp', new Date());
  idpKey = idp.privateKeyPem;
  otherKey = (await generateSpKeypair('not the idp', new Date())).privateKeyPem;
  const input = v.parse(SamlConfigInput, { public_url: 'https://capstan.test', idp_sso_url: 'https://idp.test/sso', idp_cert_pem: idp.certPem, idp_entity_id: IDP, idp_slo_url: 'https://idp.test/slo', generate_sp_key: true, require_encrypted_assertions: false });
  const stored = await s.saml.configure(input);
  assert.ok(stored.ok);
  config = stored.value.config;
  const users = await s.db.selectFrom('users').select(['id', 'username']).execute();
  const [u1, u2] = users;
  assert.ok(u1 && u2);
  const start = async (userId: number, nameId: string, sessionIndex: string | null) => {
    const { sessionId } = await s.auth.startSession(userId, '192.0.2.1');
    await s.saml.recordSession(sessionId, { nameId, nameIdFormat: null, sessionIndex });
    return sessionId;
  };
  sessions = { a1: await start(u1.id, 'alice@example.com', 'idx-1'), a2: await start(u1.id, 'alice@example.com', 'idx-2'), bob: await start(u2.id, 'bob@example.com', 'idx-3') };
});

let seq = 0;
interface Msg {
  kind?: 'LogoutRequest' | 'LogoutResponse';
  issuer?: string;
  destination?: string;
  issuedAgoMs?: number;
  nameId?: string;
  sessionIndex?: string | null;
  inResponseTo?: string;
  status?: string;
  sign?: 'sha256' | 'sha1' | 'other-key' | 'none';
}
function message(m: Msg = {}): string {
  const kind = m.kind ?? 'LogoutRequest';
  const id = `_test${++seq}`;
  const body =
    kind === 'LogoutRequest'
      ? `<saml:NameID>${m.nameId ?? 'alice@example.com'}</saml:NameID>${m.sessionIndex === null ? '' : `<samlp:SessionIndex>${m.sessionIndex ?? 'idx-1'}</samlp:SessionIndex>`}`
      : `<samlp:Status><samlp:StatusCode Value="${m.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>`;
  const xml = `<samlp:${kind} xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date(Date.now() - (m.issuedAgoMs ?? 0)).toISOString()}" Destination="${m.destination ?? SLO}"${m.inResponseTo ? ` InResponseTo="${m.inResponseTo}"` : ''}><saml:Issuer>${m.issuer ?? IDP}</saml:Issuer>${body}</samlp:${kind}>`;
  const sign = m.sign ?? 'sha256';
  if (sign === 'none') return Buffer.from(xml).toString('base64');
  const algorithm = sign === 'sha1' ? 'sha1' : 'sha256';
  const signed = signXml(xml, `/*[local-name(.)='${kind}']`, { reference: "/*/*[local-name(.)='Issuer']", action: 'after' }, { privateKey: sign === 'other-key' ? otherKey : idpKey, signatureAlgorithm: algorithm, digestAlgorithm: algorithm });
  return Buffer.from(signed).toString('base64');
}

describe('SAML LogoutRequest from the IdP', () => {
  const refusals: [string, Msg, RegExp][] = [
    ['unsigned', { sign: 'none' }, /not signed/],
    ['signed with RSA-SHA1', { sign: 'sha1' }, /RSA-SHA256/],
    ['signed by another key', { sign: 'other-key' }, /signature/i],
    ['from another issuer', { issuer: 'https://evil.test/metadata' }, /not the configured IdP/],
    ['addressed to another SP', { destination: 'https://other.test/slo' }, /not this SP/],
    ['issued 20 minutes ago', { issuedAgoMs: 20 * MIN }, /IssueInstant/],
    ['issued 10 minutes in the future', { issuedAgoMs: -10 * MIN }, /IssueInstant/],
    ['a LogoutResponse where a request belongs', { kind: 'LogoutResponse' }, /not a LogoutRequest/],
  ];
  for (const [name, msg, reason] of refusals) {
    it(`refuses one ${name}, ending nothing`, async () => {
      const res = await s.saml.acceptLogoutRequest(config, message(msg), undefined);
      assert.equal(res.ok, false);
      assert.equal(res.error.code, 'unauthenticated');
      assert.match(res.error.message, reason);
    });
  }

  it('names the session with that NameID and SessionIndex only, answers with a signed LogoutResponse, and refuses a replay', async () => {
    const signed = message({ sessionIndex: 'idx-1' });
    const res = await s.saml.acceptLogoutRequest(config, signed, 'relay-1');
    assert.ok(res.ok, JSON.stringify(res));
    assert.deepEqual(res.value.sessionIds, [sessions.a1]);
    const answer = new URL(res.value.location ?? '');
    assert.equal(`${answer.origin}${answer.pathname}`, 'https://idp.test/slo');
    assert.equal(answer.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    assert.ok(answer.searchParams.get('Signature'));
    assert.equal(answer.searchParams.get('RelayState'), 'relay-1');
    const response = inflateRawSync(Buffer.from(answer.searchParams.get('SAMLResponse') ?? '', 'base64')).toString('utf8');
    assert.match(response, /<samlp:LogoutResponse[^>]*InResponseTo="_test\d+"/);
    assert.match(response, /status:Success/);
    const again = await s.saml.acceptLogoutRequest(config, signed, undefined);
    assert.equal(again.ok, false);
    assert.match(again.error.message, /already used/);
  });

  it('without a SessionIndex names every session of that NameID, and no one else', async () => {
    const res = await s.saml.acceptLogoutRequest(config, message({ sessionIndex: null }), undefined);
    assert.ok(res.ok, JSON.stringify(res));
    assert.deepEqual([...res.value.sessionIds].sort(), [sessions.a1, sessions.a2].sort());
    assert.equal(res.value.sessionIds.includes(sessions.bob), false);
  });
});

describe('SAML LogoutRequest by the HTTP-Redirect binding', () => {
  const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
  /** The query an IdP would redirect with: the deflated message, SigAlg, and the signature over those bytes. */
  function redirect(xml: string, { sigAlg = RSA_SHA256, key = idpKey, sign = true } = {}) {
    const samlRequest = deflateRawSync(Buffer.from(xml)).toString('base64');
    const signed = `SAMLRequest=${encodeURIComponent(samlRequest)}&SigAlg=${encodeURIComponent(sigAlg)}`;
    const signature = createSign('RSA-SHA256').update(signed).sign(key, 'base64');
    const rawQuery = sign ? `${signed}&Signature=${encodeURIComponent(signature)}` : signed;
    return { samlRequest, redirect: { sigAlg, signature: sign ? signature : undefined, relayState: undefined, rawQuery } };
  }
  const plain = (m: Msg = {}) => Buffer.from(message({ ...m, sign: 'none' }), 'base64').toString('utf8');

  it('accepts one signed over the query string', async () => {
    const r = redirect(plain({ sessionIndex: 'idx-2' }));
    const res = await s.saml.acceptLogoutRequest(config, r.samlRequest, undefined, r.redirect);
    assert.ok(res.ok, JSON.stringify(res));
    assert.deepEqual(res.value.sessionIds, [sessions.a2]);
  });

  const refusals: [string, () => ReturnType<typeof redirect>, RegExp][] = [
    ['without Signature', () => redirect(plain(), { sign: false }), /not signed/],
    ['claiming RSA-SHA1', () => redirect(plain(), { sigAlg: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' }), /RSA-SHA256/],
    ['signed by another key', () => redirect(plain(), { key: otherKey }), /signature/i],
    ['from another issuer', () => redirect(plain({ issuer: 'https://evil.test/metadata' })), /not the configured IdP/],
  ];
  for (const [name, make, reason] of refusals) {
    it(`refuses one ${name}`, async () => {
      const r = make();
      const res = await s.saml.acceptLogoutRequest(config, r.samlRequest, undefined, r.redirect);
      assert.equal(res.ok, false);
      assert.match(res.error.message, reason);
    });
  }

  it('refuses a message that inflates past 192 KiB without inflating it all', async () => {
    const bomb = deflateRawSync(Buffer.alloc(10 * 1024 * 1024, 32)).toString('base64');
    const res = await s.saml.acceptLogoutRequest(config, bomb, undefined, { sigAlg: RSA_SHA256, signature: 'x', relayState: undefined, rawQuery: '' });
    assert.equal(res.ok, false);
    assert.match(res.error.message, /deflated/);
  });
});

describe('SAML LogoutResponse from the IdP', () => {
  /** Starts SP-initiated logout for bob's session; answers our LogoutRequest's ID. */
  async function ourRequest(): Promise<string> {
    const location = await s.saml.startLogout(config, sessions.bob, '/bye');
    assert.ok(location);
    const request = inflateRawSync(Buffer.from(new URL(location).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    assert.match(request, /<saml:NameID[^>]*>bob@example.com</);
    assert.match(request, /SessionIndex[^>]*>idx-3</);
    const id = /ID="([^"]+)"/.exec(request)?.[1];
    assert.ok(id);
    return id;
  }

  const refusals: [string, (id: string) => Msg, RegExp][] = [
    ['unsigned', (id) => ({ kind: 'LogoutResponse', inResponseTo: id, sign: 'none' }), /not signed/],
    ['signed by another key', (id) => ({ kind: 'LogoutResponse', inResponseTo: id, sign: 'other-key' }), /signature/i],
    ['answering no request of ours', () => ({ kind: 'LogoutResponse', inResponseTo: '_never-sent' }), /no LogoutRequest of ours/],
    ['without InResponseTo', () => ({ kind: 'LogoutResponse' }), /no LogoutRequest of ours/],
    ['with a failure status', (id) => ({ kind: 'LogoutResponse', inResponseTo: id, status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' }), /did not end its session/],
  ];
  for (const [name, msg, reason] of refusals) {
    it(`refuses one ${name}`, async () => {
      const res = await s.saml.acceptLogoutResponse(config, message(msg(await ourRequest())));
      assert.equal(res.ok, false);
      assert.match(res.error.message, reason);
    });
  }

  it('accepts the signed answer to our request once, landing on its return path', async () => {
    const id = await ourRequest();
    const signed = message({ kind: 'LogoutResponse', inResponseTo: id });
    const res = await s.saml.acceptLogoutResponse(config, signed);
    assert.ok(res.ok, JSON.stringify(res));
    assert.equal(res.value.returnTo, '/bye');
    const again = await s.saml.acceptLogoutResponse(config, signed);
    assert.equal(again.ok, false);
  });

  it('sends no LogoutRequest for a session that is not SAML, or without the SP key', async () => {
    assert.equal(await s.saml.startLogout(config, 'not-a-saml-session', '/'), null);
    assert.equal(await s.saml.startLogout({ ...config, sp_private_key_pem: null }, sessions.bob, '/'), null);
    assert.equal(await s.saml.startLogout({ ...config, idp_slo_url: null }, sessions.bob, '/'), null);
  });
});
