// The recovery commands run as real processes against a data dir, as an operator would run
// them with kubectl exec, while the same database is in use by a running app.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

function capstan(args: string[], dataDir: string, stdin = '') {
  const run = spawnSync(process.execPath, ['bin/capstan.js', ...args, '--data-dir', dataDir], { input: stdin, encoding: 'utf8', env: { ...process.env, CAPSTAN_ENCRYPTION_KEY: '' } });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('recovery commands', () => {
  it('recover-admin resets the password, clears the second factor, reactivates, lifts bans and re-enables password sign-in, audited', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'admin' } });
    await h.call('PATCH', '/admin/users/ops', { cookie: admin, body: { active: false } });
    await h.services.db.updateTable('users').set({ totp_enabled: 1, totp_secret: 'v1:lost:device' }).where('username', '=', 'ops').execute();
    await h.services.db.insertInto('ip_bans').values({ ip: '192.0.2.10', reason: 'auth_flood', created_at: 0, expires_at: null }).execute();
    await h.services.settingsStore.set('security', { ...(await h.services.settingsStore.get('security')), local_login: 'off' });

    const run = capstan(['recover-admin', '--username', 'ops', '--password-stdin'], h.services.dataDir, 'brand new password\n');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /recovered admin ops/);
    h.clock.advance(5000); // past the settings and ban caches, as a running agent would be within seconds

    const signedIn = await h.login('ops', 'brand new password');
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal((await h.login('ops', 'brand new password\n')).status, 401, 'the trailing newline from stdin is not part of it');
    const audited = await h.services.db.selectFrom('audit_log').select(['actor', 'action']).where('action', 'like', 'recovery.%').execute();
    assert.deepEqual(audited, [{ actor: 'recovery@local', action: 'recovery.recover_admin' }]);
    assert.equal((await h.call('GET', '/audit/verify-chain', { cookie: signedIn.cookie })).body.intact, true, 'two writers, one chain');
  });

  it('enable-local-login turns password sign-in back on, for admins only with --admin-only', async () => {
    const h = await testApp();
    await h.services.settingsStore.set('security', { ...(await h.services.settingsStore.get('security')), local_login: 'off' });
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 404);
    assert.equal(capstan(['enable-local-login', '--admin-only'], h.services.dataDir).code, 0);
    h.clock.advance(5000);
    assert.equal((await h.login('viewer', 'viewer password 1')).status, 403);
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200);
    assert.equal(capstan(['enable-local-login'], h.services.dataDir).code, 0);
    h.clock.advance(5000);
    assert.equal((await h.login('viewer', 'viewer password 1')).status, 200);
  });

  it('refuses a short password and a password given on the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-recovery-'));
    assert.equal(capstan(['recover-admin', '--username', 'admin'], dir).code, 2);
    const short = capstan(['recover-admin', '--username', 'admin', '--password-stdin'], dir, 'short');
    assert.equal(short.code, 1);
    assert.match(short.err, /at least 8/);
  });
});
