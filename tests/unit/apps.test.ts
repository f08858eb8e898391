// Applications over the in-process app with a hand-built cluster view: the CRUD rules, the
// selector semantics, and how usage, flags and network are computed from members.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, ContainerResources, PodObject, PodUsage } from '../../domain/cluster/model.ts';
import type { HistoryPointValues, HistoryReader, NetworkView } from '../../handlers/metrics/service.ts';
import { matchesSelector } from '../../handlers/apps/members.ts';
import { memberFlags } from '../../domain/apps/flags.ts';
import { sumSeries } from '../../handlers/apps/network-history.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';
import { podDefaults } from '../support/objects.ts';

const MI = 1024 * 1024;
const res = (cpuRequestM: number | null, memRequestBytes: number | null, memLimitBytes: number | null = null, cpuLimitM: number | null = null): ContainerResources => ({ cpuRequestM, cpuLimitM, memRequestBytes, memLimitBytes });

function pod(namespace: string, name: string, labels: Record<string, string>, resources: ContainerResources[], extra: Partial<PodObject> = {}): PodObject {
  return { ...podDefaults,
    namespace,
    name,
    phase: 'Running',
    createdAt: '2026-11-21T11:00:00Z',
    startedAt: '2026-11-21T11:00:00Z',
    nodeName: 'kwok-node-1',
    labels,
    workload: { kind: 'Deployment', name: labels.app ?? name },
    owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] },
    ready: true,
    readySince: null,
    unschedulable: null,
    containers: resources.map((r, i) => ({ name: `c${i}`, image: 'example/app:1', resources: r, ports: [] })),
    statuses: [],
    ...extra,
  };
}

function clusterOf(pods: PodObject[], usage: Record<string, PodUsage> | null): ClusterView {
  return {
    ...emptyCluster,
    pods: () => pods,
    metrics: () => (usage ? { available: true, at: '2026-11-21T12:00:00Z', pods: new Map(Object.entries(usage)) } : { available: false, reason: 'metrics-server is not installed' }),
  };
}

const shopPods = [
  pod('shop', 'web-1', { app: 'web', tier: 'front' }, [res(100, 128 * MI, 256 * MI, 500)]),
  pod('shop', 'web-2', { app: 'web', tier: 'front' }, [res(100, 128 * MI, 256 * MI, 500)]),
  pod('shop', 'db-1', { app: 'db', tier: 'back' }, [res(null, null)]),
  pod('shop', 'job-1', { app: 'web', tier: 'front' }, [res(100, 128 * MI)], { phase: 'Succeeded' }),
  pod('payments', 'api-1', { app: 'api', tier: 'front' }, [res(200, null, 512 * MI)]),
  pod('kube-system', 'dns-1', { app: 'web', tier: 'front' }, [res(100, 128 * MI)]),
];

const frontSelector = { match_labels: { tier: 'front' } };

