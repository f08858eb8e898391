// The cluster model over a hand-built cluster view: which nodes and edges exist, what stays
// hidden, and the subgraph's budget as a property over many budgets and focuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ClusterView, PodObject } from '../../domain/cluster/model.ts';
import type { AnalyzerEntry } from '../../domain/diagnosis/engine.ts';
import { draft } from '../support/diagnosis.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';
import { controllerDefaults, ingressDefaults, nodeDefaults, podDefaults, pvDefaults, serviceDefaults, workloadDefaults } from '../support/objects.ts';

function pod(namespace: string, name: string, extra: Partial<PodObject> = {}): PodObject {
  return { ...podDefaults,
    namespace,
    name,
    phase: 'Running',
    createdAt: '2026-11-21T10:00:00Z',
    startedAt: '2026-11-21T10:00:00Z',
    nodeName: 'node-1',
    labels: { app: 'web', token: 'Bearer abcdefghijklmnopqrstuvwxyz012345' },
    workload: { kind: 'Deployment', name: 'web' },
    owner: { kind: 'ReplicaSet', name: 'web-5d8f' },
    refs: { configMaps: ['web-config'], secrets: ['web-keys'], pvcs: [] },
    ready: true,
    readySince: '2026-11-21T10:00:10Z',
    unschedulable: null,
    containers: [{ name: 'web', image: 'example/web:1.0', resources: { cpuRequestM: 100, cpuLimitM: null, memRequestBytes: 1, memLimitBytes: null }, ports: [] }],
    statuses: [{ name: 'web', ready: true, restartCount: 0, waiting: null, runningSince: '2026-11-21T10:00:05Z', terminated: null, lastTerminated: null }],
    ...extra,
  };
}

const crashing = (name: string) =>
  pod('shop', name, {
    ready: false,
    statuses: [
      {
        name: 'web',
        ready: false,
        restartCount: 7,
        waiting: { reason: 'CrashLoopBackOff', message: 'back-off' },
        runningSince: null,
        terminated: null,
        lastTerminated: { exitCode: 1, reason: 'Error', signal: null, startedAt: '2026-11-21T11:59:00Z', finishedAt: '2026-11-21T11:59:30Z' },
      },
    ],
  });

const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  nodes: () => [{ ...nodeDefaults, name: 'node-1', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null }],
  workloads: () => [{ ...workloadDefaults, namespace: 'shop', name: 'web', kind: 'Deployment', desired: 12, available: 9 }],
  controllers: () => [
    { ...controllerDefaults, namespace: 'shop', name: 'web-5d8f', kind: 'ReplicaSet', owner: { kind: 'Deployment', name: 'web' } },
    { ...controllerDefaults, namespace: 'kube-system', name: 'dns-1', kind: 'ReplicaSet', owner: null },
  ],
  services: () => [{ ...serviceDefaults, namespace: 'shop', name: 'web', selector: { app: 'web' } }],
  ingresses: () => [{ ...ingressDefaults, namespace: 'shop', name: 'web', services: ['web'], hosts: ['shop.example.com'] }],
  configMaps: () => [{ namespace: 'shop', name: 'web-config' }],
  secrets: () => [{ namespace: 'shop', name: 'web-keys' }, { namespace: 'kube-system', name: 'bootstrap' }],
  pvs: () => [{ ...pvDefaults, name: 'pv-dns', phase: 'Bound', claim: { namespace: 'kube-system', name: 'dns-data' }, storageClass: null }],
  pods: () => [...Array.from({ length: 9 }, (_, i) => pod('shop', `web-5d8f-${i}`)), crashing('web-5d8f-9'), crashing('web-5d8f-10'), crashing('web-5d8f-11'), pod('kube-system', 'dns-1-abc', { owner: { kind: 'ReplicaSet', name: 'dns-1' } })],
  resourceQuotas: () => [{ namespace: 'shop', name: 'pods', hard: { pods: '12' }, used: { pods: '12' } }],
};

