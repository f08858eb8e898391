import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { down, status, up } from '../../dev/localcluster/cluster.ts';
import { kubectl } from '../../dev/localcluster/kubectl.ts';
import { startAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testCluster } from '../support/cluster.ts';

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited child waiting to be reaped is not running.
  return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

describe('localcluster lifecycle', () => {
  it('says "already running" instead of starting the shared cluster twice', async () => {
    const shared = await up({ dir: testCluster().dir, scenario: 'demo' });
    assert.equal(shared.alreadyRunning, true);
  });

  it('starts a second cluster on free ports, and down leaves no process behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-lifecycle-'));
    try {
      const cluster = await up({ dir, nodes: 1, metricsServer: false });
      const components = status(dir);
      assert.deepEqual(
        components.map((c) => c.component).sort(),
        ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok-controller'],
      );
      const nodes = await kubectl(['get', 'nodes', '-o', 'name'], { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir });
      assert.equal(nodes.trim(), 'node/kwok-node-1');

      // An agent on a cluster without metrics-server says so, instead of reporting zeros.
      const agent = await startAgent({
        kubeconfig: cluster.kubeconfig,
        listen: '127.0.0.1:0',
        dataDir: join(dir, 'agent'),
        settings: { tenantNamespaces: [] },
        accounts: { adminPassword: 'no-metrics-password' },
        log: silentLogger,
      });
      try {
        await agent.ready;
        const login = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'no-metrics-password' }) });
        const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
        const incidents = (await (await fetch(`${agent.url}/incidents`, { headers: { cookie } })).json()) as { metrics_available: boolean; reason?: string };
        assert.equal(incidents.metrics_available, false);
        assert.match(incidents.reason ?? '', /metrics-server is not installed/);
      } finally {
        await agent.close();
      }

      const { stopped } = await down(dir);
      assert.equal(stopped.length, components.length);
      for (const c of components) assert.equal(running(c.pid), false, `${c.component} (pid ${c.pid}) still running`);
      assert.deepEqual(status(dir), []);
    } finally {
      await down(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
