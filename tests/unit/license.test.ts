// License keys judged: signature, payload and expiry (domain/license/key.ts with the runtime's
// Ed25519 check), and the one tier table.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { judgeKey, readKey, tierInForce } from '../../domain/license/key.ts';
import { TIER_FEATURES, tierHas } from '../../domain/license/tiers.ts';
import { ed25519Check, SHIPPED_PUBLIC_KEY_PEM } from '../../runtime/license/keys.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { LicensedFeature } from '../../schema/access.ts';
import { testIssuer } from '../support/license-keys.ts';

const issuer = testIssuer();
const other = testIssuer();
const check = ed25519Check(issuer.publicKeyPem);
const NOW = new Date('2026-11-21T12:00:00Z');
const good = issuer.key({ tier: 'pro', licensee: 'Example Corp', issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' });

/** A key's payload part replaced by `json`, its signature kept. */
function withPayload(key: string, json: string): string {
  const [prefix, , sig] = key.split('.');
  return `${prefix}.${Buffer.from(json).toString('base64url')}.${sig}`;
}
/** A payload signed by the test issuer as it stands, whatever it claims (the issuer's own mistakes). */
function signedRaw(json: string): string {
  // signLicense takes the typed payload; these rows need payloads the type refuses.
  const input = `capstan1.${Buffer.from(json).toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input), createPrivateKey(issuer.privateKeyPem)).toString('base64url')}`;
}

type Row = [name: string, key: string, at: Date, want: { state: string; tier: string; reason?: RegExp }];
const rows: Row[] = [
  ['a valid Pro key', good, NOW, { state: 'valid', tier: 'pro' }],
  ['a valid Enterprise key', issuer.key({ tier: 'enterprise', issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' }), NOW, { state: 'valid', tier: 'enterprise' }],
  ['the same key once its expiry is reached', good, new Date('2027-01-01T00:00:00Z'), { state: 'expired', tier: 'free', reason: /^expired at 2027-01-01T00:00:00.000Z$/ }],
  ['the same key a second before expiry', good, new Date('2026-12-31T23:59:59Z'), { state: 'valid', tier: 'pro' }],
  ['a tampered payload (tier raised)', withPayload(good, JSON.stringify({ id: 'lic_test_1', tier: 'enterprise', licensee: 'Example Corp', issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' })), NOW, { state: 'invalid', tier: 'free', reason: /signature does not verify/ }],
  ['a tampered payload (expiry extended)', withPayload(good, JSON.stringify({ id: 'lic_test_1', tier: 'pro', licensee: 'Example Corp', issued_at: '2026-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' })), NOW, { state: 'invalid', tier: 'free', reason: /signature does not verify/ }],
  ['a signature cut short', good.slice(0, -4), NOW, { state: 'invalid', tier: 'free', reason: /signature does not verify/ }],
  ['a key signed by another issuer', other.key({ issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' }), NOW, { state: 'invalid', tier: 'free', reason: /wrong signing key/ }],
  ['an unknown tier, properly signed', signedRaw(JSON.stringify({ id: 'x', tier: 'gold', licensee: 'L', issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' })), NOW, { state: 'invalid', tier: 'free', reason: /^unknown tier "gold"/ }],
  ['a missing licensee, properly signed', signedRaw(JSON.stringify({ id: 'x', tier: 'pro', issued_at: '2026-01-01T00:00:00Z', expires_at: '2027-01-01T00:00:00Z' })), NOW, { state: 'invalid', tier: 'free', reason: /payload field licensee/ }],
  ['expiry before issue, properly signed', signedRaw(JSON.stringify({ id: 'x', tier: 'pro', licensee: 'L', issued_at: '2027-01-01T00:00:00Z', expires_at: '2026-01-01T00:00:00Z' })), NOW, { state: 'invalid', tier: 'free', reason: /expires_at is not after issued_at/ }],
  ['a signed payload that is not JSON', signedRaw('not json'), NOW, { state: 'invalid', tier: 'free', reason: /not JSON/ }],
  ['another prefix', good.replace(/^capstan1/, 'capstan2'), NOW, { state: 'invalid', tier: 'free', reason: /^malformed: a license key is capstan1/ }],
  ['two parts', good.split('.').slice(0, 2).join('.'), NOW, { state: 'invalid', tier: 'free', reason: /^malformed/ }],
  ['padding and other characters', `${good}==`, NOW, { state: 'invalid', tier: 'free', reason: /base64url/ }],
  ['an empty string', '', NOW, { state: 'invalid', tier: 'free', reason: /^malformed/ }],
];

describe('license keys', () => {
  for (const [name, key, at, want] of rows) {
    it(name, () => {
      const verdict = judgeKey(readKey(key, check), at);
      assert.equal(verdict.state, want.state);
      assert.equal(tierInForce(verdict), want.tier);
      if (want.reason) assert.match('reason' in verdict ? verdict.reason : '', want.reason);
    });
  }

  it('reads no key as none, the Free tier', () => {
    const verdict = judgeKey(null, NOW);
    assert.deepEqual([verdict.state, tierInForce(verdict)], ['none', 'free']);
  });

  it('refuses every test key under the public key Capstan ships (its private half is not in the repository)', () => {
    const shipped = ed25519Check(SHIPPED_PUBLIC_KEY_PEM);
    assert.equal(readKey(good, shipped).ok, false);
  });

  it('refuses a public key that is not Ed25519', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    assert.throws(() => ed25519Check(rsa), /must be Ed25519, got rsa/);
  });
});

describe('the tier table', () => {
  const want: Record<string, string[]> = {
    free: ['mcp'],
    pro: ['mcp', 'observability', 'copilot', 'self_scan'],
    enterprise: ['mcp', 'observability', 'copilot', 'self_scan', 'sso'],
  };
  for (const [tier, features] of Object.entries(want)) {
    it(`${tier}: ${features.join(', ')}`, () => {
      assert.deepEqual([...TIER_FEATURES[tier as keyof typeof TIER_FEATURES]], features);
      for (const f of LicensedFeature.options) assert.equal(tierHas(tier as keyof typeof TIER_FEATURES, f), features.includes(f), `${tier} ${f}`);
    });
  }
});

describe('docs/licensing.md', () => {
  it('shows the tier table as domain/license/tiers.ts has it', () => {
    const doc = readFileSync(new URL('../../docs/licensing.md', import.meta.url), 'utf8');
    for (const [tier, features] of Object.entries(TIER_FEATURES)) {
      assert.ok(doc.includes(`| ${tier} | ${features.map((f) => `\`${f}\``).join(', ')} |`), `the ${tier} row`);
    }
  });

  it('is right that no /admin/license* route can be reached with an API key (scope null: 403 api_key_forbidden)', () => {
    const license = [...routes, ...rawEndpoints.map((e) => e.route)].filter((r) => r.path.startsWith('/admin/license'));
    assert.deepEqual(license.map((r) => r.method).sort(), ['DELETE', 'GET', 'PUT']);
    for (const r of license) assert.deepEqual([r.access.auth, 'scope' in r.access ? r.access.scope : 'public', 'role' in r.access ? r.access.role : null, r.feature], ['credential', null, 'admin', null]);
  });
});
