// `/diagnosis` and `/diagnosis/{id}` through the real app: one shared whole-cluster
// computation, cut per caller (hidden roots unnamed, hidden namespaces refused), 404 for what
// does not exist, a healthy answer for what is fine. Analyzers are hand-made here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { AnalyzerEntry } from '../../domain/diagnosis/engine.ts';
import type { DraftFinding } from '../../domain/diagnosis/input.ts';
import { DIAGNOSIS_TTL_MS } from '../../handlers/diagnosis/service.ts';
import type { Diagnosis, DiagnosisDetail } from '../../schema/diagnosis.ts';
import { draft, pod } from '../support/diagnosis.ts';
import { pvDefaults } from '../support/objects.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'blog', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  nodes: () => [{ name: 'n1', ready: false, conditions: [], taints: [], unschedulable: false, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null, capacity: { cpuM: null, memBytes: null, pods: null }, allocatable: { cpuM: null, memBytes: null, pods: null } }],
  pods: () => [pod('shop', 'api'), pod('shop', 'fine'), pod('blog', 'db'), pod('kube-system', 'dns'), pod('shop', 'web')],
  pvs: () => [{ ...pvDefaults, name: 'pv-dns', phase: 'Bound', claim: { namespace: 'kube-system', name: 'dns' }, storageClass: null, reason: null, message: null, capacityBytes: null, accessModes: [] }],
};

function counting(found: DraftFinding[]): { entry: AnalyzerEntry; runs: () => number } {
  let runs = 0;
  return {
    entry: { name: 'hand', reads: [], analyze: () => { runs++; return found; } },
    runs: () => runs,
  };
}

const found = [
  draft('node:n1', 'NodeNotReady', 'critical', [], ['node:n1']),
  draft('pod:shop/api', 'PodOnUnhealthyNode', 'critical', ['node:n1'], ['pod:shop/api', 'node:n1']),
  draft('pod:blog/db', 'PodOnUnhealthyNode', 'critical', ['node:n1']),
  draft('pod:kube-system/dns', 'CrashLoopBackOff', 'critical'),
  draft('pod:shop/web', 'ServiceEndpointsNotReady', 'warning', ['pod:kube-system/dns']),
];

describe('GET /diagnosis', () => {
  it('answers root causes cut to what the caller may see, from one computation shared for a few seconds', async () => {
    const analyzer = counting(found);
    const h = await testApp({ cluster, analyzers: [analyzer.entry] });
    const cookie = await h.signIn('viewer');
    const res = await h.call('GET', '/api/agent/diagnosis', { cookie });
    assert.equal(res.status, 200, res.text);
    const body = res.body as unknown as Diagnosis;
    assert.deepEqual(body.root_causes.map((r) => [r.finding.id, r.effects.map((e) => e.id)]), [['node:n1#NodeNotReady', ['pod:blog/db#PodOnUnhealthyNode', 'pod:shop/api#PodOnUnhealthyNode']]]);
    assert.deepEqual(body.hidden_causes.map((c) => [c.effect.id, c.effect.caused_by, c.reason]), [['pod:shop/web#ServiceEndpointsNotReady', null, 'cause_outside_visible_namespaces']]);
    assert.ok(!res.text.includes('kube-system'), 'the hidden cause is never named');
    assert.equal(body.root_causes[0]?.effects[1]?.evidence[1]?.link, '/graph/node%3An1');
    assert.equal(body.generated_at, h.clock.now().toISOString());

    await h.call('GET', '/api/agent/diagnosis?namespace=shop', { cookie });
    await h.call('GET', '/api/agent/diagnosis/pod%3Ashop%2Fapi', { cookie });
    assert.equal(analyzer.runs(), 1, 'every answer within the window reads the same computation');
    h.clock.advance(DIAGNOSIS_TTL_MS);
    await h.call('GET', '/api/agent/diagnosis', { cookie });
    assert.equal(analyzer.runs(), 2, 'and it is made again once the window has passed');
  });

  it('keeps, for one namespace, the roots touching it; a hidden namespace is the standard 403', async () => {
    const h = await testApp({ cluster, analyzers: [counting(found).entry] });
    const cookie = await h.signIn('viewer');
    const blog = await h.call('GET', '/api/agent/diagnosis?namespace=blog', { cookie });
    assert.equal(blog.status, 200, blog.text);
    assert.deepEqual((blog.body as unknown as Diagnosis).hidden_causes, []);
    assert.equal((blog.body as unknown as Diagnosis).namespace, 'blog');
    const hidden = await h.call('GET', '/api/agent/diagnosis?namespace=kube-system', { cookie });
    assert.equal(hidden.status, 403, hidden.text);
    assert.ok(!hidden.text.includes('CrashLoopBackOff'));
    assert.equal((await h.call('GET', '/api/agent/diagnosis?namespace=Not_A_Name', { cookie })).status, 400);
  });

  it('honours tenantNamespaces: a root in a namespace outside them is hidden like a system one', async () => {
    const h = await testApp({ cluster, tenantNamespaces: ['blog'], analyzers: [counting(found).entry] });
    const cookie = await h.signIn('viewer');
    const body = (await h.call('GET', '/api/agent/diagnosis', { cookie })).body as unknown as Diagnosis;
    assert.deepEqual(body.root_causes.map((r) => [r.finding.id, r.effects.map((e) => e.id)]), [['node:n1#NodeNotReady', ['pod:blog/db#PodOnUnhealthyNode']]]);
    assert.deepEqual(body.hidden_causes, []);
  });
});

