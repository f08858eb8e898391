import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { totpCodeAt, totpStep } from '../../runtime/auth/totp.ts';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

/** An enrolled and confirmed admin, plus a way to compute codes as an authenticator app would. */
async function enrolled() {
  const h = await testApp();
  const cookie = await h.signIn();
  const enrol = await h.call('POST', '/me/second-factor/enrol', { cookie });
  assert.equal(enrol.status, 200, enrol.text);
  assert.match(String(enrol.body.otpauth_uri), /^otpauth:\/\/totp\/Capstan:admin\?.*secret=/);
  const secret = decodeBase32IgnorePadding(String(enrol.body.secret));
  const codeAt = (offsetSecs = 0) => totpCodeAt(secret, totpStep(new Date(h.clock.now().getTime() + offsetSecs * 1000)));
  return { ...h, cookie, codeAt };
}

describe('TOTP second factor', () => {
  it('stays inactive until one code confirms it, then sign-in needs a code', async () => {
    const h = await enrolled();
    assert.deepEqual((await h.call('GET', '/me/second-factor', { cookie: h.cookie })).body, { enabled: false, pending: true });
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200, 'an unconfirmed enrolment changes nothing at sign-in');

    const wrong = await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: '000000' === h.codeAt() ? '111111' : '000000' } });
    assert.deepEqual([wrong.status, wrong.body.field], [400, 'code']);
    assert.equal((await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: h.codeAt() } })).status, 200);

    h.clock.advance(30_000);
    const noCode = await h.login('admin', ADMIN_PASSWORD);
    assert.deepEqual([noCode.status, noCode.body.error, noCode.cookie], [401, 'second_factor_required', '']);
    const withCode = await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() });
    assert.equal(withCode.status, 200);
    assert.notEqual(withCode.cookie, '');
  });

  it('refuses a replayed code within its window, and accepts the next window', async () => {
    const h = await enrolled();
    await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: h.codeAt() } });
    h.clock.advance(30_000);
    const code = h.codeAt();
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code })).status, 200);
    const replay = await h.login('admin', ADMIN_PASSWORD, { code });
    assert.equal(replay.status, 401);
    assert.match(String(replay.body.message), /already used/);
    h.clock.advance(30_000);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() })).status, 200);
  });

  it('accepts codes 30 s either side of now and nothing further out', async () => {
    const h = await enrolled();
    await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: h.codeAt() } });
    h.clock.advance(120_000);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt(-60) })).status, 401, 'two steps behind');
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt(-30) })).status, 200, 'one step behind');
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt(30) })).status, 200, 'one step ahead');
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt(90) })).status, 401, 'three steps ahead');
  });

  it('counts wrong codes toward the account lockout', async () => {
    const h = await enrolled();
    await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: h.codeAt() } });
    h.clock.advance(30_000);
    const wrong = h.codeAt() === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: wrong })).status, 401);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: wrong })).status, 429);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() })).status, 429, 'locked even with the right code');
  });

  it('keeps the secret sealed at rest and disables only with a current code', async () => {
    const h = await enrolled();
    await h.call('POST', '/me/second-factor/confirm', { cookie: h.cookie, body: { code: h.codeAt() } });
    const row = await h.services.db.selectFrom('users').select('totp_secret').where('username', '=', 'admin').executeTakeFirstOrThrow();
    assert.match(String(row.totp_secret), /^v1:/);
    h.clock.advance(30_000);
    const bad = await h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: 'abc' } });
    assert.deepEqual([bad.status, bad.body.field], [400, 'code']);
    assert.equal((await h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: h.codeAt() } })).status, 200);
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200);
  });
});
