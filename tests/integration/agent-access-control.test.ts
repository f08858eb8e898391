// The identity and access rules over a real agent process and socket. The agent trusts
// X-Forwarded-For from loopback here, so one test can speak as several client addresses.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { totpCodeAt, totpStep } from '../../runtime/auth/totp.ts';
import { silentLogger } from '../../runtime/log.ts';
import { DEFAULT_AUTO_BAN } from '../../runtime/store/setting-defaults.ts';
import { testCluster } from '../support/cluster.ts';

const PASSWORD = 'access-control-admin-password';
let agent: RunningAgent;

async function call(method: string, path: string, opts: { from: string; cookie?: string; key?: string; body?: unknown }) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': opts.from };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.key) headers['x-api-key'] = opts.key;
  const res = await fetch(`${agent.url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

const signIn = async (from: string, username = 'admin', password = PASSWORD, code?: string) =>
  call('POST', '/api/agent/auth/login', { from, body: { username, password, ...(code ? { code } : {}) } });

describe('identity and access on a running agent', () => {
  before(async () => {
    agent = await startAgent({
      kubeconfig: testCluster().kubeconfig,
      listen: '127.0.0.1:0',
      dataDir: mkdtempSync(join(tmpdir(), 'capstan-access-')),
      settings: { tenantNamespaces: [] },
      accounts: { adminPassword: PASSWORD },
      trustedProxyCidrs: '127.0.0.1/32,::1/128',
      validateOutput: true,
      log: silentLogger,
    });
    await agent.ready;
  });
  after(() => agent.close());

  it('bans an address that floods forged session tokens, while wrong passwords from another never do', async () => {
    for (let i = 0; i < 25; i++) await signIn('198.51.100.20', `nobody${i % 5}`, 'wrong password');
    assert.equal((await signIn('198.51.100.20')).status, 200, 'many wrong passwords, still not banned');

    for (let i = 0; i < DEFAULT_AUTO_BAN.threshold; i++) await call('GET', '/api/agent/me', { from: '198.51.100.21', cookie: `capstan_session=forged.${i}` });
    const banned = await signIn('198.51.100.21');
    assert.deepEqual([banned.status, banned.body.error], [403, 'ip_denied']);
    const admin = (await signIn('198.51.100.22')).cookie;
    const bans = (await call('GET', '/api/agent/admin/access-control', { from: '198.51.100.22', cookie: admin })).body.bans as { ip: string }[];
    assert.deepEqual(bans.map((b) => b.ip), ['198.51.100.21']);
  });

  it('refuses a replayed second-factor code and acts at a demoted key owner’s new role at once', async () => {
    const from = '198.51.100.30';
    const admin = (await signIn(from)).cookie;
    await call('POST', '/api/agent/admin/users', { from, cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'admin' } });
    const ops = (await signIn(from, 'ops', 'ops password 1')).cookie;
    const enrol = await call('POST', '/api/agent/me/second-factor/enrol', { from, cookie: ops });
    const secret = decodeBase32IgnorePadding(String(enrol.body.secret));
    const code = () => totpCodeAt(secret, totpStep(new Date()));
    assert.equal((await call('POST', '/api/agent/me/second-factor/confirm', { from, cookie: ops, body: { code: code() } })).status, 200);
    // The confirming code is spent; the next sign-in needs the next window's code.
    const spent = await signIn(from, 'ops', 'ops password 1', code());
    assert.equal(spent.status, 401);
    assert.match(String(spent.body.message), /already used/);

    const key = String((await call('POST', '/api/agent/me/api-keys', { from, cookie: ops, body: { name: 'ci', scopes: ['activity:write'] } })).body.key);
    assert.equal((await call('POST', '/api/agent/activity/retention', { from, key, body: { retention_days: 10 } })).status, 200);
    await call('PATCH', '/api/agent/admin/users/ops', { from, cookie: admin, body: { role: 'viewer' } });
    assert.equal((await call('POST', '/api/agent/activity/retention', { from, key, body: { retention_days: 11 } })).status, 403);
    await call('PATCH', '/api/agent/admin/users/ops', { from, cookie: admin, body: { active: false } });
    assert.equal((await call('POST', '/api/agent/activity/retention', { from, key, body: { retention_days: 12 } })).status, 401);
  });
});
