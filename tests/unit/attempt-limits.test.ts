// Guess limits under concurrency: the sign-in lockout (password and second-factor code) and
// the limit on wrong codes when turning the second factor off. Each burst is held at a gate
// (the password or code check, or the door of the disable service) until every request has
// reached it or been answered: the attacker's best case, every guess in flight before any
// verdict, so no outcome here depends on how the event loop interleaves the requests.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { LOCKOUT_THRESHOLD } from '../../runtime/auth/service.ts';
import { DISABLE_ATTEMPT_LIMIT } from '../../runtime/auth/second-factor.ts';
import { totpCodeAt, totpStep } from '../../runtime/auth/totp.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { testApp, type Answer } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

const BURST = 30;

/**
 * Wraps `fn` so that every call is counted and then waits until `open()` is called. The
 * burst opens the gate once each of its requests has reached the check or been answered.
 */
function gated<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  let calls = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrapped = async (...args: A): Promise<R> => {
    calls++;
    await gate;
    return fn(...args);
  };
  return { wrapped, calls: () => calls, open: () => release() };
}

/** Sends `BURST` requests at once; opens the gate when every one is at the check or answered. */
async function burst(send: (i: number) => Promise<Answer>, check: { calls: () => number; open: () => void }): Promise<Answer[]> {
  let answered = 0;
  const pending = Array.from({ length: BURST }, (_, i) =>
    send(i).then((a) => {
      answered++;
      return a;
    }),
  );
  // Poll on the event loop (never on wall-clock time) until nothing can move without the gate.
  while (answered + check.calls() < BURST) await new Promise((resolve) => setImmediate(resolve));
  check.open();
  return Promise.all(pending);
}

async function enrolledAdmin() {
  const h = await testApp({ rateLimits: { ...DEFAULT_RATE_LIMITS, login: 10_000 } });
  const cookie = await h.signIn();
  const enrol = await h.call('POST', '/me/second-factor/enrol', { cookie });
  const secret = decodeBase32IgnorePadding(String(enrol.body.secret));
  const codeAt = (offsetSecs = 0) => totpCodeAt(secret, totpStep(new Date(h.clock.now().getTime() + offsetSecs * 1000)));
  assert.equal((await h.call('POST', '/me/second-factor/confirm', { cookie, body: { code: codeAt() } })).status, 200);
  h.clock.advance(30_000);
  const wrongCode = (i: number) => {
    const code = String(100000 + i * 7919).slice(0, 6);
    return [codeAt(-30), codeAt(), codeAt(30)].includes(code) ? String(999999 - i) : code;
  };
  const factorEnabled = async () => (await h.services.db.selectFrom('users').select('totp_enabled').where('username', '=', 'admin').executeTakeFirstOrThrow()).totp_enabled === 1;
  return { ...h, cookie, codeAt, wrongCode, factorEnabled };
}

