// Agent behaviour under faults: with the kube-apiserver down, the agent keeps answering from
// its informer cache and marks the answers stale; when the API server returns it relists
// and recovers by itself. Runs on its own small cluster, so the shared one is never stopped.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startAgent } from '../../runtime/agent.ts';
import { STALE_HEADER } from '../../runtime/http/app.ts';
import { down, startApiServer, status, stopApiServer, up } from '../../dev/localcluster/cluster.ts';
import { kubectl } from '../../dev/localcluster/kubectl.ts';
import { silentLogger } from '../../runtime/log.ts';
import { waitFor } from '../support/cluster.ts';

const PASSWORD = 'outage-admin-password';

const MANIFESTS = `
apiVersion: v1
kind: Namespace
metadata:
  name: outage-shop
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: outage-shop
spec:
  nodeName: kwok-node-1
  automountServiceAccountToken: false
  containers:
    - { name: web, image: nginx:1.27 }
`;

interface Answer {
  status: number;
  stale: string | null;
  body: unknown;
}

describe('agent with the API server down', () => {
  it('serves the cache marked stale, stays ready, and recovers when the API server returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-outage-'));
    try {
      const cluster = await up({ dir, nodes: 1, metricsServer: false });
      const k = (args: string[], input?: string) => kubectl(args, { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir, input });
      // The namespace's default ServiceAccount may lag a moment behind it: retry the pod.
      await waitFor('the test namespace and pod', async () => (await k(['apply', '-f', '-'], MANIFESTS)).includes('pod/web'), 60_000);

      const agent = await startAgent({
        kubeconfig: cluster.kubeconfig,
        listen: '127.0.0.1:0',
        dataDir: join(dir, 'agent'),
        settings: { tenantNamespaces: [] },
        accounts: { adminPassword: PASSWORD },
        validateOutput: true,
        log: silentLogger,
      });
      try {
        await agent.ready;
        const login = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
        assert.equal(login.status, 200);
        const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
        const get = async (path: string): Promise<Answer> => {
          const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie } });
          return { status: res.status, stale: res.headers.get(STALE_HEADER), body: await res.json() };
        };
        const names = (a: Answer) => (a.body as { namespaces: { name: string }[] }).namespaces.map((n) => n.name);
        const podNames = (a: Answer) => (a.body as { pods: { name: string }[] }).pods.map((p) => p.name);

        let pods: Answer = await get('/namespaces/outage-shop/pods');
        await waitFor('the pod in the cache', async () => {
          pods = await get('/namespaces/outage-shop/pods');
          return podNames(pods).includes('web');
        }, 30_000, 500);
        const before = await get('/namespaces');
        assert.equal(before.status, 200);
        assert.equal(before.stale, null);
        assert.ok(names(before).includes('outage-shop'), JSON.stringify(before.body));

        const stoppedAt = Date.now();
        await stopApiServer(dir);
        assert.equal(status(dir).find((c) => c.component === 'kube-apiserver')?.alive, false);

        let during: Answer = before;
        await waitFor('a stale mark on /namespaces', async () => {
          during = await get('/namespaces');
          return during.stale !== null;
        }, 30_000, 500);
        assert.equal(during.status, 200);
        assert.deepEqual(during.body, before.body, 'the cache answers with the same data');
        const since = Date.parse(during.stale ?? '');
        assert.ok(Number.isFinite(since) && since >= stoppedAt - 1000 && since <= Date.now(), `stale since ${String(during.stale)}`);

        // Retries keep failing: the mark keeps the time of the first failure, the data stays put.
        await new Promise((r) => setTimeout(r, 3000));
        const later = await get('/namespaces');
        assert.equal(later.status, 200);
        assert.equal(later.stale, during.stale);
        assert.deepEqual(later.body, before.body);

        const podsDuring = await get('/namespaces/outage-shop/pods');
        assert.equal(podsDuring.status, 200);
        assert.notEqual(podsDuring.stale, null);
        assert.deepEqual(podNames(podsDuring), podNames(pods));
        const ready = await get('/readyz');
        assert.equal(ready.status, 200, 'the cache stays ready');
        assert.notEqual(ready.stale, null);
        // Errors carry the mark too.
        const missing = await get('/no-such-route');
        assert.equal(missing.status, 404);
        assert.notEqual(missing.stale, null);

        await startApiServer(dir);
        await k(['create', 'namespace', 'outage-after']);
        let after: Answer = during;
        await waitFor('the new namespace, without a stale mark', async () => {
          after = await get('/namespaces');
          return after.stale === null && names(after).includes('outage-after');
        }, 60_000, 500).catch((err: unknown) => assert.fail(`${String(err)}\nlast answer: ${JSON.stringify({ stale: after.stale, names: names(after) })}`));
        assert.equal(after.status, 200);
        assert.equal((await get('/readyz')).stale, null);
      } finally {
        await agent.close();
      }
    } finally {
      await down(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