describe('GET /diagnosis/{id}', () => {
  const rows: { name: string; id: string; status: number; check?: (d: DiagnosisDetail) => void }[] = [
    {
      name: 'a broken object: its findings, the chain to the root, the root',
      id: 'pod:shop/api',
      status: 200,
      check: (d) => {
        assert.equal(d.healthy, false);
        assert.deepEqual(d.chain.map((f) => f.id), ['pod:shop/api#PodOnUnhealthyNode', 'node:n1#NodeNotReady']);
        assert.equal(d.root_cause?.id, 'node:n1#NodeNotReady');
      },
    },
    { name: 'a root: what it causes', id: 'node:n1', status: 200, check: (d) => assert.deepEqual(d.effects.map((f) => f.id), ['pod:blog/db#PodOnUnhealthyNode', 'pod:shop/api#PodOnUnhealthyNode']) },
    { name: 'a cause outside what the caller may see: cut, unnamed', id: 'pod:shop/web', status: 200, check: (d) => assert.deepEqual([d.chain.length, d.root_cause, d.cause_hidden], [1, null, true]) },
    { name: 'a healthy object answers healthy with empty lists', id: 'pod:shop/fine', status: 200, check: (d) => assert.deepEqual([d.healthy, d.findings, d.chain, d.root_cause, d.effects, d.notes], [true, [], [], null, [], []]) },
    { name: 'a namespace is an object too', id: 'namespace:shop', status: 200, check: (d) => assert.equal(d.healthy, true) },
    { name: 'an object in a hidden namespace: 403', id: 'pod:kube-system/dns', status: 403 },
    { name: 'an object that does not exist: 404', id: 'pod:shop/nope', status: 404 },
    { name: 'a volume bound to a hidden claim: 404, as in the graph', id: 'pv:pv-dns', status: 404 },
    { name: 'an unknown kind: 404', id: 'widget:shop/x', status: 404 },
    { name: 'not a node id: 400', id: 'nonsense', status: 400 },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const h = await testApp({ cluster, analyzers: [counting(found).entry] });
      const cookie = await h.signIn('viewer');
      const res = await h.call('GET', `/api/agent/diagnosis/${encodeURIComponent(row.id)}`, { cookie });
      assert.equal(res.status, row.status, res.text);
      if (row.status === 403) assert.ok(!res.text.includes('CrashLoopBackOff'));
      if (row.check) row.check(res.body as unknown as DiagnosisDetail);
    });
  }
});

