// trivy-operator's report informers on a fake API server: a cluster without the CRDs (404) is
// "not installed", which neither holds the cache back nor marks it stale, and is asked again
// until the CRDs appear; a list RBAC refuses is "forbidden"; an agent that does not read
// reports says "off". None of it shows in syncStatus (so never in /readyz).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../domain/clock.ts';
import { KubeApiError, type KubeTransport } from '../../runtime/kube/client.ts';
import { ClusterCache } from '../../runtime/kube/cluster-cache.ts';
import { ReportSource, slimVulnerabilityReport } from '../../runtime/kube/slim-reports.ts';
import { Informer } from '../../runtime/kube/informer.ts';
import { silentLogger } from '../../runtime/log.ts';
import { waitFor } from '../../dev/localcluster/kubectl.ts';

const REPORT = { metadata: { name: 'replicaset-web-abc-app', namespace: 'shop', resourceVersion: '1', labels: { 'trivy-operator.resource.kind': 'ReplicaSet', 'trivy-operator.resource.name': 'web-abc', 'trivy-operator.container.name': 'app' } }, report: { registry: { server: 'ghcr.io' }, artifact: { repository: 'acme/web', tag: '1' }, vulnerabilities: [{ vulnerabilityID: 'CVE-2023-4911', resource: 'libc6', installedVersion: '2.36-9+deb12u2', fixedVersion: '2.36-9+deb12u3', severity: 'HIGH', score: 7.8 }] } };

/** An API server whose report collections answer `answer()` at the time of each LIST; every other kind is empty. */
function fakeApi(answer: () => 'missing' | 'forbidden' | 'served'): { transport: KubeTransport; listed: string[]; endWatches: (err: unknown) => void } {
  const listed: string[] = [];
  const open: ((err: unknown) => void)[] = [];
  const transport: KubeTransport = {
    list: (path) => {
      listed.push(path);
      if (path.includes('aquasecurity.github.io')) {
        const now = answer();
        if (now === 'missing') return Promise.reject(new KubeApiError(404, 'the server could not find the requested resource'));
        if (now === 'forbidden') return Promise.reject(new KubeApiError(403, `${path} is forbidden`));
        return Promise.resolve({ items: path.endsWith('vulnerabilityreports') ? [REPORT] : [], resourceVersion: '1', continueToken: undefined });
      }
      return Promise.resolve({ items: [], resourceVersion: '1', continueToken: undefined });
    },
    watch: (path, _params, _onEvent, onDone) => {
      if (path.includes('aquasecurity.github.io')) open.push(onDone);
      return Promise.resolve({ abort: () => undefined });
    },
  };
  return { transport, listed, endWatches: (err) => open.splice(0).forEach((done) => done(err)) };
}

