// Changing one's own password (POST /me/password): the current password proves it is you, the
// new one is at least 8 characters, every other session ends, no key reaches it, and the audit
// row says so without either password.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD, VIEWER_PASSWORD } from '../support/services.ts';

describe('changing your own password', () => {
  it('needs the current password, ends your other sessions, keeps this one, and the new password signs in', async () => {
    const h = await testApp();
    const here = await h.signIn('viewer');
    const elsewhere = await h.signIn('viewer');
    const admin = await h.signIn();
    const changed = await h.call('POST', '/me/password', { cookie: here, body: { current_password: VIEWER_PASSWORD, new_password: 'a brand new passphrase' } });
    assert.deepEqual([changed.status, changed.body], [200, { status: 'changed', other_sessions_ended: 1 }]);
    assert.equal((await h.call('GET', '/me', { cookie: here })).status, 200, 'this session stays');
    assert.equal((await h.call('GET', '/me', { cookie: elsewhere })).status, 401, 'the other one ended');
    assert.equal((await h.call('GET', '/me', { cookie: admin })).status, 200, "another user's session is untouched");
    assert.equal((await h.login('viewer', VIEWER_PASSWORD)).status, 401, 'the old password no longer signs in');
    assert.equal((await h.login('viewer', 'a brand new passphrase')).status, 200);
  });

  it('names the field at fault and changes nothing', async () => {
    const h = await testApp();
    const me = await h.signIn();
    const rows: [Record<string, unknown>, string][] = [
      [{ current_password: 'not my password', new_password: 'a brand new passphrase' }, 'current_password'],
      [{ current_password: ADMIN_PASSWORD, new_password: 'short' }, 'new_password'],
      [{ current_password: ADMIN_PASSWORD, new_password: ADMIN_PASSWORD }, 'new_password'],
      [{ new_password: 'a brand new passphrase' }, 'current_password'],
    ];
    for (const [body, field] of rows) {
      const res = await h.call('POST', '/me/password', { cookie: me, body });
      assert.deepEqual([res.status, res.body.error, res.body.field], [400, 'invalid_input', field], JSON.stringify(body));
    }
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200, 'the password is unchanged');
  });

  it('is out of reach of every API key, whatever its scopes', async () => {
    const h = await testApp();
    const me = await h.signIn();
    const key = String((await h.call('POST', '/me/api-keys', { cookie: me, body: { name: 'all', scopes: ['workloads:read', 'workloads:write', 'policy:read'] } })).body.key);
    const res = await h.call('POST', '/me/password', { key, body: { current_password: ADMIN_PASSWORD, new_password: 'a brand new passphrase' } });
    assert.deepEqual([res.status, res.body.error], [403, 'api_key_forbidden']);
    assert.equal((await h.login('admin', ADMIN_PASSWORD)).status, 200);
  });

  it('is audited as an identity change, with neither password in the row', async () => {
    const h = await testApp();
    const me = await h.signIn();
    await h.call('POST', '/me/password', { cookie: me, body: { current_password: 'wrong guess 123', new_password: 'a brand new passphrase' } });
    await h.call('POST', '/me/password', { cookie: me, body: { current_password: ADMIN_PASSWORD, new_password: 'a brand new passphrase' } });
    const events = (await h.call('GET', '/admin/audit/events?action=POST%20/me/password', { cookie: me })).body.events as { category: string; outcome: string; detail: Record<string, string> }[];
    assert.deepEqual(events.map((e) => [e.category, e.outcome]), [['auth', 'success'], ['auth', 'rejected']]);
    const text = JSON.stringify(events);
    assert.doesNotMatch(text, /brand new passphrase|wrong guess|correct horse/);
    assert.equal(events[0]?.detail.other_sessions_ended, '0');
  });
});
