// The informer cache under restricted RBAC, on a fake API server: in `namespaces` scope every
// namespaced kind is listed once per watched namespace (never cluster-wide) and merged, the
// cluster-scoped kinds stay cluster-wide; any LIST refused with 403, a core kind included,
// is served empty and reported forbidden with its namespace, and the cache still syncs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheSyncStatus } from '../../domain/cluster/model.ts';
import { systemClock } from '../../domain/clock.ts';
import { KubeApiError, type KubeTransport } from '../../runtime/kube/client.ts';
import { ClusterCache } from '../../runtime/kube/cluster-cache.ts';
import { combinedStatus } from '../../runtime/kube/namespaced-informers.ts';
import { silentLogger } from '../../runtime/log.ts';

const CLUSTER_SCOPED = ['/api/v1/namespaces', '/api/v1/nodes', '/api/v1/persistentvolumes', '/apis/networking.k8s.io/v1/ingressclasses', '/apis/storage.k8s.io/v1/storageclasses', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases'];

/** A fake API server: every namespaced collection holds one object named after its namespace; `refused` paths answer 403. */
function fakeApi(refused: readonly string[]): { transport: KubeTransport; listed: string[] } {
  const listed: string[] = [];
  const transport: KubeTransport = {
    list: (path) => {
      listed.push(path);
      if (refused.includes(path)) return Promise.reject(new KubeApiError(403, `${path} is forbidden: User "system:serviceaccount:x:capstan" cannot list it`));
      const namespace = /\/namespaces\/([^/]+)\/[^/]+$/.exec(path)?.[1];
      const items = namespace === undefined || path.includes('kube-node-lease') ? [] : [{ metadata: { name: `in-${namespace}`, namespace, resourceVersion: '1' }, status: { phase: 'Running' } }];
      return Promise.resolve({ items, resourceVersion: '1', continueToken: undefined });
    },
    // The watch stays open and quiet: what the cache holds is what the LIST gave.
    watch: () => Promise.resolve({ abort: () => undefined }),
  };
  return { transport, listed };
}

const row = (resource: string, over: Partial<CacheSyncStatus> = {}): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden: false, forbidden_namespaces: [], ...over });

describe('one resource over several namespaces: its /readyz line', () => {
  const rows: { name: string; parts: CacheSyncStatus[]; want: CacheSyncStatus }[] = [
    { name: 'all synced and readable', parts: [row('pods'), row('pods')], want: row('pods') },
    { name: 'one still listing: not synced', parts: [row('pods'), row('pods', { synced: false })], want: row('pods', { synced: false }) },
    {
      name: 'refused in some namespaces: forbidden, naming them in order, once each',
      parts: [row('secrets', { forbidden: true, forbidden_namespaces: ['team-c'] }), row('secrets'), row('secrets', { forbidden: true, forbidden_namespaces: ['team-a'] })],
      want: row('secrets', { forbidden: true, forbidden_namespaces: ['team-a', 'team-c'] }),
    },
    {
      name: 'failing since the earliest failure',
      parts: [row('pods', { failing_since: '2026-01-01T10:00:05.000Z' }), row('pods', { failing_since: '2026-01-01T10:00:01.000Z' }), row('pods')],
      want: row('pods', { failing_since: '2026-01-01T10:00:01.000Z' }),
    },
    { name: 'no namespaces at all: nothing pending', parts: [], want: row('pods') },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(combinedStatus(r.want.resource, r.parts), r.want));
});

describe('ClusterCache in namespaces scope', () => {
  it('lists namespaced kinds per watched namespace only, cluster-scoped kinds once, and merges them', async () => {
    const { transport, listed } = fakeApi([]);
    const cache = new ClusterCache(transport, systemClock, silentLogger, ['team-a', 'team-b']);
    try {
      await cache.start();
      const clusterWide = listed.filter((p) => !/\/namespaces\/(team-a|team-b)\//.test(p));
      assert.deepEqual([...new Set(clusterWide)].sort(), [...CLUSTER_SCOPED].sort(), 'nothing namespaced is listed cluster-wide');
      for (const path of ['/api/v1/namespaces/team-a/pods', '/api/v1/namespaces/team-b/pods', '/apis/apps/v1/namespaces/team-b/deployments', '/api/v1/namespaces/team-a/secrets', '/apis/metrics.k8s.io/v1beta1/namespaces/team-a/pods']) {
        assert.ok(listed.includes(path), `${path} listed`);
      }
      assert.deepEqual(cache.pods().map((p) => `${p.namespace}/${p.name}`), ['team-a/in-team-a', 'team-b/in-team-b']);
      assert.equal(cache.pods(), cache.pods(), 'the merged array keeps its identity between changes');
      assert.deepEqual(cache.syncStatus().filter((s) => !s.synced || s.forbidden), []);
    } finally {
      cache.stop();
    }
  });

  it('serves a resource refused in one namespace from the other, reports it forbidden there, and still syncs', async () => {
    const { transport } = fakeApi(['/api/v1/namespaces/team-b/secrets', '/api/v1/namespaces/team-b/pods']);
    const cache = new ClusterCache(transport, systemClock, silentLogger, ['team-a', 'team-b']);
    try {
      await cache.start();
      const status = new Map(cache.syncStatus().map((s) => [s.resource, s]));
      assert.deepEqual(status.get('secrets'), row('secrets', { forbidden: true, forbidden_namespaces: ['team-b'] }));
      assert.deepEqual(status.get('pods'), row('pods', { forbidden: true, forbidden_namespaces: ['team-b'] }));
      assert.deepEqual(status.get('configmaps'), row('configmaps'));
      assert.deepEqual(cache.secrets().map((s) => s.namespace), ['team-a']);
      assert.deepEqual(cache.pods().map((p) => p.namespace), ['team-a']);
      assert.equal(cache.staleSince(), null, 'a refusal is an answer, not an outage');
    } finally {
      cache.stop();
    }
  });
});

describe('ClusterCache in cluster scope', () => {
  it('a refused core kind (pods) no longer holds the cache back: served empty, forbidden cluster-wide', async () => {
    const { transport, listed } = fakeApi(['/api/v1/pods', '/api/v1/nodes']);
    const cache = new ClusterCache(transport, systemClock, silentLogger);
    try {
      await cache.start();
      assert.ok(listed.includes('/api/v1/pods') && !listed.some((p) => p.includes('/namespaces/') && !p.includes('kube-node-lease')), 'cluster-wide lists only');
      const status = new Map(cache.syncStatus().map((s) => [s.resource, s]));
      assert.deepEqual(status.get('pods'), row('pods', { forbidden: true }));
      assert.deepEqual(status.get('nodes'), row('nodes', { forbidden: true }));
      assert.deepEqual(cache.pods(), []);
      assert.deepEqual(cache.syncStatus().filter((s) => !s.synced), []);
    } finally {
      cache.stop();
    }
  });
});
