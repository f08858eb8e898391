// POST /admin/sso/ldap/test binds with a supplied username and password, so without a limit an
// admin session (or a stolen one) could guess directory passwords there at the rate class's pace
// (review defect 8). It shares LDAP sign-in's lockout: the same `ldap:<username>` allowance per
// address, six attempts, then 429 for 15 minutes, counted before the bind. A success gives back
// its own attempt but never clears failures, because the tested configuration is the caller's
// choice (a directory that accepts any password would otherwise reset the count at will).
// The directory is a stand-in here; the real bind is tests/integration/sso-ldap.test.ts's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LdapDirectory } from '../../handlers/sso/service.ts';
import { LOCKOUT_THRESHOLD } from '../../runtime/auth/service.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp } from '../support/app.ts';

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const CONFIG = { url: 'ldaps://ldap.example.com', bind_dn_template: 'uid={username},ou=people,dc=example,dc=com' };
const RIGHT = 'alice password';

async function withDirectory() {
  const h = await testApp({ licensing: enterprise, rateLimits: { ...DEFAULT_RATE_LIMITS, login: 10_000 } });
  const admin = await h.signIn('admin');
  let binds = 0;
  const authenticate: LdapDirectory['authenticate'] = (_config, username, password) => {
    binds++;
    return Promise.resolve(
      password === RIGHT
        ? { ok: true, value: { dn: `uid=${username.trim().toLowerCase()},ou=people,dc=example,dc=com`, subject: 'uuid-alice', email: 'alice@example.com', groups: [] } }
        : { ok: false, error: { code: 'unauthenticated', message: 'wrong username or password' } },
    );
  };
  h.services.ldap.authenticate = authenticate;
  const test = (username: string, password: string) => h.call('POST', '/api/agent/admin/sso/ldap/test', { cookie: admin, body: { config: CONFIG, username, password } });
  const signIn = (username: string, password: string) => h.call('POST', '/api/agent/auth/ldap/login', { body: { username, password } });
  const enable = async () => assert.equal((await h.call('PUT', '/api/agent/admin/sso/ldap', { cookie: admin, body: CONFIG })).status, 200);
  return { h, test, signIn, enable, binds: () => binds };
}

describe('POST /admin/sso/ldap/test: the LDAP sign-in lockout applies', () => {
  it(`locks the username out after ${LOCKOUT_THRESHOLD} wrong passwords (429, even for the right one, with no bind)`, async () => {
    const d = await withDirectory();
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) assert.equal((await d.test('alice', `guess-${i}`)).status, 401, `guess ${i}`);
    const last = await d.test('alice', `guess-${LOCKOUT_THRESHOLD}`);
    assert.deepEqual([last.status, last.body.error], [429, 'locked_out'], last.text);
    assert.ok(Number(last.headers.get('retry-after')) > 0, 'Retry-After, as sign-in answers');
    const binds = d.binds();
    const right = await d.test('alice', RIGHT);
    assert.equal(right.status, 429, 'the right password is refused while locked out');
    // Every spelling the directory binds alike shares the allowance.
    assert.equal((await d.test(' Alice ', RIGHT)).status, 429);
    assert.equal(d.binds(), binds, 'nothing more reached the directory');
    d.h.clock.advance(15 * 60_000 + 1000);
    assert.equal((await d.test('alice', RIGHT)).status, 200, 'after 15 minutes');
  });

  it('shares the allowance with LDAP sign-in, both ways', async () => {
    const d = await withDirectory();
    await d.enable();
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) assert.equal((await d.test('bob', `guess-${i}`)).status, 401);
    assert.equal((await d.signIn('bob', 'one more guess')).status, 429, 'the sixth guess, at sign-in, locks');
    assert.equal((await d.test('bob', RIGHT)).status, 429);

    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) assert.equal((await d.signIn('carol', `guess-${i}`)).status, 401);
    assert.equal((await d.test('carol', 'one more guess')).status, 429, 'the sixth guess, at the test, locks');
  });

  it('a successful test gives back its own attempt but never clears the failures', async () => {
    const d = await withDirectory();
    await d.enable();
    for (let i = 1; i < LOCKOUT_THRESHOLD; i++) assert.equal((await d.signIn('alice', `guess-${i}`)).status, 401);
    const ok = await d.test('alice', RIGHT);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.subject, 'uuid-alice');
    assert.equal((await d.signIn('alice', 'the sixth guess')).status, 429, 'five failures are still counted');
  });

  it('a test that succeeds within the allowance costs nothing', async () => {
    const d = await withDirectory();
    for (let i = 0; i < LOCKOUT_THRESHOLD * 2; i++) assert.equal((await d.test('dave', RIGHT)).status, 200, `test ${i + 1}`);
  });
});
