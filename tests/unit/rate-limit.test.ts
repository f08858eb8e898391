import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientRateKey } from '../../runtime/http/middleware/client-key.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { testApp } from '../support/app.ts';

describe('rate limits per route class', () => {
  it('answers 429 rate_limited with Retry-After past the per-minute allowance, per address before sign-in', async () => {
    const h = await testApp();
    for (let i = 0; i < DEFAULT_RATE_LIMITS.login; i++) {
      assert.equal((await h.call('POST', '/auth/login', { body: { username: `u${i}`, password: 'nope' }, ip: '198.51.100.1' })).status, 401);
    }
    const limited = await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'nope' }, ip: '198.51.100.1' });
    assert.deepEqual([limited.status, limited.body.error], [429, 'rate_limited']);
    assert.equal(limited.headers.get('retry-after'), '2');
    assert.equal((await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'nope' }, ip: '198.51.100.2' })).status, 401, 'another address has its own budget');
    h.clock.advance(2000);
    assert.equal((await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'nope' }, ip: '198.51.100.1' })).status, 401, 'refilled');
  });

  it('counts a signed-in user across addresses, and each class separately', async () => {
    const h = await testApp({ rateLimits: { ...DEFAULT_RATE_LIMITS, write: 3 } });
    const admin = await h.signIn();
    for (let i = 0; i < 3; i++) {
      assert.equal((await h.call('POST', '/activity/retention', { cookie: admin, body: { retention_days: 5 }, ip: `198.51.100.${i + 10}` })).status, 200);
    }
    assert.equal((await h.call('POST', '/activity/retention', { cookie: admin, body: { retention_days: 5 }, ip: '198.51.100.99' })).status, 429);
    assert.equal((await h.call('GET', '/activity/retention', { cookie: admin })).status, 200, 'reads have their own budget');
    assert.equal((await h.call('GET', '/healthz')).status, 200);
  });
});

describe('rate limits per IPv6 /64', () => {
  const keys: [string, string][] = [
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8:aa:1::1', '2001:db8:aa:1::/64'],
    ['2001:db8:aa:1:ffff:ffff:ffff:fffe', '2001:db8:aa:1::/64'],
    ['2001:0DB8:00AA:0001:0000:0000:0000:0001', '2001:db8:aa:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4::/64'],
    ['unknown', 'unknown'],
    ['', ''],
  ];
  for (const [address, key] of keys) it(`keys ${JSON.stringify(address)} as ${JSON.stringify(key)}`, () => assert.equal(clientRateKey(address), key));

  const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n';
  it('SAML login starts from many addresses in one IPv6 /64 share one bucket; another /64 and each IPv4 address have their own', async () => {
    const h = await testApp({ licensing: { tier: 'enterprise', has: () => true } });
    const saved = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: await h.signIn('admin'), body: { public_url: 'https://capstan.example.com', idp_sso_url: 'https://idp.example.com/sso', idp_cert_pem: CERT } });
    assert.equal(saved.status, 200, saved.text);
    const start = (ip: string) => h.call('GET', '/api/agent/auth/saml/login', { ip });
    for (let i = 0; i < DEFAULT_RATE_LIMITS.login; i++) {
      // A client rotating its interface identifier inside its /64 (each address used once).
      const res = await start(`2001:db8:aa:1:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`);
      assert.equal(res.status, 302, res.text);
    }
    const limited = await start('2001:db8:aa:1:ffff:ffff:ffff:fffe');
    assert.deepEqual([limited.status, limited.body.error], [429, 'rate_limited'], 'the same /64, a fresh address');
    assert.equal((await start('2001:0DB8:00AA:0001:0:0:0:1')).status, 429, 'written out in full, upper case: the same /64');
    assert.equal((await start('2001:db8:aa:2::1')).status, 302, 'the next /64 has its own budget');
    assert.equal((await start('198.51.100.7')).status, 302, 'IPv4 stays per address');
    assert.equal((await start('198.51.100.8')).status, 302);
  });
});