const crashing = (namespace: string, name: string) => ({
  ...pod(namespace, name),
  ready: false,
  statuses: [{ name: 'app', ready: false, restartCount: 3, waiting: { reason: 'CrashLoopBackOff', message: null }, runningSince: null, terminated: null, lastTerminated: null }],
});
const broken: ClusterView = { ...cluster, pods: () => [crashing('shop', 'api'), pod('shop', 'fine'), pod('blog', 'db'), pod('kube-system', 'dns'), crashing('shop', 'web'), crashing('shop', 'alone')] };
describe('every surface tells the same story', () => {
  const withAlone = [...found, draft('pod:shop/alone', 'CrashLoopBackOff', 'critical')];

  it("makes each pod's incident its diagnosis finding, with the root of its chain: another visible finding's, its own, or null when hidden", async () => {
    const h = await testApp({ cluster: broken, analyzers: [counting(withAlone).entry] });
    const cookie = await h.signIn('viewer');
    const list = await h.call('GET', '/api/agent/incidents', { cookie });
    assert.equal(list.status, 200, list.text);
    const causes = Object.fromEntries((list.body.incidents as { pod: string; root_cause: unknown }[]).map((i) => [i.pod, i.root_cause]));
    assert.deepEqual(causes, {
      api: { code: 'NodeNotReady', summary: 'NodeNotReady on n1', node_id: 'node:n1' },
      db: { code: 'NodeNotReady', summary: 'NodeNotReady on n1', node_id: 'node:n1' },
      alone: { code: 'CrashLoopBackOff', summary: 'CrashLoopBackOff on shop/alone', node_id: 'pod:shop/alone' },
      web: null,
    });
    // Each incident is its pod's own finding: the code is the reason, the summary the detail.
    const alone = (list.body.incidents as { pod: string; reason: string; detail: string; severity: string }[]).find((i) => i.pod === 'alone');
    assert.deepEqual([alone?.reason, alone?.detail, alone?.severity], ['CrashLoopBackOff', 'CrashLoopBackOff on shop/alone', 'critical']);
    assert.ok(!list.text.includes('kube-system'));
    const one = await h.call('GET', '/api/agent/incidents/shop/api', { cookie });
    assert.deepEqual((one.body.incident as { root_cause: unknown }).root_cause, causes.api);
  });

  it('names root causes in the overview reasons, and the hidden ones only as hidden', async () => {
    const h = await testApp({ cluster: broken, analyzers: [counting(withAlone).entry] });
    const cookie = await h.signIn('viewer');
    const res = await h.call('GET', '/api/agent/overview', { cookie });
    assert.equal(res.status, 200, res.text);
    const shop = (res.body.namespaces as { namespace: string; health_score: string; reasons: string[] }[]).find((n) => n.namespace === 'shop');
    assert.deepEqual(shop, {
      ...shop,
      health_score: 'critical',
      reasons: ['NodeNotReady on n1 → PodOnUnhealthyNode on shop/api', 'CrashLoopBackOff on shop/alone', '1 problem(s) caused outside what Capstan may show'],
    });
    assert.ok(!res.text.includes('kube-system'));
  });
});

describe('MCP: diagnose and get_health', () => {
  const callTool = async (name: string, args: Record<string, unknown>) => {
    const h = await testApp({ cluster: broken, analyzers: [counting(found).entry] });
    const cookie = await h.signIn('viewer');
    const direct = await h.call('GET', '/api/agent/diagnosis', { cookie });
    const res = await h.call('POST', '/api/agent/mcp/tools/call', { cookie, body: { name, arguments: args } });
    return { status: res.status, text: res.text, content: res.body.structuredContent as Record<string, unknown> | undefined, direct: direct.body };
  };

  it('diagnose answers what GET /diagnosis answers', async () => {
    const res = await callTool('diagnose', {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.content, res.direct);
  });

  it('diagnose with an id explains one object', async () => {
    const res = await callTool('diagnose', { id: 'pod:shop/api' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((res.content?.chain as { id: string }[]).map((f) => f.id), ['pod:shop/api#PodOnUnhealthyNode', 'node:n1#NodeNotReady']);
  });

  const refusals: { name: string; args: Record<string, unknown>; status: number; field?: string }[] = [
    { name: 'a hidden namespace', args: { namespace: 'kube-system' }, status: 403 },
    { name: 'an id in a hidden namespace', args: { id: 'pod:kube-system/dns' }, status: 403 },
    { name: 'an id that does not exist', args: { id: 'pod:shop/nope' }, status: 404 },
    { name: 'both namespace and id', args: { namespace: 'shop', id: 'pod:shop/api' }, status: 400, field: 'arguments.id' },
  ];
  for (const row of refusals) {
    it(`diagnose refuses ${row.name}`, async () => {
      const res = await callTool('diagnose', row.args);
      assert.equal(res.status, row.status, res.text);
      assert.ok(!res.text.includes('CrashLoopBackOff'));
      if (row.field) assert.match(res.text, new RegExp(row.field));
    });
  }

  it("get_health gives a namespace's verdict with the root causes behind it", async () => {
    const res = await callTool('get_health', { namespace: 'shop' });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.content?.health as { health_score: string }).health_score, 'critical');
    assert.deepEqual((res.content?.root_causes as { finding: { id: string } }[]).map((r) => r.finding.id), ['node:n1#NodeNotReady']);
    assert.deepEqual((res.content?.hidden_causes as { effect: { id: string } }[]).map((h) => h.effect.id), ['pod:shop/web#ServiceEndpointsNotReady']);
    assert.ok(Array.isArray(res.content?.incidents));
  });

  it('get_health without a namespace gives every verdict and every root cause', async () => {
    const res = await callTool('get_health', {});
    assert.equal(res.status, 200, res.text);
    assert.deepEqual((res.content?.namespaces as { namespace: string }[]).map((n) => n.namespace).sort(), ['blog', 'shop']);
    assert.equal((res.content?.root_causes as unknown[]).length, 1);
    assert.ok(!res.text.includes('kube-system'));
  });
});
