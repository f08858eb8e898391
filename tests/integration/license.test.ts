// Licensing on a real agent and control plane: an admin installs a Pro key and the Pro-gated
// self-scan stops answering 402, removing it brings the 402 back with {error, feature, upgrade};
// API keys never reach /admin/license; the heartbeat receiver records exactly what arrived.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { fingerprintOf } from '../../runtime/license/fingerprint.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testIssuer } from '../support/license-keys.ts';
import { kJson, testCluster, waitFor } from '../support/cluster.ts';

const PASSWORD = 'license-admin-password';
const HEARTBEAT_MS = 100;
const issuer = testIssuer();
let agent: RunningAgent;
let receiver: Server;
const arrivals: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];

async function call(method: string, path: string, opts: { cookie?: string; key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.key) headers['x-api-key'] = opts.key;
  const res = await fetch(`${agent.url}/api/agent${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

describe('licensing on a running agent', () => {
  before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        arrivals.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    agent = await startAgent({
      kubeconfig: testCluster().kubeconfig,
      listen: '127.0.0.1:0',
      dataDir: mkdtempSync(join(tmpdir(), 'capstan-license-')),
      settings: { tenantNamespaces: [] },
      accounts: { adminPassword: PASSWORD },
      validateOutput: true,
      license: {
        apiUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/license-api`,
        publicKeyPem: issuer.publicKeyPem,
        heartbeatIntervalMs: HEARTBEAT_MS,
        heartbeatJitterMs: 10,
      },
      log: silentLogger,
    });
    await agent.ready;
  });
  after(async () => {
    await agent.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('gates self-scan on the installed key, refuses API keys on /admin/license, and heartbeats only with a key', async () => {
    const admin = (await call('POST', '/auth/login', { body: { username: 'admin', password: PASSWORD } })).cookie;
    const free = await call('GET', '/admin/license', { cookie: admin });
    assert.deepEqual([free.status, free.body.tier, free.body.state, free.body.features], [200, 'free', 'none', ['mcp']]);

    // Absence needs a window: ten heartbeat periods with no key installed, and nothing arrived.
    await new Promise((r) => setTimeout(r, 10 * HEARTBEAT_MS));
    assert.equal(arrivals.length, 0, 'no heartbeat without a license key');

    // The self-scan is the Pro feature self_scan (spec §1); `self` makes POST /security/scan ask for it.
    assert.equal((await call('PUT', '/admin/settings/scanning', { cookie: admin, body: { scanner_source: 'self' } })).status, 200);
    const unlicensed = await call('POST', '/security/scan', { cookie: admin, body: {} });
    assert.equal(unlicensed.status, 402);
    assert.deepEqual([unlicensed.body.error, unlicensed.body.feature, typeof unlicensed.body.upgrade], ['feature_not_licensed', 'self_scan', 'string']);

    const key = issuer.key({ id: 'lic_it_1', tier: 'pro', licensee: 'Integration Test' });
    const installed = await call('PUT', '/admin/license', { cookie: admin, body: { key } });
    assert.deepEqual([installed.status, installed.body.tier, installed.body.state, installed.body.key], [200, 'pro', 'valid', '••••']);
    // Licensed now: what refuses it is the next rule, expert mode (403), not the license.
    const licensed = await call('POST', '/security/scan', { cookie: admin, body: {} });
    assert.deepEqual([licensed.status, licensed.body.error], [403, 'forbidden']);
    assert.match(String(licensed.body.message), /expert mode/);

    const uid = (await kJson<{ metadata: { uid: string } }>(['get', 'namespace', 'kube-system'])).metadata.uid;
    await waitFor('a heartbeat', () => Promise.resolve(arrivals.length > 0), 10_000, 50);
    const [beat] = arrivals;
    assert.ok(beat);
    assert.deepEqual([beat.method, beat.url, beat.headers['content-type']], ['POST', '/license-api/heartbeat', 'application/json']);
    assert.equal(beat.body, JSON.stringify({ fingerprint: fingerprintOf(uid), license_key: key }));

    const minted = await call('POST', '/me/api-keys', { cookie: admin, body: { name: 'ci', scopes: ['workloads:read', 'policy:read'] } });
    assert.equal(minted.status, 200);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await call(method, '/admin/license', { key: String(minted.body.key), body: method === 'PUT' ? { key } : undefined });
      assert.deepEqual([res.status, res.body.error], [403, 'api_key_forbidden'], method);
    }
    assert.equal((await call('GET', '/admin/license', { cookie: admin })).body.state, 'valid', 'the refused DELETE removed nothing');

    const removed = await call('DELETE', '/admin/license', { cookie: admin });
    assert.deepEqual([removed.status, removed.body.tier, removed.body.state], [200, 'free', 'none']);
    const again = await call('POST', '/security/scan', { cookie: admin, body: {} });
    assert.deepEqual([again.status, again.body.error, again.body.feature, typeof again.body.upgrade], [402, 'feature_not_licensed', 'self_scan', 'string']);

    // Once removed, the heartbeat falls silent: a beat already in flight may still land (a
    // second is far more than a loopback POST takes), then ten periods bring nothing more.
    await new Promise((r) => setTimeout(r, 1000));
    const settled = arrivals.length;
    await new Promise((r) => setTimeout(r, 10 * HEARTBEAT_MS));
    assert.equal(arrivals.length, settled, 'no heartbeat after the key is removed');
    assert.ok(arrivals.every((a) => a.body === beat.body), 'every beat carried the same two fields');
  });
});
