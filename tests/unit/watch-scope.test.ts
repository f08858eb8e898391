// CAPSTAN_WATCH_SCOPE: parsing, which namespaces the agent lists one by one, the per-namespace
// collection paths, and the refusal to start in `namespaces` scope with nothing to watch.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startAgent } from '../../runtime/agent.ts';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import { namespacedPath, parseWatchScope, watchedNamespaces, type WatchScope } from '../../runtime/kube/watch-scope.ts';
import { silentLogger } from '../../runtime/log.ts';

describe('CAPSTAN_WATCH_SCOPE', () => {
  const rows: { value: string | undefined; want: WatchScope | RegExp }[] = [
    { value: undefined, want: 'cluster' },
    { value: '', want: 'cluster' },
    { value: 'cluster', want: 'cluster' },
    { value: 'namespaces', want: 'namespaces' },
    { value: 'namespace', want: /CAPSTAN_WATCH_SCOPE must be cluster or namespaces, got "namespace"$/ },
    { value: 'Cluster', want: /must be cluster or namespaces/ },
  ];
  for (const { value, want } of rows) {
    it(`${JSON.stringify(value)} → ${String(want)}`, () => {
      if (want instanceof RegExp) assert.throws(() => parseWatchScope(value, 'CAPSTAN_WATCH_SCOPE'), want);
      else assert.equal(parseWatchScope(value, 'CAPSTAN_WATCH_SCOPE'), want);
    });
  }

  it('reaches the agent options from the environment, and refuses a bad value by name', () => {
    assert.equal(agentOptionsFromEnv({}).watchScope, 'cluster');
    assert.equal(agentOptionsFromEnv({ CAPSTAN_WATCH_SCOPE: 'namespaces' }).watchScope, 'namespaces');
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_WATCH_SCOPE: 'all' }), /CAPSTAN_WATCH_SCOPE/);
  });
});

describe('watched namespaces', () => {
  const rows: { name: string; scope: WatchScope; tenants: string[]; want: string[] | null | RegExp }[] = [
    { name: 'cluster scope lists cluster-wide, tenants or not', scope: 'cluster', tenants: ['shop'], want: null },
    { name: 'cluster scope with no tenants', scope: 'cluster', tenants: [], want: null },
    { name: 'each tenant once, in name order', scope: 'namespaces', tenants: ['shop', 'payments', 'shop'], want: ['payments', 'shop'] },
    { name: 'system namespaces are never watched (never shown, never granted)', scope: 'namespaces', tenants: ['kube-system', 'shop', 'monitoring', 'kube-anything'], want: ['shop'] },
    { name: 'no tenants: refused, naming the fix', scope: 'namespaces', tenants: [], want: /none are set: set CAPSTAN_TENANT_NAMESPACES \(--tenant-namespaces\)/ },
    { name: 'only system tenants: refused, naming them', scope: 'namespaces', tenants: ['kube-system', 'capstan-system'], want: /only system namespaces are set \(kube-system, capstan-system\)/ },
  ];
  for (const row of rows) {
    it(row.name, () => {
      if (row.want instanceof RegExp) assert.throws(() => watchedNamespaces(row.scope, row.tenants), row.want);
      else assert.deepEqual(watchedNamespaces(row.scope, row.tenants), row.want);
    });
  }
});

describe('per-namespace collection paths', () => {
  const rows: { path: string; want: string | RegExp }[] = [
    { path: '/api/v1/pods', want: '/api/v1/namespaces/shop/pods' },
    { path: '/api/v1/events', want: '/api/v1/namespaces/shop/events' },
    { path: '/apis/apps/v1/deployments', want: '/apis/apps/v1/namespaces/shop/deployments' },
    { path: '/apis/networking.k8s.io/v1/ingresses', want: '/apis/networking.k8s.io/v1/namespaces/shop/ingresses' },
    { path: '/apis/metrics.k8s.io/v1beta1/pods', want: '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods' },
    { path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', want: /not a cluster-wide collection path/ },
    { path: 'pods', want: /not a cluster-wide collection path/ },
  ];
  for (const { path, want } of rows) {
    it(`${path} in shop`, () => {
      if (want instanceof RegExp) assert.throws(() => namespacedPath(path, 'shop'), want);
      else assert.equal(namespacedPath(path, 'shop'), want);
    });
  }
});

describe('starting the agent', () => {
  it('refuses `namespaces` scope without tenant namespaces before it creates anything', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'capstan-scope-')), 'data');
    await assert.rejects(
      startAgent({ kubeconfig: '/nonexistent/kubeconfig', listen: '127.0.0.1:0', dataDir, settings: { tenantNamespaces: [] }, watchScope: 'namespaces', log: silentLogger }),
      /CAPSTAN_WATCH_SCOPE=namespaces .* none are set/,
    );
    assert.throws(() => readdirSync(dataDir), /ENOENT/, 'no data dir was created');
  });
});