describe('report sources', () => {
  it('CRDs not installed: synced cache, nothing stale, not in syncStatus, status not_installed', async () => {
    const { transport } = fakeApi(() => 'missing');
    const cache = new ClusterCache(transport, systemClock, silentLogger);
    try {
      await cache.start();
      await waitFor('the probe answered', () => Promise.resolve(cache.scannerReportStatus().vulnerabilityreports !== 'pending'), 5000, 10);
      assert.deepEqual(cache.scannerReportStatus(), { vulnerabilityreports: 'not_installed', configauditreports: 'not_installed' });
      assert.deepEqual(cache.vulnerabilityReports(), []);
      assert.equal(cache.staleSince(), null);
      assert.ok(!cache.syncStatus().some((s) => s.resource.endsWith('reports')), 'reports never appear in /readyz');
    } finally {
      cache.stop();
    }
  });

  it('CRDs installed later: asked again, then read', async () => {
    let served: 'missing' | 'served' = 'missing';
    const { transport } = fakeApi(() => served);
    const source = new ReportSource('vulnerabilityreports', '/apis/aquasecurity.github.io/v1alpha1/vulnerabilityreports', transport, () => new Informer({ resource: 'vulnerabilityreports', path: '/apis/aquasecurity.github.io/v1alpha1/vulnerabilityreports', transport, slim: slimVulnerabilityReport, log: silentLogger }), silentLogger, 20);
    try {
      source.start();
      await waitFor('not installed', () => Promise.resolve(source.state() === 'not_installed'), 5000, 5);
      served = 'served';
      await waitFor('read once served', () => Promise.resolve(source.state() === 'read'), 5000, 5);
      assert.deepEqual(source.values().map((r) => [r.subject?.name, r.image, r.vulnerabilities.map((v) => v.cve)]), [['web-abc', 'ghcr.io/acme/web:1', ['CVE-2023-4911']]]);
    } finally {
      source.stop();
    }
  });

  it('CRDs removed while watched: the failing informer is dropped, the kind reads not installed again', async () => {
    let served: 'missing' | 'served' = 'served';
    const { transport, endWatches } = fakeApi(() => served);
    const path = '/apis/aquasecurity.github.io/v1alpha1/vulnerabilityreports';
    const source = new ReportSource('vulnerabilityreports', path, transport, () => new Informer({ resource: 'vulnerabilityreports', path, transport, slim: slimVulnerabilityReport, log: silentLogger, retryDelayMs: 10 }), silentLogger, 20);
    try {
      source.start();
      await waitFor('read', () => Promise.resolve(source.state() === 'read' && source.values().length === 1), 5000, 5);
      served = 'missing';
      endWatches(new KubeApiError(404, 'the server could not find the requested resource'));
      await waitFor('not installed again', () => Promise.resolve(source.state() === 'not_installed'), 5000, 5);
      assert.deepEqual(source.values(), []);
    } finally {
      source.stop();
    }
  });

  it('RBAC refuses the list: forbidden, served empty', async () => {
    const { transport } = fakeApi(() => 'forbidden');
    const cache = new ClusterCache(transport, systemClock, silentLogger);
    try {
      await cache.start();
      await waitFor('the refusal seen', () => Promise.resolve(cache.scannerReportStatus().vulnerabilityreports === 'forbidden'), 5000, 10);
      assert.deepEqual(cache.scannerReportStatus(), { vulnerabilityreports: 'forbidden', configauditreports: 'forbidden' });
      assert.deepEqual(cache.vulnerabilityReports(), []);
    } finally {
      cache.stop();
    }
  });

  it('in namespaces scope, lists per watched namespace; an agent not reading reports never lists them', async () => {
    const scoped = fakeApi(() => 'served');
    const cache = new ClusterCache(scoped.transport, systemClock, silentLogger, ['team-a', 'team-b']);
    try {
      await cache.start();
      await waitFor('read', () => Promise.resolve(cache.scannerReportStatus().vulnerabilityreports === 'read'), 5000, 10);
      const reportLists = [...new Set(scoped.listed.filter((p) => p.includes('aquasecurity')))].sort();
      assert.deepEqual(reportLists, [
        '/apis/aquasecurity.github.io/v1alpha1/namespaces/team-a/configauditreports',
        '/apis/aquasecurity.github.io/v1alpha1/namespaces/team-a/vulnerabilityreports',
        '/apis/aquasecurity.github.io/v1alpha1/namespaces/team-b/configauditreports',
        '/apis/aquasecurity.github.io/v1alpha1/namespaces/team-b/vulnerabilityreports',
      ]);
    } finally {
      cache.stop();
    }
    const off = fakeApi(() => 'served');
    const quiet = new ClusterCache(off.transport, systemClock, silentLogger, null, false);
    try {
      await quiet.start();
      assert.deepEqual(quiet.scannerReportStatus(), { vulnerabilityreports: 'off', configauditreports: 'off' });
      assert.ok(!off.listed.some((p) => p.includes('aquasecurity')));
    } finally {
      quiet.stop();
    }
  });
});