describe('applications', () => {
  it('lets an admin create, rename and delete one; viewers and apps:read keys only read', async () => {
    const h = await testApp({ cluster: clusterOf(shopPods, null) });
    const admin = await h.signIn('admin');
    const viewer = await h.signIn('viewer');
    const created = await h.call('POST', '/api/agent/apps', { cookie: admin, body: { name: 'Storefront', namespaces: ['shop', 'payments'], selector: frontSelector } });
    assert.equal(created.status, 200, created.text);
    const id = String(created.body.id);
    assert.match(id, /^app_[a-z0-9]{12}$/);
    assert.equal(created.body.created_by, 'admin');
    assert.deepEqual(created.body.selector, { match_labels: { tier: 'front' }, match_expressions: [] });

    const clash = await h.call('POST', '/apps', { cookie: admin, body: { name: 'storefront', namespaces: ['shop'], selector: frontSelector } });
    assert.deepEqual([clash.status, clash.body.error, clash.body.field], [409, 'conflict', 'name'], 'names are unique ignoring case');

    assert.equal((await h.call('POST', '/apps', { cookie: viewer, body: { name: 'Mine', namespaces: ['shop'], selector: frontSelector } })).status, 403, 'viewers cannot write');
    const listed = await h.call('GET', '/apps', { cookie: viewer });
    assert.deepEqual((listed.body.apps as { id: string }[]).map((a) => a.id), [id]);

    const key = await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'reader', scopes: ['apps:read'] } });
    const reader = String(key.body.key);
    assert.equal((await h.call('GET', `/apps/${id}`, { key: reader })).status, 200);
    const refused = await h.call('DELETE', `/apps/${id}`, { key: reader });
    assert.deepEqual([refused.status, refused.body.error, refused.body.scope], [403, 'api_key_insufficient_scope', 'apps:write']);

    const renamed = await h.call('PUT', `/apps/${id}`, { cookie: admin, body: { name: 'Shop front', namespaces: ['shop'], selector: { match_expressions: [{ key: 'app', operator: 'In', values: ['web'] }] } } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.id, renamed.body.name, renamed.body.namespaces], [id, 'Shop front', ['shop']]);
    assert.equal((await h.call('DELETE', `/apps/${id}`, { cookie: admin })).status, 200);
    assert.equal((await h.call('GET', `/apps/${id}`, { cookie: admin })).status, 404);
    assert.equal((await h.call('PUT', `/apps/${id}`, { cookie: admin, body: { name: 'x', namespaces: ['shop'], selector: frontSelector } })).status, 404);
  });

  it('refuses bad definitions with 400 naming the field, and hidden namespaces with 403, saving nothing', async () => {
    const h = await testApp({ cluster: clusterOf(shopPods, null), tenantNamespaces: ['shop', 'payments'] });
    const admin = await h.signIn('admin');
    const cases: [unknown, string][] = [
      [{ namespaces: ['shop'], selector: frontSelector }, 'name'],
      [{ name: '  ', namespaces: ['shop'], selector: frontSelector }, 'name'],
      [{ name: 'a', namespaces: [], selector: frontSelector }, 'namespaces'],
      [{ name: 'a', namespaces: ['shop', 'shop'], selector: frontSelector }, 'namespaces'],
      [{ name: 'a', namespaces: ['Shop'], selector: frontSelector }, 'namespaces.0'],
      [{ name: 'a', namespaces: ['shop'], selector: {} }, 'selector'],
      [{ name: 'a', namespaces: ['shop'], selector: { match_labels: { 'bad key!': 'x' } } }, 'selector.match_labels.bad key!'],
      [{ name: 'a', namespaces: ['shop'], selector: { match_expressions: [{ key: 'app', operator: 'In' }] } }, 'selector.match_expressions.0'],
      [{ name: 'a', namespaces: ['shop'], selector: { match_expressions: [{ key: 'app', operator: 'Like', values: ['x'] }] } }, 'selector.match_expressions.0.operator'],
    ];
    for (const [body, field] of cases) {
      const answer = await h.call('POST', '/apps', { cookie: admin, body });
      assert.deepEqual([answer.status, answer.body.error, answer.body.field], [400, 'invalid_input', field], JSON.stringify(body));
    }
    for (const hidden of ['kube-system', 'analytics']) {
      const answer = await h.call('POST', '/apps', { cookie: admin, body: { name: 'a', namespaces: ['shop', hidden], selector: frontSelector } });
      assert.deepEqual([answer.status, answer.body.error], [403, 'forbidden'], hidden);
      assert.match(String(answer.body.message), new RegExp(hidden));
    }
    assert.equal((await h.call('GET', '/apps', { cookie: admin })).body.total, 0, 'nothing half-written');
    assert.deepEqual([(await h.call('GET', '/apps/not-an-id', { cookie: admin })).body.field], ['id']);
  });

  it('previews the matching pods of the visible namespaces, skipping finished ones', async () => {
    const h = await testApp({ cluster: clusterOf(shopPods, null) });
    const preview = await h.call('POST', '/apps/preview', { cookie: await h.signIn('viewer'), body: { name: 'p', namespaces: ['shop', 'payments'], selector: frontSelector } });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(
      (preview.body.pods as { namespace: string; pod: string; workload: string }[]).map((p) => `${p.namespace}/${p.pod} ${p.workload}`),
      ['payments/api-1 Deployment/api', 'shop/web-1 Deployment/web', 'shop/web-2 Deployment/web'],
    );
    assert.equal(preview.body.truncated, false);
  });

  it('totals usage over measured pods only, keeps used null for unmeasured ones, and flags each member', async () => {
    const usage = {
      'shop/web-1': { cpuM: 150, memBytes: 240 * MI }, // above its CPU and memory request, 94% of its limit
      'payments/api-1': { cpuM: 50, memBytes: 100 * MI },
      // shop/web-2 is not measured
    };
    const h = await testApp({ cluster: clusterOf(shopPods, usage) });
    const admin = await h.signIn('admin');
    const id = String((await h.call('POST', '/apps', { cookie: admin, body: { name: 'front', namespaces: ['shop', 'payments'], selector: frontSelector } })).body.id);
    const answer = await h.call('GET', `/apps/${id}/metrics`, { cookie: admin });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.body as { metrics_available: boolean; totals: Record<string, number>; members: { pod: string; cpu_millicores_used: number | null; mem_bytes_used: number | null; flags: string[] }[]; flags: string[]; network: { available: boolean; reason?: string } };
    assert.equal(body.metrics_available, true);
    assert.deepEqual(body.totals, {
      cpu_millicores_used: 200,
      cpu_millicores_request: 300,
      cpu_millicores_limit: 500,
      mem_bytes_used: 340 * MI,
      mem_bytes_request: 128 * MI,
      mem_bytes_limit: 768 * MI,
      pods_measured: 2,
      pods_total: 3,
    });
    const byPod = Object.fromEntries(body.members.map((m) => [m.pod, m]));
    assert.deepEqual(byPod['web-1']?.flags, ['near_memory_limit', 'cpu_above_request', 'memory_above_request']);
    assert.deepEqual(byPod['api-1']?.flags, ['no_memory_request']);
    assert.deepEqual([byPod['web-2']?.cpu_millicores_used, byPod['web-2']?.mem_bytes_used, byPod['web-2']?.flags], [null, null, []], 'unmeasured: null, never 0');
    assert.deepEqual(body.flags, ['no_memory_request', 'near_memory_limit', 'cpu_above_request', 'memory_above_request']);
    assert.equal(body.network.available, false);
    assert.match(body.network.reason ?? '', /METRICS_KUBELET_SCRAPE/);
  });

  it('says why when metrics-server is absent instead of reporting zeros as usage', async () => {
    const h = await testApp({ cluster: clusterOf(shopPods, null) });
    const admin = await h.signIn('admin');
    const id = String((await h.call('POST', '/apps', { cookie: admin, body: { name: 'db', namespaces: ['shop'], selector: { match_labels: { app: 'db' } } } })).body.id);
    const body = (await h.call('GET', `/apps/${id}/metrics`, { cookie: admin })).body as { metrics_available: boolean; reason: string | null; totals: { pods_measured: number; pods_total: number }; members: { flags: string[]; cpu_millicores_used: null }[] };
    assert.equal(body.metrics_available, false);
    assert.match(body.reason ?? '', /metrics-server/);
    assert.deepEqual([body.totals.pods_measured, body.totals.pods_total], [0, 1]);
    assert.deepEqual(body.members[0]?.flags, ['no_requests']);
  });

  it('reports network per workload from the kubelet rates and sums pods per bucket in the history, never across workloads', async () => {
    const rates = new Map([
      ['shop/web-1', { rxBps: 1000, txBps: 10 }],
      ['shop/web-2', { rxBps: 500, txBps: 5 }],
      ['shop/db-1', { rxBps: 7, txBps: 7 }],
    ]);
    const network: NetworkView = { status: () => ({ enabled: true, lastScrapeOk: true, lastScrapeError: null }), podRates: () => rates };
    const seriesOf: Record<string, HistoryPointValues[]> = {
      'web-1': [{ ts: 60, cpuM: 1, memBytes: 1, rxBps: 100, txBps: 1 }, { ts: 120, cpuM: 1, memBytes: 1, rxBps: null, txBps: null }],
      'web-2': [{ ts: 60, cpuM: 1, memBytes: 1, rxBps: 50, txBps: 2 }, { ts: 120, cpuM: 1, memBytes: 1, rxBps: null, txBps: null }],
      'db-1': [{ ts: 60, cpuM: 1, memBytes: 1, rxBps: 9, txBps: 9 }],
    };
    const history: HistoryReader = { query: (q) => Promise.resolve({ bucketSecs: 60, points: seriesOf[q.pod ?? ''] ?? [] }) };
    const h = await testApp({ cluster: clusterOf(shopPods, {}), network, history });
    const admin = await h.signIn('admin');
    const id = String((await h.call('POST', '/apps', { cookie: admin, body: { name: 'shop', namespaces: ['shop'], selector: { match_expressions: [{ key: 'app', operator: 'Exists' }] } } })).body.id);
    const metrics = (await h.call('GET', `/apps/${id}/metrics`, { cookie: admin })).body as { network: { available: boolean; source: string; workloads: unknown[] } };
    assert.deepEqual(metrics.network, {
      available: true,
      source: 'kubelet',
      workloads: [
        { namespace: 'shop', workload: 'Deployment/db', rx_bytes_per_sec: 7, tx_bytes_per_sec: 7 },
        { namespace: 'shop', workload: 'Deployment/web', rx_bytes_per_sec: 1500, tx_bytes_per_sec: 15 },
      ],
    });
    const history6h = await h.call('GET', `/apps/${id}/network-history?window=6h`, { cookie: admin });
    assert.equal(history6h.status, 200, history6h.text);
    assert.deepEqual(history6h.body.workloads, [
      { namespace: 'shop', workload: 'Deployment/db', series: [{ ts: 60, rx_bps: 9, tx_bps: 9 }] },
      { namespace: 'shop', workload: 'Deployment/web', series: [{ ts: 60, rx_bps: 150, tx_bps: 3 }, { ts: 120, rx_bps: null, tx_bps: null }] },
    ]);
    assert.deepEqual([history6h.body.available, history6h.body.source, history6h.body.window, history6h.body.sample_interval_secs], [true, 'kubelet', '6h', 60]);
    const bad = await h.call('GET', `/apps/${id}/network-history?window=2d`, { cookie: admin });
    assert.deepEqual([bad.status, bad.body.field], [400, 'window']);
  });
});