/** What the diagnosis says about that cluster: three crashing replicas, and a Deployment short because its ReplicaSet hits a full quota. */
const analyzers: AnalyzerEntry[] = [
  {
    name: 'hand',
    reads: [],
    analyze: () => [
      ...['web-5d8f-9', 'web-5d8f-10', 'web-5d8f-11'].map((name) => draft(`pod:shop/${name}`, 'CrashLoopBackOff', 'critical')),
      draft('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['replicaset:shop/web-5d8f']),
      draft('replicaset:shop/web-5d8f', 'ReplicaCreateFailed', 'critical', ['resourcequota:shop/pods']),
      draft('resourcequota:shop/pods', 'QuotaExhausted', 'warning'),
      draft('pod:kube-system/dns-1-abc', 'CrashLoopBackOff', 'critical'),
      draft('pod:shop/web-5d8f-0', 'RestartedPreviously', 'info'),
    ],
  },
];

describe('cluster model', () => {
  it('connects what exists, marks problems, and leaves hidden namespaces and secret data out', async () => {
    const h = await testApp({ cluster, analyzers });
    const cookie = await h.signIn('viewer');
    const all = await h.call('GET', '/graph/subgraph?focus=namespace:shop&hops=4&budget=100000', { cookie });
    assert.equal(all.status, 200, all.text);
    const body = all.body as { nodes: { id: string; labels?: Record<string, string>; problem?: unknown }[]; edges: { from: string; to: string; type: string }[]; truncated: boolean };
    const has = (from: string, type: string, to: string) => body.edges.some((e) => e.from === from && e.type === type && e.to === to);
    assert.ok(has('deployment:shop/web', 'owns', 'replicaset:shop/web-5d8f'));
    assert.ok(has('replicaset:shop/web-5d8f', 'owns', 'pod:shop/web-5d8f-0'));
    assert.ok(has('service:shop/web', 'selects', 'pod:shop/web-5d8f-0'));
    assert.ok(has('ingress:shop/web', 'routes-to', 'service:shop/web'));
    assert.ok(has('pod:shop/web-5d8f-0', 'uses-secret', 'secret:shop/web-keys'));
    assert.ok(has('pod:shop/web-5d8f-0', 'uses-config', 'configmap:shop/web-config'));
    assert.ok(has('pod:shop/web-5d8f-0', 'scheduled-on', 'node:node-1'));
    assert.ok(has('pod:shop/web-5d8f-0', 'runs-image', 'image:example/web:1.0'));
    // Problems are the diagnosis' findings, hung off their objects and chained to their causes; history stays out.
    assert.ok(has('pod:shop/web-5d8f-9', 'has-problem', 'problem:pod:shop/web-5d8f-9#CrashLoopBackOff'));
    assert.ok(body.nodes.find((n) => n.id === 'pod:shop/web-5d8f-9')?.problem);
    assert.ok(has('problem:deployment:shop/web#ReplicasUnavailable', 'caused-by', 'problem:replicaset:shop/web-5d8f#ReplicaCreateFailed'));
    assert.ok(has('problem:replicaset:shop/web-5d8f#ReplicaCreateFailed', 'caused-by', 'problem:resourcequota:shop/pods#QuotaExhausted'));
    assert.ok(has('namespace:shop', 'contains', 'resourcequota:shop/pods'));
    assert.ok(!body.nodes.some((n) => n.id.includes('RestartedPreviously')), 'history is not a problem');
    assert.equal(body.truncated, false);
    assert.ok(!all.text.includes('kube-system') && !all.text.includes('pv-dns'), 'nothing of a hidden namespace, even through the node');
    assert.ok(!all.text.includes('abcdefghijklmnopqrstuvwxyz012345'), 'label values are redacted');
    assert.equal((await h.call('GET', `/graph/entity/${encodeURIComponent('secret:kube-system/bootstrap')}`, { cookie })).status, 403);
    assert.equal((await h.call('GET', `/graph/entity/${encodeURIComponent('secret:shop/nope')}`, { cookie })).status, 404);
    const entity = await h.call('GET', `/graph/entity/${encodeURIComponent('deployment:shop/web')}`, { cookie });
    assert.deepEqual([entity.status, entity.body.link], [200, `/graph/${encodeURIComponent('deployment:shop/web')}`]);
  });

  it('carries the cause of a broken object within a small budget, whatever the hops', async () => {
    const h = await testApp({ cluster, analyzers });
    const cookie = await h.signIn('viewer');
    const res = await h.call('GET', `/graph/subgraph?focus=${encodeURIComponent('deployment:shop/web')}&hops=1&budget=600`, { cookie });
    assert.equal(res.status, 200, res.text);
    const body = res.body as { nodes: { id: string; distance: number }[]; truncated: boolean };
    const ids = body.nodes.map((n) => n.id);
    for (const id of ['problem:deployment:shop/web#ReplicasUnavailable', 'problem:replicaset:shop/web-5d8f#ReplicaCreateFailed', 'problem:resourcequota:shop/pods#QuotaExhausted', 'resourcequota:shop/pods']) {
      assert.ok(ids.includes(id), `${id} in ${ids.join(' ')}`);
    }
    assert.equal(body.nodes.find((n) => n.id === 'problem:resourcequota:shop/pods#QuotaExhausted')?.distance, 1, 'a cause comes at the distance of the problem it explains');
    assert.ok(body.truncated, 'the budget did cut something: the cause was kept over it');
  });

  it('never exceeds the budget, keeps the focus first and problems before the rest, and honours hops', async () => {
    const h = await testApp({ cluster, analyzers });
    const cookie = await h.signIn('viewer');
    const ids = ['namespace:shop', 'deployment:shop/web', 'pod:shop/web-5d8f-3', 'node:node-1', 'service:shop/web', 'image:example/web:1.0'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ids), fc.integer({ min: 200, max: 3000 }), fc.integer({ min: 0, max: 4 }), async (focus, budget, hops) => {
        const res = await h.call('GET', `/graph/subgraph?focus=${encodeURIComponent(focus)}&hops=${hops}&budget=${budget}`, { cookie });
        const body = res.body as { nodes: { id: string; kind: string; distance: number; problem?: unknown }[]; edges: unknown[]; tokens_used: number };
        assert.equal(res.status, 200, res.text);
        assert.ok(Math.ceil(JSON.stringify({ nodes: body.nodes, edges: body.edges }).length / 4) <= budget);
        assert.ok(body.tokens_used <= budget);
        assert.equal(body.nodes[0]?.id, focus);
        assert.ok(body.nodes.every((n) => n.distance <= hops));
        const flags = body.nodes.slice(1).map((n) => n.kind === 'Problem' || n.problem !== undefined);
        assert.ok(flags.lastIndexOf(true) < (flags.indexOf(false) === -1 ? Infinity : flags.indexOf(false)) || flags.indexOf(true) === -1, 'problems first');
      }),
      { numRuns: 60 },
    );
  });

  it('finds nodes by name, kind and label, and refuses bad queries naming the field', async () => {
    const h = await testApp({ cluster, analyzers });
    const cookie = await h.signIn('viewer');
    const found = (await h.call('GET', '/graph/search?q=web-5d8f&kind=Pod&label=app=web', { cookie })).body as { results: { id: string; problem?: unknown }[]; total: number };
    assert.equal(found.total, 12);
    assert.ok(found.results[0]?.problem, 'problems first');
    for (const [query, field] of [['focus=shop', 'focus'], ['focus=namespace:shop&budget=50', 'budget'], ['focus=namespace:shop&hops=x', 'hops']] as const) {
      const res = await h.call('GET', `/graph/subgraph?${query}`, { cookie });
      assert.deepEqual([res.status, res.body.field], [400, field], query);
    }
    assert.equal((await h.call('GET', '/graph/search?kind=Thing', { cookie })).body.field, 'kind');
  });
});
