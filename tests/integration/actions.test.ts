// Writes an admin asks for, on the shared control plane: each one is proved by the API server's
// own audit log (dev/localcluster/kwok/audit-policy.yaml records every client write), each is
// refused to a viewer and to a key without workloads:write, and an agent whose RBAC does not
// grant a write neither offers nor attempts it.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { auditLogPath } from '../../dev/localcluster/cluster.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { k, kJson, serviceAccountKubeconfig, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';

const NS = 'it-actions';
const NODE = 'it-actions-node';
const PASSWORD = 'actions-admin-password';
const VIEWER = 'actions-viewer-password';
let agent: RunningAgent;
let admin = '';
let viewer = '';

interface AuditEntry {
  verb: string;
  userAgent: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
  responseStatus?: { code?: number };
}

/** The API server's record of Capstan's writes to one object (its User-Agent): the controllers write too, some as the same admin user. */
function apiServerWrites(resource: string, name: string, namespace?: string): AuditEntry[] {
  return readFileSync(auditLogPath(testCluster().dir), 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"${name}"`))
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => e.userAgent.startsWith('capstan/') && e.objectRef?.resource === resource && e.objectRef.name === name && e.objectRef.namespace === namespace && e.objectRef.subresource === undefined);
}

async function call(method: string, path: string, auth: { cookie?: string; key?: string }, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(auth.key ? { 'x-api-key': auth.key } : { cookie: auth.cookie ?? '' }) };
  const res = await fetch(`${agent.url}/api/agent${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function signIn(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('actions on the cluster', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    await k(['apply', '-f', '-'], [
      'apiVersion: apps/v1',
      'kind: Deployment',
      `metadata: {name: web, namespace: ${NS}}`,
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: web}}',
      '  template:',
      '    metadata: {labels: {app: web}}',
      '    spec: {containers: [{name: web, image: ghcr.io/acme/web:1.0.0}]}',
      '---',
      'apiVersion: v1',
      'kind: Pod',
      `metadata: {name: scratch, namespace: ${NS}}`,
      'spec: {containers: [{name: scratch, image: ghcr.io/acme/scratch:1.0.0}]}',
      '---',
      'apiVersion: v1',
      'kind: Node',
      `metadata: {name: ${NODE}, labels: {type: it-actions}}`,
    ].join('\n'));
    agent = await startTestAgent('actions', { accounts: { adminPassword: PASSWORD, viewerPassword: VIEWER } });
    admin = await signIn(agent.url, 'admin', PASSWORD);
    viewer = await signIn(agent.url, 'viewer', VIEWER);
    await waitFor('the objects in the cache', async () => (await call('GET', `/resources/deployments/web?namespace=${NS}`, { cookie: admin })).status === 200 && (await call('GET', `/resources/nodes/${NODE}`, { cookie: admin })).status === 200, 60_000, 500);
  });

  after(async () => {
    await agent.close();
    await k(['delete', 'node', NODE, '--ignore-not-found', '--wait=false']);
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it("offers what the agent's RBAC grants: everything to a cluster admin", async () => {
    const res = await call('GET', `/actions/allowed?kind=deployments&namespace=${NS}`, { cookie: admin });
    assert.deepEqual(res.body, { restart: true, scale: true, delete: false, cordon: false, uncordon: false });
    assert.deepEqual((await call('GET', '/actions/allowed?kind=nodes', { cookie: admin })).body, { restart: false, scale: false, delete: false, cordon: true, uncordon: true });
  });

  it('restarts and scales a Deployment, as the API server records', async () => {
    const restarted = await call('POST', `/namespaces/${NS}/deployments/web/restart`, { cookie: admin });
    assert.equal(restarted.status, 200);
    const deployment = await kJson<{ spec: { replicas: number; template: { metadata: { annotations?: Record<string, string> } } } }>(['get', 'deployment', 'web', '-n', NS]);
    assert.equal(deployment.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], restarted.body.restarted_at);

    const scaled = await call('POST', `/namespaces/${NS}/deployments/web/scale`, { cookie: admin }, { replicas: 3 });
    assert.deepEqual(scaled.body, { replicas: 3, previous: 2 });
    assert.equal((await kJson<{ spec: { replicas: number } }>(['get', 'deployment', 'web', '-n', NS])).spec.replicas, 3);

    await waitFor('the API server to record both patches', () => Promise.resolve(apiServerWrites('deployments', 'web', NS).filter((e) => e.verb === 'patch' && e.responseStatus?.code === 200).length >= 2), 10_000, 200);
    const rows = (await call('GET', `/admin/audit/events?action=${encodeURIComponent('POST /namespaces/:namespace/deployments/:name/scale')}`, { cookie: admin })).body.events as { category: string; detail: Record<string, string> }[];
    const row = rows[0];
    assert.ok(row);
    assert.equal(row.category, 'write');
    assert.deepEqual([row.detail.replicas_from, row.detail.replicas_to], ['2', '3']);
  });

  it('deletes a pod and cordons, then uncordons, a node', async () => {
    assert.equal((await call('DELETE', `/namespaces/${NS}/pods/scratch`, { cookie: admin })).status, 200);
    await waitFor('the pod to go', async () => (await k(['get', 'pod', 'scratch', '-n', NS, '--ignore-not-found', '-o', 'name'])).trim() === '', 30_000, 500);
    assert.ok(apiServerWrites('pods', 'scratch', NS).some((e) => e.verb === 'delete'));

    assert.deepEqual((await call('POST', `/nodes/${NODE}/cordon`, { cookie: admin })).body, { unschedulable: true });
    assert.equal((await kJson<{ spec: { unschedulable?: boolean } }>(['get', 'node', NODE])).spec.unschedulable, true);
    assert.deepEqual((await call('POST', `/nodes/${NODE}/uncordon`, { cookie: admin })).body, { unschedulable: false });
    assert.equal((await kJson<{ spec: { unschedulable?: boolean } }>(['get', 'node', NODE])).spec.unschedulable ?? false, false);
    assert.equal(apiServerWrites('nodes', NODE).filter((e) => e.verb === 'patch').length, 2);
  });

  it('refuses a viewer, a key without workloads:write, and bad input, writing nothing', async () => {
    const before = apiServerWrites('deployments', 'web', NS).length;
    assert.equal((await call('POST', `/namespaces/${NS}/deployments/web/restart`, { cookie: viewer })).status, 403);
    const readKey = String((await call('POST', '/me/api-keys', { cookie: admin }, { name: 'reader', scopes: ['workloads:read'] })).body.key);
    const scope = await call('POST', `/namespaces/${NS}/deployments/web/scale`, { key: readKey }, { replicas: 1 });
    assert.deepEqual([scope.status, scope.body.error], [403, 'api_key_insufficient_scope']);
    const tooMany = await call('POST', `/namespaces/${NS}/deployments/web/scale`, { cookie: admin }, { replicas: 5000 });
    assert.deepEqual([tooMany.status, tooMany.body.field], [400, 'replicas']);
    assert.equal((await call('POST', `/namespaces/${NS}/deployments/nobody/restart`, { cookie: admin })).status, 404);
    assert.equal((await call('POST', '/namespaces/kube-system/deployments/coredns/restart', { cookie: admin })).status, 403);
    assert.equal(apiServerWrites('deployments', 'web', NS).length, before, 'no write reached the API server');
    const writeKey = String((await call('POST', '/me/api-keys', { cookie: admin }, { name: 'writer', scopes: ['workloads:write'] })).body.key);
    assert.equal((await call('POST', `/namespaces/${NS}/deployments/web/scale`, { key: writeKey }, { replicas: 1 })).status, 200, "an admin's key with the scope may");
  });

  it('an agent whose RBAC grants no write offers none and attempts none', async () => {
    await k(['create', 'serviceaccount', 'reader', '-n', NS]);
    await k(['create', 'clusterrolebinding', 'it-actions-reader', '--clusterrole=view', `--serviceaccount=${NS}:reader`]);
    const limited = await startTestAgent('actions-limited', { kubeconfig: await serviceAccountKubeconfig('reader', NS), accounts: { adminPassword: PASSWORD } });
    try {
      const cookie = await signIn(limited.url, 'admin', PASSWORD);
      const allowed = await fetch(`${limited.url}/api/agent/actions/allowed?kind=deployments&namespace=${NS}`, { headers: { cookie } });
      assert.deepEqual(await allowed.json(), { restart: false, scale: false, delete: false, cordon: false, uncordon: false });
      const before = apiServerWrites('deployments', 'web', NS).length;
      await waitFor('web in the limited cache', async () => (await fetch(`${limited.url}/api/agent/resources/deployments/web?namespace=${NS}`, { headers: { cookie } })).status === 200, 60_000, 500);
      const res = await fetch(`${limited.url}/api/agent/namespaces/${NS}/deployments/web/restart`, { method: 'POST', headers: { cookie } });
      assert.equal(res.status, 403);
      assert.match(((await res.json()) as { message: string }).message, /rbac\.allowWrites/);
      assert.equal(apiServerWrites('deployments', 'web', NS).length, before);
    } finally {
      await limited.close();
      await k(['delete', 'clusterrolebinding', 'it-actions-reader', '--ignore-not-found']);
    }
  });
});
