// OIDC ID-token verification (issue 17 item 5): tokens signed with jose by a test key, checked by
// the real verifier against a local JWKS. Every rule has a row: weak and `none` algorithms,
// another key, wrong issuer or audience, expiry, nonce, azp, missing claims.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { checkIdToken, safeReturnPath, type IdTokenExpectations } from '../../domain/sso/oidc.ts';
import { verifyIdToken } from '../../runtime/sso/oidc-token.ts';

const ISSUER = 'http://127.0.0.1:5556/dex';
const CLIENT = 'capstan';
const NOW = 1_800_000_000;
const want: IdTokenExpectations = { issuer: ISSUER, clientId: CLIENT, nonce: 'n-123', groupsClaim: 'groups', nowSecs: NOW };

const issuerKey = await generateKeyPair('RS256', { extractable: true });
const otherKey = await generateKeyPair('RS256', { extractable: true });
const publicJwk = { ...(await exportJWK(issuerKey.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
const jwks = createLocalJWKSet({ keys: [publicJwk] });

const good: JWTPayload = { iss: ISSUER, aud: CLIENT, sub: 'user-1', iat: NOW - 10, exp: NOW + 300, nonce: 'n-123', email: 'Ann@Example.com', email_verified: true, groups: ['ops', 'dev'] };

async function signed(payload: JWTPayload, key: Parameters<SignJWT['sign']>[0] = issuerKey.privateKey, alg = 'RS256'): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg, kid: 'k1' }).sign(key);
}

const b64 = (x: object) => Buffer.from(JSON.stringify(x)).toString('base64url');

describe('verifyIdToken', () => {
  it('accepts a token signed by the issuer with every rule met', async () => {
    const result = await verifyIdToken(await signed(good), jwks, want);
    assert.deepEqual(result, { ok: true, value: { subject: 'user-1', email: 'Ann@Example.com', emailVerified: true, groups: ['ops', 'dev'] } });
  });

  const refusals: [string, () => Promise<string>, RegExp][] = [
    ['alg none (unsigned)', () => Promise.resolve(`${b64({ alg: 'none' })}.${b64(good)}.`), /algorithm none/],
    [
      'HS256 MACed with the public key (key confusion)',
      async () => new SignJWT(good).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
      /algorithm HS256/,
    ],
    ['signed by another key', () => signed(good, otherKey.privateKey), /SIGNATURE_VERIFICATION_FAILED/],
    ['payload altered after signing', async () => {
      const [h, , s] = (await signed(good)).split('.');
      return `${h}.${b64({ ...good, groups: ['admins'] })}.${s}`;
    }, /SIGNATURE_VERIFICATION_FAILED/],
    ['wrong issuer', () => signed({ ...good, iss: 'http://127.0.0.1:9999/dex' }), /iss/],
    ['wrong audience', () => signed({ ...good, aud: 'another-client' }), /aud/],
    ['expired beyond the skew', () => signed({ ...good, exp: NOW - 61 }), /EXPIRED|exp/],
    ['no exp', () => signed({ ...good, exp: undefined }), /exp/],
    ['nonce of another sign-in', () => signed({ ...good, nonce: 'n-other' }), /nonce/],
    ['no nonce', () => signed({ ...good, nonce: undefined }), /nonce/],
    ['no sub', () => signed({ ...good, sub: undefined }), /sub/],
    ['issued in the future', () => signed({ ...good, iat: NOW + 600 }), /iat|future/],
    ['several audiences without azp', () => signed({ ...good, aud: [CLIENT, 'other'] }), /azp/],
    ['not a JWT', () => Promise.resolve('garbage'), /not a signed JWT/],
  ];
  for (const [name, token, reason] of refusals) {
    it(`refuses: ${name}`, async () => {
      const result = await verifyIdToken(await token(), jwks, want);
      assert.ok(!result.ok, 'refused');
      assert.equal(result.error.code, 'unauthenticated');
      assert.match(result.error.message, reason);
    });
  }

  it('accepts several audiences when azp is this client', async () => {
    const result = await verifyIdToken(await signed({ ...good, aud: [CLIENT, 'other'], azp: CLIENT }), jwks, want);
    assert.equal(result.ok, true);
  });
});

describe('checkIdToken (claims of a verified token)', () => {
  const header = { alg: 'RS256' };
  const cases: [string, Record<string, unknown>, Record<string, unknown>, Partial<IdTokenExpectations>, string | { email: string | null; emailVerified?: boolean; groups: string[] }][] = [
    ['all good', header, good, {}, { email: 'Ann@Example.com', groups: ['ops', 'dev'] }],
    ['HS512 refused even when verified elsewhere', { alg: 'HS512' }, good, {}, 'algorithm HS512'],
    ['missing alg', {}, good, {}, 'algorithm undefined'],
    ['unverified email is not used', header, { ...good, email_verified: false }, {}, { email: null, emailVerified: false, groups: ['ops', 'dev'] }],
    // The admin-email list matches only an address the provider says it verified (email_verified true).
    ['email_verified absent: the email names the account but is not verified', header, { ...good, email_verified: undefined }, {}, { email: 'Ann@Example.com', emailVerified: false, groups: ['ops', 'dev'] }],
    ['email_verified "true" (a string) is not verified', header, { ...good, email_verified: 'true' }, {}, { email: 'Ann@Example.com', emailVerified: false, groups: ['ops', 'dev'] }],
    ['Entra-style app roles as the groups claim', header, { ...good, roles: ['Capstan.Admin'] }, { groupsClaim: 'roles' }, { email: 'Ann@Example.com', groups: ['Capstan.Admin'] }],
    ['a groups claim that is not a list gives none', header, { ...good, groups: 'ops' }, {}, { email: 'Ann@Example.com', groups: [] }],
    ['non-string groups dropped', header, { ...good, groups: ['ops', 7, ''] }, {}, { email: 'Ann@Example.com', groups: ['ops'] }],
    ['expired within the skew is accepted', header, { ...good, exp: NOW - 30 }, {}, { email: 'Ann@Example.com', groups: ['ops', 'dev'] }],
    ['expired at the skew edge', header, { ...good, exp: NOW - 60 }, {}, 'expired'],
    ['nbf in the future', header, { ...good, nbf: NOW + 120 }, {}, 'nbf'],
    ['aud as a number', header, { ...good, aud: 5 }, {}, 'audience'],
  ];
  for (const [name, h, claims, over, expected] of cases) {
    it(name, () => {
      const verdict = checkIdToken(h, claims, { ...want, ...over });
      if (typeof expected === 'string') {
        assert.ok(!verdict.ok, 'refused');
        assert.match(verdict.reason, new RegExp(expected));
      } else {
        assert.deepEqual(verdict, { ok: true, identity: { subject: 'user-1', emailVerified: true, ...expected } });
      }
    });
  }
});

describe('safeReturnPath (same origin only)', () => {
  const cases: [string | undefined, string][] = [
    [undefined, '/'],
    ['/security?tab=cves', '/security?tab=cves'],
    ['https://evil.example/', '/'],
    ['//evil.example/', '/'],
    ['/\\evil.example/', '/'],
    ['/\t/evil.example', '/'],
    ['relative', '/'],
    ['/a\r\nSet-Cookie: x=1', '/'],
    [`/${'a'.repeat(3000)}`, '/'],
  ];
  for (const [input, expected] of cases) it(`${String(input).slice(0, 40)} -> ${expected}`, () => assert.equal(safeReturnPath(input), expected));
});
