// Admin → License over the in-process app with the production chain: install, lapse and
// removal change what a licensed route answers at once; API keys and viewers never reach it;
// the key is sealed at rest and masked on read; a removed install key stays removed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { LicenseManager } from '../../runtime/license/license.ts';
import { ed25519Check } from '../../runtime/license/keys.ts';
import { createApp } from '../../runtime/http/app.ts';
import { defineRoute } from '../../handlers/route.ts';
import { silentLogger, type Logger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { testIssuer } from '../support/license-keys.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

const issuer = testIssuer();
const HOUR = 3600 * 1000;

/** A route behind a Pro feature, as the observability routes will declare it. */
const proRoute = defineRoute({
  method: 'GET',
  path: '/observability/license-demo',
  summary: 'a route behind the observability feature',
  input: v.object({}),
  output: v.object({ ok: v.boolean() }),
  access: { auth: 'credential', role: 'viewer', scope: null },
  audit: 'http',
  rateLimit: 'read',
  feature: 'observability',
  handler: () => ok({ ok: true }),
});

async function setup(installKey: string | null = null) {
  const clock = new ManualClock();
  const services = await testServices({ clock, license: { installKey, publicKeyPem: issuer.publicKeyPem } });
  const app = createApp({ routes: [...routes, proRoute], rawEndpoints, services, middleware: services.middleware, validateOutput: true, log: silentLogger });
  const call = async (method: string, path: string, opts: { cookie?: string; key?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.key) headers['x-api-key'] = opts.key;
    const res = await app.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
  };
  const signIn = async (username: string, password: string) => (await call('POST', '/auth/login', { body: { username, password } })).cookie;
  const admin = await signIn('admin', ADMIN_PASSWORD);
  return { clock, services, call, admin, viewer: await signIn('viewer', VIEWER_PASSWORD) };
}

describe('Admin → License', () => {
  it('starts Free with no key, and a Pro key installed by an admin lifts the 402 at once', async () => {
    const { clock, services, call, admin, viewer } = await setup();
    const none = await call('GET', '/admin/license', { cookie: admin });
    assert.deepEqual(none.body, { tier: 'free', state: 'none', reason: null, key_tier: null, licensee: null, id: null, issued_at: null, expires_at: null, key: null, source: null, features: ['mcp'] });
    const refused = await call('GET', '/observability/license-demo', { cookie: viewer });
    assert.equal(refused.status, 402);
    assert.deepEqual([refused.body.error, refused.body.feature, typeof refused.body.upgrade], ['feature_not_licensed', 'observability', 'string']);

    const key = issuer.key({ id: 'lic_42', tier: 'pro', licensee: 'Example Corp', issued_at: '2026-11-01T00:00:00.000Z', expires_at: '2027-11-01T00:00:00.000Z' }, clock.now());
    const installed = await call('PUT', '/admin/license', { cookie: admin, body: { key } });
    assert.equal(installed.status, 200);
    assert.deepEqual(installed.body, {
      tier: 'pro',
      state: 'valid',
      reason: null,
      key_tier: 'pro',
      licensee: 'Example Corp',
      id: 'lic_42',
      issued_at: '2026-11-01T00:00:00.000Z',
      expires_at: '2027-11-01T00:00:00.000Z',
      key: '••••',
      source: 'admin',
      features: ['mcp', 'observability', 'copilot', 'self_scan'],
    });
    assert.equal((await call('GET', '/observability/license-demo', { cookie: viewer })).status, 200);
    assert.equal(services.licensing.tier, 'pro');
    assert.equal(services.licensing.has('self_scan'), true);
    assert.equal(services.licensing.has('sso'), false);

    const stored = await services.db.selectFrom('settings').select('value').where('key', '=', 'license').executeTakeFirstOrThrow();
    assert.ok(!stored.value.includes(key.split('.')[1] ?? 'x'), 'the key is sealed at rest, not stored as typed');
    const audit = await services.db.selectFrom('audit_log').select(['category', 'outcome', 'detail']).where('action', '=', 'PUT /admin/license').executeTakeFirstOrThrow();
    assert.deepEqual([audit.category, audit.outcome], ['auth', 'success']);
    const detail = JSON.parse(audit.detail) as Record<string, unknown>;
    assert.deepEqual([detail.license_id, detail.tier], ['lic_42', 'pro']);
    assert.ok(!audit.detail.includes(key), 'the audit row names the key, never carries it');

    const removed = await call('DELETE', '/admin/license', { cookie: admin });
    assert.deepEqual([removed.status, removed.body.tier, removed.body.state], [200, 'free', 'none']);
    const again = await call('GET', '/observability/license-demo', { cookie: viewer });
    assert.deepEqual([again.status, again.body.error, again.body.feature], [402, 'feature_not_licensed', 'observability']);
  });

  it('falls back to Free the moment an installed key expires, and says why', async () => {
    const { clock, call, admin, viewer } = await setup();
    const now = clock.now();
    const key = issuer.key({ issued_at: new Date(now.getTime() - HOUR).toISOString(), expires_at: new Date(now.getTime() + HOUR).toISOString() });
    assert.equal((await call('PUT', '/admin/license', { cookie: admin, body: { key } })).status, 200);
    assert.equal((await call('GET', '/observability/license-demo', { cookie: viewer })).status, 200);
    clock.advance(HOUR);
    const view = await call('GET', '/admin/license', { cookie: admin });
    assert.deepEqual([view.body.tier, view.body.state, view.body.key_tier, view.body.reason], ['free', 'expired', 'pro', `expired at ${new Date(now.getTime() + HOUR).toISOString()}`]);
    assert.equal((await call('GET', '/observability/license-demo', { cookie: viewer })).status, 402);
  });

  it('refuses an invalid or expired key with 400 naming key, leaving the license in force', async () => {
    const { clock, call, admin } = await setup();
    const good = issuer.key({ id: 'lic_good' }, clock.now());
    await call('PUT', '/admin/license', { cookie: admin, body: { key: good } });
    const now = clock.now().getTime();
    const cases: [string, string, RegExp][] = [
      ['another issuer', testIssuer().key({}, clock.now()), /signature does not verify/],
      ['expired', issuer.key({ issued_at: new Date(now - 2 * HOUR).toISOString(), expires_at: new Date(now - HOUR).toISOString() }), /expired at/],
      ['garbage', 'not-a-key', /malformed/],
    ];
    for (const [name, key, reason] of cases) {
      const res = await call('PUT', '/admin/license', { cookie: admin, body: { key } });
      assert.deepEqual([res.status, res.body.error, res.body.field], [400, 'invalid_input', 'key'], name);
      assert.match(String(res.body.message), reason, name);
    }
    const empty = await call('PUT', '/admin/license', { cookie: admin, body: { key: '   ' } });
    assert.deepEqual([empty.status, empty.body.field], [400, 'key']);
    const view = await call('GET', '/admin/license', { cookie: admin });
    assert.deepEqual([view.body.state, view.body.id], ['valid', 'lic_good']);
  });

  it('is never reachable with an API key (403 api_key_forbidden), nor by a viewer', async () => {
    const { call, admin, viewer } = await setup();
    const minted = await call('POST', '/me/api-keys', { cookie: admin, body: { name: 'ci', scopes: ['workloads:read', 'policy:read', 'activity:write'] } });
    const key = String(minted.body.key);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await call(method, '/admin/license', { key, body: method === 'PUT' ? { key: issuer.key() } : undefined });
      assert.deepEqual([res.status, res.body.error], [403, 'api_key_forbidden'], method);
      assert.equal((await call(method, '/admin/license', { cookie: viewer, body: method === 'PUT' ? { key: issuer.key() } : undefined })).status, 403, `${method} as viewer`);
    }
  });

  it('puts the install key in force, and a removed install key stays removed across a restart until the chart supplies another', async () => {
    const installKey = issuer.key({ id: 'lic_install', tier: 'enterprise' });
    const { clock, services, call, admin } = await setup(installKey);
    const view = await call('GET', '/admin/license', { cookie: admin });
    assert.deepEqual([view.body.tier, view.body.source, view.body.id], ['enterprise', 'install', 'lic_install']);
    assert.equal(services.licensing.has('sso'), true);
    await call('DELETE', '/admin/license', { cookie: admin });

    // A restart: a new manager over the same database and at-rest key.
    const restart = async (key: string | null) => {
      const manager = new LicenseManager({ check: ed25519Check(issuer.publicKeyPem), clock, installKey: key, settings: services.settingsStore, secrets: services.secrets, log: silentLogger });
      await manager.load();
      return manager.current();
    };
    assert.equal((await restart(installKey)).verdict.state, 'none');
    const other = issuer.key({ id: 'lic_install_2' });
    const renewed = await restart(other);
    assert.deepEqual([renewed.verdict.state, renewed.source], ['valid', 'install']);

    // An admin's key wins over the install key, and survives the restart.
    await call('PUT', '/admin/license', { cookie: admin, body: { key: issuer.key({ id: 'lic_admin' }) } });
    const after = await restart(other);
    assert.deepEqual([after.source, after.verdict.state === 'valid' ? after.verdict.payload.id : null], ['admin', 'lic_admin']);
  });

  it('logs a bad install key once with its reason, and runs Free', async () => {
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const log: Logger = {
      info: (message, fields = {}) => lines.push({ level: 'info', message, fields }),
      warn: (message, fields = {}) => lines.push({ level: 'warn', message, fields }),
      error: (message, fields = {}) => lines.push({ level: 'error', message, fields }),
      child: () => log,
    };
    const services = await testServices({ license: { installKey: 'capstan1.bm9wZQ.c2ln', publicKeyPem: issuer.publicKeyPem } });
    const manager = new LicenseManager({ check: ed25519Check(issuer.publicKeyPem), clock: services.clock, installKey: 'capstan1.bm9wZQ.c2ln', settings: services.settingsStore, secrets: services.secrets, log });
    await manager.load();
    for (let i = 0; i < 3; i++) assert.equal(manager.has('observability'), false);
    assert.equal(manager.tier, 'free');
    assert.deepEqual(lines.map((l) => [l.level, l.fields.state, l.fields.reason]), [['warn', 'invalid', manager.current().verdict.state === 'invalid' ? (manager.current().verdict as { reason: string }).reason : '']]);
    assert.match(String(lines[0]?.fields.reason), /signature does not verify/);
  });
});
