// The SAML SP keypair's checks (runtime/sso/saml-keypair.ts) and the encryption algorithms an
// encrypted assertion may use (domain/sso/saml.ts), by table. Keys come from node:crypto and
// certificates from the generator itself, so no external tool is needed.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { ENCRYPTED_REFUSAL, encryptedRefusalMessage, encryptionRefusal } from '../../domain/sso/saml.ts';
import { checkSpKeypair, generateSpKeypair, MIN_RSA_BITS } from '../../runtime/sso/saml-keypair.ts';

const pem = (k: ReturnType<typeof generateKeyPairSync>['privateKey']) => k.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('generateSpKeypair', () => {
  it('makes an RSA-2048 key and a self-signed SHA-256 certificate for it, valid from now for ten years', async () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const pair = await generateSpKeypair('Capstan SAML SP capstan.example.com', now);
    assert.match(pair.privateKeyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.doesNotMatch(pair.certPem, /\r/, 'the same PEM layout as node:crypto writes');
    const cert = new X509Certificate(pair.certPem);
    assert.equal(cert.publicKey.asymmetricKeyDetails?.modulusLength, MIN_RSA_BITS);
    assert.equal(cert.verify(cert.publicKey), true, 'self-signed');
    assert.equal(cert.subject, 'CN=Capstan SAML SP capstan.example.com');
    assert.equal(cert.issuer, cert.subject);
    assert.equal(new Date(cert.validFrom).getTime(), now.getTime());
    assert.equal(new Date(cert.validTo).toISOString(), '2036-11-24T12:00:00.000Z');
    const checked = checkSpKeypair(pair.privateKeyPem, pair.certPem);
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.deepEqual(checked.value, pair, 'a generated pair is already in the checked form');
    const again = await generateSpKeypair('x', now);
    assert.notEqual(again.privateKeyPem, pair.privateKeyPem);
    assert.notEqual(new X509Certificate(again.certPem).serialNumber, cert.serialNumber);
  });
});

describe('checkSpKeypair', async () => {
  const good = await generateSpKeypair('good', new Date());
  const other = await generateSpKeypair('other', new Date());
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const ed = generateKeyPairSync('ed25519').privateKey;
  const encrypted = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString();

  const rows: [string, string, string, string, RegExp][] = [
    ['a certificate of another key', good.privateKeyPem, other.certPem, 'sp_cert_pem', /not for this private key/],
    ['RSA-1024', pem(small), good.certPem, 'sp_private_key_pem', /1024 bits: at least 2048/],
    ['an EC key', pem(ec), good.certPem, 'sp_private_key_pem', /must be an RSA key.*not ec/],
    ['an Ed25519 key', pem(ed), good.certPem, 'sp_private_key_pem', /not ed25519/],
    ['a passphrase-protected key', encrypted, good.certPem, 'sp_private_key_pem', /unencrypted PEM private key/],
    ['garbage between PEM markers', '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n', good.certPem, 'sp_private_key_pem', /PEM private key/],
    ['a certificate that does not parse', good.privateKeyPem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'sp_cert_pem', /readable PEM certificate/],
    ['a key where the certificate belongs', good.privateKeyPem, good.privateKeyPem, 'sp_cert_pem', /readable PEM certificate/],
  ];
  for (const [name, key, cert, field, message] of rows) {
    it(`refuses ${name} (400 on ${field})`, () => {
      const r = checkSpKeypair(key, cert);
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'invalid_input');
      assert.equal(r.error.field, field);
      assert.match(r.error.message, message);
    });
  }

  it('accepts a matching pair and answers the key as PKCS#8 (a PKCS#1 "RSA PRIVATE KEY" is converted)', () => {
    const asPkcs1 = createPrivateKey(good.privateKeyPem).export({ format: 'pem', type: 'pkcs1' }).toString();
    assert.match(asPkcs1, /^-----BEGIN RSA PRIVATE KEY-----/);
    const r = checkSpKeypair(asPkcs1, good.certPem);
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.value.privateKeyPem, good.privateKeyPem);
    assert.equal(r.value.certPem, good.certPem);
  });
});

describe('encryptionRefusal', () => {
  const OAEP = 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p';
  const OAEP11 = 'http://www.w3.org/2009/xmlenc11#rsa-oaep';
  const AES128CBC = 'http://www.w3.org/2001/04/xmlenc#aes128-cbc';
  const AES256GCM = 'http://www.w3.org/2009/xmlenc11#aes256-gcm';
  const rows: [string, string[], RegExp | null][] = [
    ['no encryption at all', [], null],
    ['samlidp: RSA-OAEP (mgf1p) + AES-128-CBC', [AES128CBC, OAEP], null],
    ['xmlenc 1.1 RSA-OAEP + AES-256-GCM', [AES256GCM, OAEP11], null],
    ['RSA PKCS#1 v1.5 key transport', [AES128CBC, 'http://www.w3.org/2001/04/xmlenc#rsa-1_5'], /rsa-1_5 is refused/],
    ['Triple DES content', ['http://www.w3.org/2001/04/xmlenc#tripledes-cbc', OAEP], /tripledes-cbc is refused/],
    ['an unknown algorithm', [AES128CBC, OAEP, 'urn:example:rot13'], /rot13 is refused/],
    ['an empty Algorithm attribute', [''], /refused/],
  ];
  for (const [name, methods, expected] of rows) {
    it(name, () => {
      const r = encryptionRefusal(methods);
      if (expected === null) assert.equal(r, null);
      else assert.match(r ?? '', expected);
    });
  }
});

describe('encryptedRefusalMessage: no decryption oracle', () => {
  // node-saml 5.1.0's and xml-encryption 3.1.0's own messages, and Node's crypto errors.
  const hidden = [
    'error:02000079:rsa routines::oaep decoding error',
    'error:1C800064:Provider routines::bad decrypt',
    'Invalid EncryptedAssertion content',
    'Invalid signature from encrypted assertion',
    'Invalid signature',
    '[xmldom error]\tinvalid doc source',
    'key encryption algorithm urn:x not supported',
    'No decryption key for encrypted SAML response',
    'Cannot obtain assertion from signed data',
  ];
  for (const detail of hidden) {
    it(`hides "${detail}"`, () => assert.equal(encryptedRefusalMessage(detail), ENCRYPTED_REFUSAL));
  }
  // Reached only with an assertion the IdP's key verified: no ciphertext an attacker made gets here.
  const shown = [
    'SAML assertion audience mismatch. Expected: http://capstan.test:8080/api/agent/auth/saml/metadata Received: http://other.test/saml/metadata',
    'SAML assertion expired: clocks skewed too much',
    'SAML assertion not yet valid',
    'No valid subject confirmation',
    'SubjectInResponseTo is not valid',
    'Unknown SAML issuer. Expected: a Received: b',
    'Missing SAML NameID',
  ];
  for (const detail of shown) {
    it(`shows "${detail.slice(0, 40)}…"`, () => assert.equal(encryptedRefusalMessage(detail), detail));
  }
});
