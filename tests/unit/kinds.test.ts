// The one table of Kubernetes kinds (runtime/kube/kinds.ts) and what ClusterCache derives from
// it, on a fake API server that serves one object per collection, named after its resource:
// every row is listed at its path (per watched namespace when namespaced, in namespaces scope),
// has its line in /readyz unless optional, and its objects reach the ClusterView listing the
// row names, and only that one. A row added to the table gets all of it with no other change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../domain/clock.ts';
import { ANALYZERS } from '../../domain/diagnosis/analyzers/index.ts';
import { VERDICT_READS } from '../../domain/health/verdict.ts';
import { KubeApiError, type KubeTransport } from '../../runtime/kube/client.ts';
import { ClusterCache } from '../../runtime/kube/cluster-cache.ts';
import { KINDS, kind, type KindTable, type ListingName } from '../../runtime/kube/kinds.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimNode } from '../../runtime/kube/slim.ts';
import { silentLogger } from '../../runtime/log.ts';
import { waitFor } from '../../dev/localcluster/kubectl.ts';

/** Every collection the agent lists cluster-wide, as it did before the table (and the metrics poller's). */
const CLUSTER_PATHS = [
  '/api/v1/namespaces',
  '/api/v1/pods',
  '/api/v1/nodes',
  '/api/v1/events',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/daemonsets',
  '/api/v1/services',
  '/api/v1/persistentvolumeclaims',
  '/apis/apps/v1/replicasets',
  '/apis/apps/v1/statefulsets',
  '/apis/batch/v1/jobs',
  '/apis/batch/v1/cronjobs',
  '/apis/networking.k8s.io/v1/ingresses',
  '/api/v1/configmaps',
  '/api/v1/secrets',
  '/api/v1/persistentvolumes',
  '/apis/discovery.k8s.io/v1/endpointslices',
  '/apis/networking.k8s.io/v1/ingressclasses',
  '/apis/storage.k8s.io/v1/storageclasses',
  '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
  '/api/v1/resourcequotas',
  '/api/v1/limitranges',
  '/apis/autoscaling/v2/horizontalpodautoscalers',
  '/apis/policy/v1/poddisruptionbudgets',
  '/apis/aquasecurity.github.io/v1alpha1/vulnerabilityreports',
  '/apis/aquasecurity.github.io/v1alpha1/configauditreports',
  '/apis/metrics.k8s.io/v1beta1/pods',
];
const CLUSTER_SCOPED = ['/api/v1/namespaces', '/api/v1/nodes', '/api/v1/persistentvolumes', '/apis/networking.k8s.io/v1/ingressclasses', '/apis/storage.k8s.io/v1/storageclasses', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases'];
const WATCHED = ['team-a', 'team-b'];

/** Each collection holds one object named after its resource (an event also says what it is about); `refused` paths answer 403. */
function fakeApi(refused: readonly string[] = []): { transport: KubeTransport; listed: Set<string> } {
  const listed = new Set<string>();
  const transport: KubeTransport = {
    list: (path) => {
      listed.add(path);
      if (refused.includes(path)) return Promise.reject(new KubeApiError(403, `${path} is forbidden`));
      const resource = path.slice(path.lastIndexOf('/') + 1);
      const namespace = /\/namespaces\/([^/]+)\/[^/]+$/.exec(path)?.[1] ?? 'default';
      const item = { metadata: { name: resource, namespace, resourceVersion: '1' }, involvedObject: { kind: 'Pod', name: 'web' }, message: resource };
      return Promise.resolve({ items: [item], resourceVersion: '1', continueToken: undefined });
    },
    watch: () => Promise.resolve({ abort: () => undefined }),
  };
  return { transport, listed };
}

const rows = (table: KindTable) => Object.entries(table);
const required = (table: KindTable) => rows(table).filter(([, row]) => !row.optional).map(([resource]) => resource);
const listingsOf = (table: KindTable): ListingName[] => [...new Set(rows(table).map(([, row]) => row.listing))];
/** Where what a listing holds came from: each object is named after its resource (an event, which keeps no name, says it in its message). */
const namesIn = (cache: ClusterCache, listing: ListingName): string[] => {
  const objects: readonly object[] = cache[listing]();
  return objects.map((o) => ('name' in o && typeof o.name === 'string' ? o.name : 'message' in o && typeof o.message === 'string' ? o.message : '?'));
};

async function started(table: KindTable, watched: readonly string[] | null, refused: readonly string[] = []): Promise<{ cache: ClusterCache; listed: Set<string> }> {
  const { transport, listed } = fakeApi(refused);
  const cache = new ClusterCache(transport, systemClock, silentLogger, watched, true, table);
  await cache.start();
  await waitFor('scanner reports read', () => Promise.resolve(Object.values(cache.scannerReportStatus()).every((s) => s === 'read')), 5000, 10);
  return { cache, listed };
}

describe('the kinds table', () => {
  it('cluster scope: every row listed at its path, required rows in /readyz in table order, each row feeding its listing only', async () => {
    const { cache, listed } = await started(KINDS, null);
    try {
      assert.deepEqual([...listed].sort(), [...CLUSTER_PATHS].sort());
      assert.deepEqual(
        cache.syncStatus().map((s) => s.resource),
        required(KINDS),
      );
      assert.deepEqual(Object.keys(cache.scannerReportStatus()).sort(), rows(KINDS).filter(([, row]) => row.optional).map(([resource]) => resource).sort(), 'optional rows: scannerReportStatus, not /readyz');
      for (const listing of listingsOf(KINDS)) {
        const feeding = rows(KINDS).filter(([, row]) => row.listing === listing).map(([resource]) => resource);
        assert.deepEqual(namesIn(cache, listing), feeding, `${listing}() holds the objects of ${feeding.join(', ')}`);
        assert.equal(cache[listing](), cache[listing](), `${listing}() keeps its identity between changes`);
      }
    } finally {
      cache.stop();
    }
  });

  it('namespaces scope: namespaced rows per watched namespace only, the others as in cluster scope', async () => {
    const { cache, listed } = await started(KINDS, WATCHED);
    try {
      const perNamespace = CLUSTER_PATHS.filter((p) => !CLUSTER_SCOPED.includes(p)).flatMap((p) => WATCHED.map((ns) => `${p.slice(0, p.lastIndexOf('/'))}/namespaces/${ns}${p.slice(p.lastIndexOf('/'))}`));
      assert.deepEqual([...listed].sort(), [...CLUSTER_SCOPED, ...perNamespace].sort());
      assert.deepEqual(
        cache.syncStatus().map((s) => s.resource),
        required(KINDS),
      );
      for (const listing of listingsOf(KINDS)) {
        const want = rows(KINDS)
          .filter(([, row]) => row.listing === listing)
          .flatMap(([resource, row]) => (row.scope === 'namespaced' ? WATCHED.map(() => resource) : [resource]));
        assert.deepEqual(namesIn(cache, listing), want, listing);
      }
    } finally {
      cache.stop();
    }
  });

  it('a row added to the table is listed, watched per namespace, in /readyz (refusals included) and served by its listing', async () => {
    const table: KindTable = {
      ...KINDS,
      widgets: kind({ group: 'example.com', version: 'v1', scope: 'namespaced', listing: 'pods', slim: slimPod }),
      gizmos: kind({ group: '', version: 'v1', scope: 'cluster', listing: 'nodes', slim: slimNode }),
    };
    const { cache, listed } = await started(table, WATCHED, ['/apis/example.com/v1/namespaces/team-b/widgets']);
    try {
      for (const path of ['/apis/example.com/v1/namespaces/team-a/widgets', '/apis/example.com/v1/namespaces/team-b/widgets', '/api/v1/gizmos']) assert.ok(listed.has(path), `${path} listed`);
      assert.ok(![...listed].includes('/apis/example.com/v1/widgets'), 'never cluster-wide in namespaces scope');
      assert.deepEqual(cache.syncStatus().slice(-2), [
        { resource: 'widgets', synced: true, failing_since: null, forbidden: true, forbidden_namespaces: ['team-b'] },
        { resource: 'gizmos', synced: true, failing_since: null, forbidden: false, forbidden_namespaces: [] },
      ]);
      assert.deepEqual(namesIn(cache, 'pods'), ['pods', 'pods', 'widgets']);
      assert.deepEqual(namesIn(cache, 'nodes'), ['nodes', 'gizmos']);
    } finally {
      cache.stop();
    }
  });

  it('an agent not reading scanner reports lists none, and their listings stay one empty array', async () => {
    const { transport, listed } = fakeApi();
    const cache = new ClusterCache(transport, systemClock, silentLogger, null, false);
    try {
      await cache.start();
      assert.ok(![...listed].some((p) => p.includes('aquasecurity')));
      assert.deepEqual(cache.vulnerabilityReports(), []);
      assert.equal(cache.vulnerabilityReports(), cache.vulnerabilityReports());
      assert.equal(cache.configAuditReports(), cache.configAuditReports());
      assert.deepEqual(cache.scannerReportStatus(), { vulnerabilityreports: 'off', configauditreports: 'off' });
    } finally {
      cache.stop();
    }
  });

  it('every resource the diagnosis and the health verdict name is a row', () => {
    const named = new Set([...ANALYZERS.flatMap((a) => a.reads), ...VERDICT_READS]);
    assert.deepEqual(
      [...named].filter((resource) => !(resource in KINDS)),
      [],
    );
  });

  it('Secrets, and only they, are read as metadata', () => {
    assert.deepEqual(
      rows(KINDS)
        .filter(([, row]) => row.metadataOnly)
        .map(([resource]) => resource),
      ['secrets'],
    );
  });
});
