import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
