import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IpGuard } from '../../runtime/ip-guard/ip-guard.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { DEFAULT_AUTO_BAN } from '../../runtime/store/setting-defaults.ts';
import { testApp } from '../support/app.ts';

const FLOODER = '203.0.113.66';
const NEIGHBOUR = '203.0.113.67';

describe('IP access layer', () => {
  it('bans an address that floods forged session tokens, durably, and nobody else', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    for (let i = 0; i < DEFAULT_AUTO_BAN.threshold - 1; i++) {
      const forged = `${'A'.repeat(43)}.${String(i).padStart(43, 'B')}`;
      assert.equal((await h.call('GET', '/me', { cookie: forged, ip: FLOODER })).status, 401);
    }
    assert.equal((await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'x' }, ip: FLOODER })).status, 401, 'one short of the threshold: not banned yet');
    await h.call('GET', '/me', { cookie: 'not-even-a-token', ip: FLOODER });
    const banned = await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'x' }, ip: FLOODER });
    assert.deepEqual([banned.status, banned.body.error], [403, 'ip_denied']);
    assert.equal((await h.call('GET', '/me', { cookie: admin, ip: NEIGHBOUR })).status, 200);
    assert.equal((await h.call('GET', '/healthz', { ip: FLOODER })).status, 200, 'probes are never refused');

    const view = await h.call('GET', '/admin/access-control', { cookie: admin });
    assert.deepEqual((view.body.bans as { ip: string; reason: string }[]).map((b) => [b.ip, b.reason]), [[FLOODER, 'auth_flood']]);
    const audited = await h.services.db.selectFrom('audit_log').select(['action', 'severity']).where('action', '=', 'ip.auto_ban').execute();
    assert.deepEqual(audited, [{ action: 'ip.auto_ban', severity: 'critical' }]);

    const restarted = new IpGuard(h.services.db, h.clock, h.services.settingsStore, h.services.audit);
    assert.deepEqual(await restarted.admit(FLOODER), { ok: false, reason: 'banned' }, 'the ban survives a restart');
    assert.equal((await h.call('DELETE', `/admin/access-control/bans/${FLOODER}`, { cookie: admin })).status, 200);
    assert.equal((await h.call('GET', '/me', { cookie: admin, ip: FLOODER })).status, 200);
  });

  it('never bans for wrong passwords, missing cookies or expired sessions', async () => {
    const h = await testApp({ rateLimits: { ...DEFAULT_RATE_LIMITS, login: 1000 } });
    for (let i = 0; i < 40; i++) await h.call('POST', '/auth/login', { body: { username: `user${i % 8}`, password: 'wrong' }, ip: FLOODER });
    for (let i = 0; i < 40; i++) await h.call('GET', '/me', { ip: FLOODER });
    const sessions: string[] = [];
    for (let i = 0; i < 25; i++) sessions.push((await h.login('viewer', 'viewer password 1', { ip: FLOODER })).cookie);
    h.clock.advance(9 * 3600_000);
    assert.ok(sessions.every((s) => s !== ''));
    for (const cookie of sessions) assert.equal((await h.call('GET', '/me', { cookie, ip: FLOODER })).status, 401);
    assert.equal((await h.login('admin', 'correct horse battery staple', { ip: FLOODER })).status, 200);
    assert.deepEqual(await h.services.ipBans.list(), []);
  });

  it('bans for forged API keys too, and lifts expired bans by themselves', async () => {
    const h = await testApp();
    for (let i = 0; i < DEFAULT_AUTO_BAN.threshold; i++) await h.call('GET', '/namespaces', { key: `capstan_${String(i).padStart(8, '0')}_${'a'.repeat(32)}`, ip: FLOODER });
    assert.equal((await h.call('GET', '/namespaces', { ip: FLOODER })).status, 403);
    h.clock.advance(DEFAULT_AUTO_BAN.ban_secs * 1000 + 1);
    assert.equal((await h.call('GET', '/namespaces', { ip: FLOODER })).status, 401, 'ban expired: back to asking for a credential');
  });

  it('applies the allowlist and denylist, and refuses a list that would lock the admin out', async () => {
    const h = await testApp();
    const admin = await h.signIn();
    const lockout = await h.call('PUT', '/admin/access-control', { cookie: admin, body: { allowlist: ['10.0.0.0/8'] } });
    assert.deepEqual([lockout.status, lockout.body.field], [400, 'allowlist']);
    const self = await h.call('PUT', '/admin/access-control', { cookie: admin, body: { denylist: ['192.0.2.0/24'] } });
    assert.deepEqual([self.status, self.body.field], [400, 'denylist']);
    const bad = await h.call('PUT', '/admin/access-control', { cookie: admin, body: { denylist: ['300.1.1.1'] } });
    assert.deepEqual([bad.status, bad.body.field], [400, 'denylist']);

    const ok = await h.call('PUT', '/admin/access-control', { cookie: admin, body: { allowlist: ['192.0.2.0/24', '2001:db8::/32'], denylist: ['192.0.2.99'] } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'x' }, ip: '198.51.100.1' })).body.error, 'ip_denied');
    assert.equal((await h.call('POST', '/auth/login', { body: { username: 'admin', password: 'x' }, ip: '192.0.2.99' })).body.error, 'ip_denied');
    assert.equal((await h.call('GET', '/me', { cookie: admin, ip: '2001:db8::5' })).status, 200);
    assert.equal((await h.call('GET', '/me', { cookie: admin, ip: '::ffff:192.0.2.10' })).status, 200, 'IPv4-mapped peers are matched as IPv4');
  });

  it('takes the client address from X-Forwarded-For only through a trusted proxy', async () => {
    const h = await testApp({ trustedProxies: '10.0.0.1' });
    const admin = await h.signIn();
    assert.equal((await h.call('PUT', '/admin/access-control', { cookie: admin, body: { denylist: ['198.51.100.7'] } })).status, 200);
    const viaProxy = await h.call('GET', '/me', { cookie: admin, ip: '10.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' } });
    assert.equal(viaProxy.status, 403);
    const spoofed = await h.call('GET', '/me', { cookie: admin, ip: '192.0.2.10', headers: { 'x-forwarded-for': '1.2.3.4' } });
    assert.equal(spoofed.status, 200);
  });
});