describe('label selector semantics', () => {
  const labels = { app: 'web', tier: 'front' };
  const cases: [Parameters<typeof matchesSelector>[1], boolean][] = [
    [{ match_labels: { app: 'web' }, match_expressions: [] }, true],
    [{ match_labels: { app: 'web', tier: 'back' }, match_expressions: [] }, false],
    [{ match_labels: {}, match_expressions: [{ key: 'tier', operator: 'In', values: ['front', 'edge'] }] }, true],
    [{ match_labels: {}, match_expressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ match_labels: {}, match_expressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    [{ match_labels: {}, match_expressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    [{ match_labels: {}, match_expressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ match_labels: {}, match_expressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ match_labels: { app: 'web' }, match_expressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, true],
  ];
  for (const [selector, expected] of cases) {
    it(`${JSON.stringify(selector)} → ${String(expected)}`, () => assert.equal(matchesSelector(labels, selector), expected));
  }
});

describe('member flags', () => {
  it('says no_requests alone when nothing is requested, else names the missing resource', () => {
    assert.deepEqual(memberFlags(pod('a', 'p', {}, [res(null, null), res(null, null)]), undefined), ['no_requests']);
    assert.deepEqual(memberFlags(pod('a', 'p', {}, [res(100, MI), res(null, MI)]), undefined), ['no_cpu_request']);
  });

  it('judges the memory limit only when every container has one', () => {
    const usage = { cpuM: 1, memBytes: 95 * MI };
    assert.deepEqual(memberFlags(pod('a', 'p', {}, [res(1, MI, 100 * MI)]), usage), ['near_memory_limit', 'memory_above_request']);
    assert.deepEqual(memberFlags(pod('a', 'p', {}, [res(1, MI, 100 * MI), res(1, MI, null)]), usage), ['memory_above_request']);
  });

  it('sums per-bucket network over pods, leaving a bucket nobody measured null', () => {
    assert.deepEqual(
      sumSeries([
        [{ ts: 0, cpuM: null, memBytes: null, rxBps: 1, txBps: null }],
        [{ ts: 0, cpuM: null, memBytes: null, rxBps: 2, txBps: null }, { ts: 60, cpuM: null, memBytes: null, rxBps: null, txBps: null }],
      ]),
      [{ ts: 0, rx_bps: 3, tx_bps: null }, { ts: 60, rx_bps: null, tx_bps: null }],
    );
  });
});
