import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import { k, testCluster, waitFor } from '../support/cluster.ts';

const ADMIN_PASSWORD = 'integration-admin-password';
const sessions = new Map<RunningAgent, string>();

/** Signs in as admin over the real socket once per agent; returns the cookie header. */
async function signIn(agent: RunningAgent): Promise<string> {
  const cached = sessions.get(agent);
  if (cached) return cached;
  const res = await fetch(`${agent.url}/api/agent/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  assert.equal(res.status, 200);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  sessions.set(agent, cookie);
  return cookie;
}

async function namespaceNames(agent: RunningAgent, prefix = '/api/agent'): Promise<string[]> {
  const res = await fetch(`${agent.url}${prefix}/namespaces`, { headers: { cookie: await signIn(agent) } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { namespaces: { name: string }[] };
  return body.namespaces.map((n) => n.name);
}

function start(tenantNamespaces: string[]): Promise<RunningAgent> {
  return startAgent({
    kubeconfig: testCluster().kubeconfig,
    listen: '127.0.0.1:0',
    dataDir: mkdtempSync(join(tmpdir(), 'capstan-agent-')),
    settings: { tenantNamespaces },
    accounts: { adminPassword: ADMIN_PASSWORD },
    validateOutput: true,
    log: silentLogger,
  });
}

describe('agent /namespaces against the live cluster', () => {
  let agent: RunningAgent;
  let tenantAgent: RunningAgent;

  before(async () => {
    agent = await start([]);
    tenantAgent = await start(['shop', 'payments', 'kube-system', 'no-such-namespace']);
    await Promise.all([agent.ready, tenantAgent.ready]);
  });

  after(async () => {
    await Promise.all([agent.close(), tenantAgent.close()]);
  });

  it('reports ready only after the informers synced', async () => {
    const res = await fetch(`${agent.url}/readyz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ready', synced: ['namespaces', 'pods', 'nodes', 'events', 'deployments', 'daemonsets', 'services', 'persistentvolumeclaims', 'replicasets', 'statefulsets', 'jobs', 'cronjobs', 'ingresses', 'configmaps', 'secrets', 'persistentvolumes', 'endpointslices', 'ingressclasses', 'storageclasses', 'leases', 'resourcequotas', 'limitranges', 'horizontalpodautoscalers', 'poddisruptionbudgets'], unreadable: [] });
  });

  it('refuses /namespaces without a session', async () => {
    const res = await fetch(`${agent.url}/api/agent/namespaces`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: string }).error, 'unauthenticated');
  });

  it('hides blocklisted system namespaces and shows the rest, at both route prefixes', async () => {
    const names = await namespaceNames(agent);
    for (const hidden of ['kube-system', 'kube-public', 'kube-node-lease', 'monitoring']) assert.ok(!names.includes(hidden), `${hidden} is visible`);
    for (const shown of ['shop', 'payments', 'analytics', 'identity', 'platform', 'default']) assert.ok(names.includes(shown), `${shown} is missing`);
    assert.deepEqual(await namespaceNames(agent, ''), names);
  });

  it('serves /namespaces to an API key with workloads:read over a real socket', async () => {
    const minted = await fetch(`${agent.url}/api/agent/me/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: await signIn(agent) },
      body: JSON.stringify({ name: 'ci', scopes: ['workloads:read'] }),
    });
    assert.equal(minted.status, 200);
    const { key } = (await minted.json()) as { key: string };
    const res = await fetch(`${agent.url}/api/agent/namespaces`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { namespaces: { name: string }[] }).namespaces.map((n) => n.name), await namespaceNames(agent));
  });

  it('restricts to tenantNamespaces without ever unhiding a system namespace', async () => {
    assert.deepEqual(await namespaceNames(tenantAgent), ['payments', 'shop']);
  });

  it('follows namespace creation and deletion through the watch, not a per-request LIST', async () => {
    await k(['create', 'namespace', 'capstan-watch-probe']);
    await waitFor('new namespace to appear', async () => (await namespaceNames(agent)).includes('capstan-watch-probe'), 30_000, 200);
    await k(['delete', 'namespace', 'capstan-watch-probe', '--wait=false']);
    // A deleted namespace goes Terminating first; the namespace controller then removes it.
    await waitFor('deleted namespace to disappear', async () => !(await namespaceNames(agent)).includes('capstan-watch-probe'), 90_000, 500);
  });
});