describe('attempt limits under concurrency', () => {
  it(`checks at most ${LOCKOUT_THRESHOLD} passwords of ${BURST} parallel sign-ins, and the lock holds afterwards`, async () => {
    const h = await testApp({ rateLimits: { ...DEFAULT_RATE_LIMITS, login: 10_000 } });
    const check = gated(h.services.auth.checkPassword.bind(h.services.auth));
    h.services.auth.checkPassword = check.wrapped;
    const right = randomInt(BURST);

    const answers = await burst((i) => h.login('admin', i === right ? ADMIN_PASSWORD : `wrong-${i}`), check);

    assert.ok(check.calls() <= LOCKOUT_THRESHOLD, `${check.calls()} passwords were checked (right one at position ${right})`);
    assert.ok(answers.filter((a) => a.status === 429).length >= BURST - check.calls(), 'every attempt not checked was refused as locked out');
    assert.ok(answers.filter((a) => a.status === 200).length <= 1);
    const after = await h.login('admin', ADMIN_PASSWORD);
    assert.equal(after.status, 429, 'the lock holds, even if the right password was among the attempts checked');
  });

  it(`checks at most ${LOCKOUT_THRESHOLD} second-factor codes of ${BURST} parallel sign-ins with the right password`, async () => {
    const h = await enrolledAdmin();
    const verify = gated(h.services.secondFactor.verify.bind(h.services.secondFactor));
    h.services.secondFactor.verify = verify.wrapped;
    const right = randomInt(BURST);

    const answers = await burst((i) => h.login('admin', ADMIN_PASSWORD, { code: i === right ? h.codeAt() : h.wrongCode(i) }), verify);

    assert.ok(verify.calls() <= LOCKOUT_THRESHOLD, `${verify.calls()} codes were verified (right one at position ${right})`);
    assert.ok(answers.filter((a) => a.status === 200).length <= 1);
    h.clock.advance(30_000);
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() })).status, 429, 'the lock holds for a fresh right code too');
  });

  it('gives back an attempt that guessed nothing wrong, and a success within the allowance clears the count', async () => {
    const h = await enrolledAdmin();
    for (let i = 1; i < LOCKOUT_THRESHOLD - 1; i++) assert.equal((await h.login('admin', `wrong-${i}`)).status, 401, `attempt ${i}`);
    // The right password still waiting for its code is not a failure, however often it is sent.
    for (let i = 0; i < 3; i++) assert.equal((await h.login('admin', ADMIN_PASSWORD)).body.error, 'second_factor_required');
    assert.equal((await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() })).status, 200, 'the fifth counted attempt, and right');
    h.clock.advance(30_000);
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) assert.equal((await h.login('admin', `wrong-again-${i}`)).status, 401, `after the success, attempt ${i}`);
  });

  it(`verifies at most ${DISABLE_ATTEMPT_LIMIT} of ${BURST} parallel codes to turn the second factor off, and ends the session`, async () => {
    const h = await enrolledAdmin();
    // Each verification opens the sealed TOTP secret once: count those.
    const open = h.services.secrets.open.bind(h.services.secrets);
    let verifications = 0;
    h.services.secrets.open = (sealed) => {
      verifications++;
      return open(sealed);
    };
    // Hold every request at the door of the service, so all of them are inside before any verifies.
    const disable = gated(h.services.secondFactor.disable.bind(h.services.secondFactor));
    h.services.secondFactor.disable = disable.wrapped;
    const right = randomInt(BURST);

    const answers = await burst((i) => h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: i === right ? h.codeAt() : h.wrongCode(i) } }), disable);

    assert.ok(verifications <= DISABLE_ATTEMPT_LIMIT, `${verifications} codes were verified (right one at position ${right})`);
    const disabled = answers.some((a) => a.status === 200);
    assert.equal(await h.factorEnabled(), !disabled);
    assert.equal((await h.call('GET', '/me', { cookie: h.cookie })).status, 401, 'the session that kept guessing is ended');
  });

  it(`ends the session after ${DISABLE_ATTEMPT_LIMIT} wrong codes to turn the second factor off, audits it, and a fresh sign-in may try again`, async () => {
    const h = await enrolledAdmin();
    for (let i = 1; i < DISABLE_ATTEMPT_LIMIT; i++) {
      const wrong = await h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: h.wrongCode(i) } });
      assert.deepEqual([wrong.status, wrong.body.field], [400, 'code'], `attempt ${i}`);
    }
    const last = await h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: h.wrongCode(DISABLE_ATTEMPT_LIMIT) } });
    assert.deepEqual([last.status, last.body.error], [401, 'unauthenticated']);
    assert.equal((await h.call('GET', '/me', { cookie: h.cookie })).status, 401, 'the session is ended');
    const right = await h.call('POST', '/me/second-factor/disable', { cookie: h.cookie, body: { code: h.codeAt() } });
    assert.equal(right.status, 401);
    assert.equal(await h.factorEnabled(), true, 'the right code on the ended session changes nothing');

    const audited = await h.services.db.selectFrom('audit_log').select(['action', 'status', 'detail']).where('action', '=', 'POST /me/second-factor/disable').where('status', '=', 401).execute();
    assert.ok(audited.some((row) => /session_revoked/.test(row.detail)), JSON.stringify(audited));

    const again = await h.login('admin', ADMIN_PASSWORD, { code: h.codeAt() });
    assert.equal(again.status, 200);
    h.clock.advance(30_000);
    assert.equal((await h.call('POST', '/me/second-factor/disable', { cookie: again.cookie, body: { code: h.codeAt() } })).status, 200, 'a fresh sign-in with a code may try again');
    assert.equal(await h.factorEnabled(), false);
  });
});
