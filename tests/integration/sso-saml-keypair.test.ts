// The SAML SP keypair (issue 17 item 6, docs/sso.md "The SP keypair") against the real
// crewjam/saml samlidp, and the wrong-audience refusal. samlidp v0.5.1 encrypts the assertion
// whenever the SP metadata it was given carries an encryption certificate
// (identity_provider.go MakeAssertionEl/getSPEncryptionCert: RSA-OAEP + AES-128-CBC), so a
// sign-in here really decrypts an EncryptedAssertion. It does not check AuthnRequest
// signatures at all (Validate: "authn request signature checking is not currently supported"),
// so the request's signature is verified here with the published certificate instead.
import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { startSamlIdp, type IdpPost, type SamlIdp } from '../support/samlidp.ts';

let idp: SamlIdp;
const MAIL = 'urn:oid:0.9.2342.19200300.100.1.3';
const PUBLIC_URL = 'http://capstan.test:8080';
const ACS = `${PUBLIC_URL}/api/agent/auth/saml/acs`;
const IP = { incoming: { socket: { remoteAddress: '192.0.2.10' } } };

before(async () => {
  idp = await startSamlIdp();
  await idp.putUser({ name: 'bob', password: 'bob password', email: 'bob@example.com', groups: ['staff'] });
});
after(async () => {
  await idp.stop();
});

async function setup() {
  const licensing = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
  const h = await testApp({ licensing, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const put = async (extra: Record<string, unknown>) => h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: PUBLIC_URL, idp_metadata_xml: await idp.metadata(), email_attribute: MAIL, ...extra } });
  const metadata = async () => (await h.app.request('/api/agent/auth/saml/metadata', {}, IP)).text();
  const start = async () => {
    const res = await h.app.request('/api/agent/auth/saml/login', {}, IP);
    assert.equal(res.status, 302, await res.clone().text());
    return res.headers.get('location') ?? '';
  };
  const acs = async (post: Pick<IdpPost, 'SAMLResponse' | 'RelayState'>) => {
    const res = await h.app.request('/api/agent/auth/saml/acs', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(post).toString() }, IP);
    const text = await res.text();
    return { status: res.status, cookie: /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '', text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown> };
  };
  return { ...h, admin, put, metadata, start, acs };
}

