// Property-based checks of the credential parsers: 100,000 generated inputs each. None may
// throw, and nothing but a correctly formed, correctly signed credential may be accepted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { mintApiKey, parseApiKey, secretMatches } from '../../runtime/auth/api-key-token.ts';
import { issueSessionToken, verifySessionToken } from '../../runtime/auth/session-token.ts';

const RUNS = 100_000;
const secret = Buffer.alloc(32, 3);
const otherSecret = Buffer.alloc(32, 4);
const issued = issueSessionToken(secret);

/** Strings near the real shapes, so the generators probe the edges rather than only noise. */
const tokenLike = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.tuple(fc.base64String(), fc.base64String()).map(([a, b]) => `${a}.${b}`),
  fc.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)).map(([a, b]) => `${a}.${b}`),
  fc.nat({ max: issued.token.length - 1 }).chain((i) => fc.string({ minLength: 1, maxLength: 1 }).map((ch) => issued.token.slice(0, i) + ch + issued.token.slice(i + 1))),
);

describe('credential parsing properties', () => {
  it('verifySessionToken never throws and accepts only tokens signed with its secret', () => {
    fc.assert(
      fc.property(tokenLike, (token) => {
        const result = verifySessionToken(secret, token);
        if (result.ok) assert.equal(token, issued.token, `accepted a token it never issued: ${JSON.stringify(token)}`);
      }),
      { numRuns: RUNS },
    );
    assert.equal(verifySessionToken(secret, issued.token).ok, true);
    assert.equal(verifySessionToken(otherSecret, issued.token).ok, false);
  });

  it('parseApiKey never throws and parses only the exact capstan_<8 hex>_<32 base32> shape', () => {
    const minted = mintApiKey();
    const keyLike = fc.oneof(
      fc.string(),
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `capstan_${a}_${b}`),
      fc.tuple(fc.stringMatching(/^[0-9a-fA-F]{6,10}$/), fc.stringMatching(/^[a-zA-Z2-9]{30,34}$/)).map(([a, b]) => `capstan_${a}_${b}`),
      fc.nat({ max: minted.key.length - 1 }).map((i) => minted.key.slice(0, i) + minted.key.slice(i + 1)),
    );
    fc.assert(
      fc.property(keyLike, (value) => {
        const parsed = parseApiKey(value);
        if (parsed) {
          assert.match(value, /^capstan_[0-9a-f]{8}_[a-z2-7]{32}$/);
          assert.equal(value, `capstan_${parsed.prefix}_${parsed.secret}`);
          // A well-formed key that is not the minted one never matches the minted hash.
          if (value !== minted.key) assert.equal(secretMatches(parsed.secret, minted.secretHash), false);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

it('rejects a second spelling of a valid session MAC (base64url trailing bits)', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = issued.token.at(-1) ?? 'A';
  // The last of 43 characters encodes 4 bits; its low 2 bits are ignored on decoding.
  const index = alphabet.indexOf(last);
  const twin = alphabet[index ^ 1] ?? 'A';
  const respelled = issued.token.slice(0, -1) + twin;
  assert.deepEqual(Buffer.from(respelled.split('.')[1] ?? '', 'base64url'), Buffer.from(issued.token.split('.')[1] ?? '', 'base64url'));
  assert.deepEqual(verifySessionToken(secret, respelled), { ok: false, reason: 'forged' });
});