const decoded = (post: IdpPost) => Buffer.from(post.SAMLResponse, 'base64').toString('utf8');
const requestXml = (location: string) => inflateRawSync(Buffer.from(new URL(location).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
const certBody = (pem: string) => pem.replace(/-----[^-]+-----|\s+/g, '');

/** The redirect binding's signature (SAML bindings §3.4.4.1): over `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as the URL encodes them. */
function redirectSignatureValid(location: string, certPem: string): boolean {
  const raw = new Map(location.slice(location.indexOf('?') + 1).split('&').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const signed = ['SAMLRequest', 'RelayState', 'SigAlg'].filter((k) => raw.has(k)).map((k) => `${k}=${raw.get(k)}`).join('&');
  return verify('RSA-SHA256', Buffer.from(signed), certPem, Buffer.from(decodeURIComponent(raw.get('Signature') ?? ''), 'base64'));
}

describe('SAML SP keypair against crewjam/saml samlidp', () => {
  it('generate_sp_key: the key is sealed and masked, the metadata publishes the certificate, AuthnRequests are signed, and the IdP\'s EncryptedAssertion signs in', async () => {
    const h = await setup();
    const saved = await h.put({ generate_sp_key: true });
    assert.equal(saved.status, 200, saved.text);
    const config = saved.body.config as Record<string, unknown>;
    assert.equal(config.sp_private_key_pem, '••••');
    assert.equal(config.require_encrypted_assertions, true);
    const certPem = String(config.sp_cert_pem);
    assert.match(certPem, /^-----BEGIN CERTIFICATE-----/);
    assert.doesNotMatch(saved.text, /PRIVATE KEY/);
    const read = await h.call('GET', '/api/agent/admin/sso/saml', { cookie: h.admin });
    assert.equal((read.body.config as Record<string, unknown>).sp_private_key_pem, '••••');
    assert.doesNotMatch(read.text, /PRIVATE KEY/);
    const row = await h.services.db.selectFrom('sso_providers').selectAll().where('provider', '=', 'saml').executeTakeFirstOrThrow();
    assert.equal(row.config_sealed.includes(certBody(certPem).slice(0, 40)), false, 'the configuration is encrypted at rest');

    const metadata = await h.metadata();
    assert.match(metadata, /AuthnRequestsSigned="true"/);
    assert.match(metadata, /<KeyDescriptor use="signing">/);
    assert.match(metadata, /<KeyDescriptor use="encryption">/);
    assert.equal(metadata.replace(/\s+/g, '').split(certBody(certPem)).length - 1, 2, 'the certificate is published for signing and for encryption');

    // The AuthnRequest carries SigAlg and a Signature that verifies with the published certificate.
    const location = await h.start();
    const query = new URL(location).searchParams;
    assert.equal(query.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    assert.ok(query.get('Signature'));
    assert.equal(redirectSignatureValid(location, certPem), true);
    assert.equal(redirectSignatureValid(location.replace(/RelayState=[^&]+/, 'RelayState=forged.relay'), certPem), false, 'the signature covers the RelayState');

    await idp.putService('capstan', metadata);
    const post = await idp.signIn(location, 'bob', 'bob password');
    const xml = decoded(post);
    // (Tested, not matched: a failing match would print the whole response.)
    assert.ok(/<saml:EncryptedAssertion[\s>]/.test(xml), 'the IdP encrypted the assertion to the published certificate');
    assert.ok(!/<saml:Assertion[\s>]/.test(xml), 'no plain assertion travelled');
    assert.ok(!xml.includes('bob@example.com'), 'the NameID and attributes are inside the ciphertext');
    // Altered ciphertext (the wrapped key, or the content's last block, where CBC padding sits)
    // is refused with one message whatever failed, so the ACS is no decryption oracle.
    const cipherValues = [...xml.matchAll(/<xenc:CipherValue>([^<]+)</g)].map((m) => m[1] ?? '');
    assert.equal(cipherValues.length, 2, 'the wrapped key and the content');
    const flip = (b64: string, at: number) => { const bytes = Buffer.from(b64, 'base64'); bytes[at] = (bytes[at] ?? 0) ^ 0x01; return bytes.toString('base64'); };
    for (const [which, value, at] of [['key', cipherValues[0] ?? '', 10], ['content padding', cipherValues[1] ?? '', Buffer.from(cipherValues[1] ?? '', 'base64').length - 17]] as const) {
      const bad = await h.acs({ ...post, SAMLResponse: Buffer.from(xml.replace(value, flip(value, at))).toString('base64') });
      assert.equal(bad.status, 401, `${which}: ${bad.text}`);
      assert.equal(bad.body.message, 'SAML response refused: the encrypted assertion could not be decrypted and verified', which);
      assert.equal(bad.cookie, '');
    }
    const signedIn = await h.acs(post);
    assert.equal(signedIn.status, 302, signedIn.text);
    const me = await h.call('GET', '/api/agent/me', { cookie: signedIn.cookie });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.username, 'bob@example.com');
    assert.equal(me.body.auth_method, 'saml');

    // Another admin edit sending •••• back keeps the stored pair (the same certificate is published).
    const kept = await h.put({ sp_private_key_pem: '••••', sp_cert_pem: certPem });
    assert.equal(kept.status, 200, kept.text);
    assert.equal((kept.body.config as Record<string, unknown>).sp_cert_pem, certPem);
    const withoutId = (xml: string) => xml.replace(/ ID="[^"]+"/, '');
    assert.equal(withoutId(await h.metadata()), withoutId(metadata));
    // So does an edit that does not mention it (a client unaware of the keypair cannot drop it).
    const unaware = await h.put({});
    assert.equal(unaware.status, 200, unaware.text);
    assert.equal((unaware.body.config as Record<string, unknown>).sp_private_key_pem, '••••');
    assert.equal(withoutId(await h.metadata()), withoutId(metadata));
  });

  it('with a keypair a plain assertion is refused unless require_encrypted_assertions is off; without one, behaviour is unchanged', async () => {
    const h = await setup();
    assert.equal((await h.put({ generate_sp_key: true })).status, 200);
    // The IdP is given the SP without its certificates, so it answers with a plain (signed) assertion.
    const keyed = await h.metadata();
    const stripped = keyed.replace(/<KeyDescriptor[\s\S]*?<\/KeyDescriptor>/g, '');
    await idp.putService('capstan', stripped);
    const plain = await idp.signIn(await h.start(), 'bob', 'bob password');
    assert.ok(/<saml:Assertion[\s>]/.test(decoded(plain)), 'a plain assertion');
    const refused = await h.acs(plain);
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.body.error, 'unauthenticated');
    assert.match(String(refused.body.message), /not encrypted/);
    assert.equal(refused.cookie, '');

    assert.equal((await h.put({ sp_private_key_pem: '••••', require_encrypted_assertions: false })).status, 200);
    const accepted = await h.acs(await idp.signIn(await h.start(), 'bob', 'bob password'));
    assert.equal(accepted.status, 302, accepted.text);
    // An edit that names neither keeps both the pair and the choice.
    const edited = (await h.put({ groups_attribute: 'roles' })).body.config as Record<string, unknown>;
    assert.deepEqual([edited.sp_private_key_pem, edited.require_encrypted_assertions, edited.groups_attribute], ['••••', false, 'roles']);

    // null removes the keypair: unsigned AuthnRequests, no KeyDescriptor, plain assertions as before.
    const removed = await h.put({ sp_private_key_pem: null });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual([(removed.body.config as Record<string, unknown>).sp_private_key_pem, (removed.body.config as Record<string, unknown>).sp_cert_pem], [null, null]);
    // An IdP still holding the old metadata encrypts to the removed key: refused, saying so.
    await idp.putService('capstan', keyed);
    const stale = await h.acs(await idp.signIn(await h.start(), 'bob', 'bob password'));
    assert.equal(stale.status, 401, stale.text);
    assert.match(String(stale.body.message), /encrypted but no SP keypair is configured/);
    const bare = await h.metadata();
    assert.match(bare, /AuthnRequestsSigned="false"/);
    assert.doesNotMatch(bare, /KeyDescriptor/);
    assert.equal(new URL(await h.start()).searchParams.get('Signature'), null);
    await idp.putService('capstan', bare);
    assert.equal((await h.acs(await idp.signIn(await h.start(), 'bob', 'bob password'))).status, 302);
  });

  it('a supplied keypair is checked: PEM that parses, RSA >= 2048, the certificate of this key; errors are 400 naming the field', async () => {
    const h = await setup();
    const dir = mkdtempSync(join(tmpdir(), 'capstan-spkey-'));
    try {
      const pair = (name: string, args: string[]) => {
        execFileSync('openssl', ['req', '-x509', ...args, '-nodes', '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`), '-days', '2', '-subj', `/CN=${name}`], { stdio: 'ignore' });
        return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.crt`), 'utf8') };
      };
      const good = pair('good', ['-newkey', 'rsa:2048', '-sha256']);
      const other = pair('other', ['-newkey', 'rsa:2048', '-sha256']);
      const small = pair('small', ['-newkey', 'rsa:1024', '-sha256']);
      const ec = pair('ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
      const cases: [string, Record<string, unknown>, string, RegExp][] = [
        ['a certificate of another key', { sp_private_key_pem: good.key, sp_cert_pem: other.cert }, 'sp_cert_pem', /not for this private key/],
        ['RSA-1024', { sp_private_key_pem: small.key, sp_cert_pem: small.cert }, 'sp_private_key_pem', /1024 bits/],
        ['an EC key', { sp_private_key_pem: ec.key, sp_cert_pem: ec.cert }, 'sp_private_key_pem', /RSA/],
        ['a key that is not PEM', { sp_private_key_pem: '-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----', sp_cert_pem: good.cert }, 'sp_private_key_pem', /PEM private key/],
        ['a certificate that does not parse', { sp_private_key_pem: good.key, sp_cert_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'sp_cert_pem', /certificate/],
        ['a key without its certificate', { sp_private_key_pem: good.key }, 'sp_cert_pem', /required/],
        ['a certificate for a kept key when none is stored', { sp_cert_pem: good.cert }, 'sp_private_key_pem', /no SP key is stored/],
        ['a certificate with null (removal)', { sp_private_key_pem: null, sp_cert_pem: good.cert }, 'sp_cert_pem', /removes the keypair/],
        ['generate_sp_key with a key', { generate_sp_key: true, sp_private_key_pem: good.key, sp_cert_pem: good.cert }, 'generate_sp_key', /without/],
        ['•••• with nothing stored', { sp_private_key_pem: '••••' }, 'sp_private_key_pem', /no SP key is stored/],
      ];
      for (const [name, body, field, message] of cases) {
        const res = await h.put(body);
        assert.equal(res.status, 400, `${name}: ${res.text}`);
        assert.equal(res.body.field, field, `${name}: ${res.text}`);
        assert.match(res.text, message, name);
      }
      const supplied = await h.put({ sp_private_key_pem: good.key, sp_cert_pem: good.cert });
      assert.equal(supplied.status, 200, supplied.text);
      assert.equal(certBody(String((supplied.body.config as Record<string, unknown>).sp_cert_pem)), certBody(good.cert));
      assert.equal(redirectSignatureValid(await h.start(), good.cert), true, 'requests are signed with the supplied key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A second service provider at the same IdP whose ACS is Capstan's (a mistake, or an attacker's registration). */
const OTHER_SP = 'http://other.test/saml/metadata';
function otherSpMetadata(encryptionCertPem: string | null): string {
  const key = encryptionCertPem
    ? `<KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(encryptionCertPem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>`
    : '';
  return `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${OTHER_SP}"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${key}<AssertionConsumerService index="1" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ACS}"/></SPSSODescriptor></EntityDescriptor>`;
}

/** An AuthnRequest from the other SP (redirect binding, unsigned as samlidp accepts), with the ID and RelayState chosen by the caller. */
function otherSpRequest(ssoUrl: string, id: string, relayState: string): string {
  const xml = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="${ACS}" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"><saml:Issuer>${OTHER_SP}</saml:Issuer></samlp:AuthnRequest>`;
  return `${ssoUrl}?${new URLSearchParams({ SAMLRequest: deflateRawSync(xml).toString('base64'), RelayState: relayState }).toString()}`;
}

describe('SAML wrong audience against crewjam/saml samlidp', () => {
  it('a genuinely IdP-signed response issued to another SP is refused on its audience, even answering a pending request of ours with our RelayState', async () => {
    for (const keypair of [false, true]) {
      const h = await setup();
      const saved = await h.put(keypair ? { generate_sp_key: true } : {});
      assert.equal(saved.status, 200, saved.text);
      const ourCert = keypair ? String((saved.body.config as Record<string, unknown>).sp_cert_pem) : null;
      await idp.putService('capstan', await h.metadata());
      // The other SP even advertises Capstan's certificate, so the assertion is one Capstan can decrypt.
      await idp.putService('other', otherSpMetadata(ourCert));

      // A real pending sign-in of Capstan's: its request ID and signed RelayState.
      const ours = await h.start();
      const ourId = /ID="([^"]+)"/.exec(requestXml(ours))?.[1] ?? '';
      const relayState = new URL(ours).searchParams.get('RelayState') ?? '';
      const ssoUrl = ours.slice(0, ours.indexOf('?'));
      // The IdP is asked, on the other SP's behalf, for a response with that same ID.
      const foreign = await idp.signIn(otherSpRequest(ssoUrl, ourId, relayState), 'bob', 'bob password');
      assert.equal(foreign.action, ACS);
      const xml = decoded(foreign);
      assert.ok(xml.includes(`InResponseTo="${ourId}"`), 'it answers our pending request');
      if (keypair) assert.ok(/<saml:EncryptedAssertion[\s>]/.test(xml), 'encrypted to Capstan\'s certificate');
      else assert.ok(xml.includes(`<saml:Audience>${OTHER_SP}</saml:Audience>`), 'issued to the other SP');
      const refused = await h.acs(foreign);
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.body.error, 'unauthenticated');
      assert.match(String(refused.body.message), /audience/i, `keypair ${keypair}: refused on the audience, not InResponseTo: ${refused.text}`);
      assert.equal(refused.cookie, '', 'nobody signed in');
      const users = await h.services.db.selectFrom('users').select('username').where('username', '=', 'bob@example.com').execute();
      assert.deepEqual(users, [], 'no account was provisioned');

      // An unsolicited one for the other SP (IdP-initiated) is refused too.
      const shortcut = await idp.unsolicited(OTHER_SP, 'bob', 'bob password');
      assert.equal((await h.acs({ SAMLResponse: shortcut.SAMLResponse, RelayState: relayState })).status, 401);

      // The refusal consumed nothing: the genuine answer to the same request still signs in.
      const genuine = await idp.signIn(ours, 'bob', 'bob password');
      assert.equal((await h.acs(genuine)).status, 302);
    }
  });

});
