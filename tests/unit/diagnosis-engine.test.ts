// The diagnosis engine over hand-made findings (the analyzers are tested on their own):
// chaining, the tie order, cycle refusal, folding of replicas, history notes, silent
// analyzers, deep links, and the cut to what one caller may see. One table per concern.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheSyncStatus, ClusterView, PodObject } from '../../domain/cluster/model.ts';
import { diagnose, tieOrder, type AnalyzerEntry, type ClusterDiagnosis } from '../../domain/diagnosis/engine.ts';
import type { DraftFinding } from '../../domain/diagnosis/input.ts';
import { detailFor, diagnosisFor, problemOf } from '../../domain/diagnosis/visible.ts';
import { isVisibleNamespace } from '../../domain/namespaces/visibility.ts';
import { pvDefaults } from '../support/objects.ts';
import type { Severity } from '../../schema/common.ts';
import { emptyCluster } from '../support/services.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

/** A cluster view with nothing in it but what a case gives. */
function view(parts: Partial<ClusterView> = {}): ClusterView {
  return {
    ...emptyCluster,
    ...parts,
  };
}

/** `finding('pod:shop/a', 'CrashLoopBackOff', 'critical', ['node:n1'])`. */
function finding(object: string, code: string, severity: Severity, suspects: string[] = [], evidenceOn: string[] = []): DraftFinding {
  const colon = object.indexOf(':');
  const slash = object.indexOf('/');
  return {
    id: `${object}#${code}`,
    code,
    severity,
    object,
    namespace: slash > colon ? object.slice(colon + 1, slash) : null,
    summary: `${object} ${code}`,
    evidence: evidenceOn.map((node_id) => ({ node_id, fact: `fact about ${node_id}`, source: 'status' as const, link: null })),
    since: null,
    attributes: {},
    suspects,
  };
}

const analyzer = (found: DraftFinding[], reads: string[] = [], name = 'test'): AnalyzerEntry => ({ name, reads, analyze: () => found });
const CODE_ORDER = ['NodeNotReady', 'CrashLoopBackOff', 'OOMKilled', 'PodOnUnhealthyNode', 'ReplicasUnavailable', 'ReplicaCreateFailed', 'QuotaExhausted'];
const run = (found: DraftFinding[], parts: Partial<ClusterView> = {}) => diagnose(view(parts), NOW, { analyzers: [analyzer(found)], codeOrder: CODE_ORDER });

const causeOf = (d: ClusterDiagnosis, id: string) => d.findings.get(id)?.caused_by;
const rootsOf = (d: ClusterDiagnosis) => d.roots.map((r) => ({ root: r.finding.id, effects: r.effects.map((e) => e.id), also: r.also }));

function replica(name: string, owner: string): PodObject {
  return {
    namespace: 'shop', name, phase: 'Running', createdAt: null, startedAt: null, nodeName: 'n1', labels: {},
    workload: { kind: 'Deployment', name: 'web' }, owner: { kind: 'ReplicaSet', name: owner }, refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: false, readySince: null, unschedulable: null, containers: [], statuses: [], initContainers: [], initStatuses: [],
    statusReason: null, deletion: null, finalizers: [], nodeSelector: {},
  };
}

describe('diagnosis engine: chaining', () => {
  const rows: { name: string; found: DraftFinding[]; parts?: Partial<ClusterView>; want: { root: string; effects: string[]; also: string[] }[]; causes?: Record<string, string | null> }[] = [
    {
      name: 'a chain of three: deployment ← replicaset ← quota',
      found: [
        finding('deployment:shop/api', 'ReplicasUnavailable', 'warning', ['replicaset:shop/api-1']),
        finding('replicaset:shop/api-1', 'ReplicaCreateFailed', 'critical', ['resourcequota:shop/pods']),
        finding('resourcequota:shop/pods', 'QuotaExhausted', 'warning'),
      ],
      want: [{ root: 'resourcequota:shop/pods#QuotaExhausted', effects: ['replicaset:shop/api-1#ReplicaCreateFailed', 'deployment:shop/api#ReplicasUnavailable'], also: [] }],
      causes: { 'deployment:shop/api#ReplicasUnavailable': 'replicaset:shop/api-1#ReplicaCreateFailed', 'replicaset:shop/api-1#ReplicaCreateFailed': 'resourcequota:shop/pods#QuotaExhausted', 'resourcequota:shop/pods#QuotaExhausted': null },
    },
    {
      name: 'the first suspect that has a finding wins, later ones are not consulted',
      found: [finding('deployment:shop/api', 'ReplicasUnavailable', 'warning', ['replicaset:shop/quiet', 'pod:shop/b', 'pod:shop/a']), finding('pod:shop/a', 'CrashLoopBackOff', 'critical'), finding('pod:shop/b', 'OOMKilled', 'critical')],
      want: [
        { root: 'pod:shop/b#OOMKilled', effects: ['deployment:shop/api#ReplicasUnavailable'], also: [] },
        { root: 'pod:shop/a#CrashLoopBackOff', effects: [], also: [] },
      ],
    },
    {
      name: 'a suspect that is not a finding anywhere leaves the finding a root',
      found: [finding('pod:shop/a', 'CrashLoopBackOff', 'critical', ['node:n1', 'configmap:shop/missing'])],
      want: [{ root: 'pod:shop/a#CrashLoopBackOff', effects: [], also: [] }],
    },
    {
      name: 'a finding suspecting its own object links to the other finding there, never to itself',
      found: [finding('pod:shop/a', 'PodOnUnhealthyNode', 'warning', ['pod:shop/a', 'node:n1']), finding('pod:shop/a', 'CrashLoopBackOff', 'critical')],
      want: [{ root: 'pod:shop/a#CrashLoopBackOff', effects: ['pod:shop/a#PodOnUnhealthyNode'], also: [] }],
    },
    {
      name: 'effects come nearest first, then in the tie order',
      found: [
        finding('node:n1', 'NodeNotReady', 'critical'),
        finding('pod:shop/b', 'PodOnUnhealthyNode', 'critical', ['node:n1']),
        finding('pod:shop/a', 'PodOnUnhealthyNode', 'warning', ['node:n1']),
        finding('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['pod:shop/a']),
        finding('pod:other/c', 'PodOnUnhealthyNode', 'critical', ['node:n1']),
      ],
      want: [
        {
          root: 'node:n1#NodeNotReady',
          effects: ['pod:other/c#PodOnUnhealthyNode', 'pod:shop/b#PodOnUnhealthyNode', 'pod:shop/a#PodOnUnhealthyNode', 'deployment:shop/web#ReplicasUnavailable'],
          also: [],
        },
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const d = run(row.found, row.parts);
      assert.deepEqual(rootsOf(d), row.want);
      for (const [id, cause] of Object.entries(row.causes ?? {})) assert.equal(causeOf(d, id), cause, id);
    });
  }
});

describe('diagnosis engine: tie order among several findings on one suspect', () => {
  const rows: { name: string; onSuspect: DraftFinding[]; want: string }[] = [
    { name: 'critical before warning', onSuspect: [finding('pod:shop/x', 'PodOnUnhealthyNode', 'warning'), finding('pod:shop/x', 'OOMKilled', 'critical')], want: 'pod:shop/x#OOMKilled' },
    { name: 'same severity: lower code rank first', onSuspect: [finding('pod:shop/x', 'OOMKilled', 'critical'), finding('pod:shop/x', 'CrashLoopBackOff', 'critical')], want: 'pod:shop/x#CrashLoopBackOff' },
    { name: 'same severity, codes outside the list: by id', onSuspect: [finding('pod:shop/x', 'Zeta', 'critical'), finding('pod:shop/x', 'Alpha', 'critical')], want: 'pod:shop/x#Alpha' },
    { name: 'a ranked code before an unranked one', onSuspect: [finding('pod:shop/x', 'Alpha', 'critical'), finding('pod:shop/x', 'QuotaExhausted', 'critical')], want: 'pod:shop/x#QuotaExhausted' },
    { name: 'history (info) is never a cause', onSuspect: [finding('pod:shop/x', 'OOMKilledPreviously', 'info')], want: '' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const d = run([finding('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['pod:shop/x']), ...row.onSuspect]);
      assert.equal(causeOf(d, 'deployment:shop/web#ReplicasUnavailable'), row.want === '' ? null : row.want);
      // The object's findings are listed in the same order.
      assert.deepEqual(
        d.byObject.get('pod:shop/x')?.map((f) => f.id),
        [...row.onSuspect].sort(tieOrder(CODE_ORDER)).map((f) => f.id),
      );
    });
  }
});

describe('diagnosis engine: cycle refusal', () => {
  const rows: { name: string; found: DraftFinding[]; causes: Record<string, string | null> }[] = [
    {
      name: 'two findings suspecting each other: the one first in the tie order links, the other stays the root',
      found: [finding('replicaset:shop/a', 'ReplicaCreateFailed', 'critical', ['resourcequota:shop/q']), finding('resourcequota:shop/q', 'QuotaExhausted', 'warning', ['replicaset:shop/a'])],
      causes: { 'replicaset:shop/a#ReplicaCreateFailed': 'resourcequota:shop/q#QuotaExhausted', 'resourcequota:shop/q#QuotaExhausted': null },
    },
    {
      name: 'a cycle of three is cut at its last link in processing order',
      found: [finding('pod:shop/a', 'CrashLoopBackOff', 'critical', ['pod:shop/b']), finding('pod:shop/b', 'CrashLoopBackOff', 'critical', ['pod:shop/c']), finding('pod:shop/c', 'CrashLoopBackOff', 'critical', ['pod:shop/a'])],
      causes: { 'pod:shop/a#CrashLoopBackOff': 'pod:shop/b#CrashLoopBackOff', 'pod:shop/b#CrashLoopBackOff': 'pod:shop/c#CrashLoopBackOff', 'pod:shop/c#CrashLoopBackOff': null },
    },
    {
      name: 'a refused link falls through to the next suspect',
      found: [finding('pod:shop/a', 'CrashLoopBackOff', 'critical', ['pod:shop/b']), finding('pod:shop/b', 'OOMKilled', 'critical', ['pod:shop/a', 'node:n1']), finding('node:n1', 'NodeNotReady', 'warning')],
      causes: { 'pod:shop/a#CrashLoopBackOff': 'pod:shop/b#OOMKilled', 'pod:shop/b#OOMKilled': 'node:n1#NodeNotReady', 'node:n1#NodeNotReady': null },
    },
    {
      name: 'a refused link falls through to the next finding on the same suspect',
      found: [
        finding('pod:shop/a', 'CrashLoopBackOff', 'critical', ['pod:shop/b']),
        finding('pod:shop/b', 'OOMKilled', 'critical', ['pod:shop/a']),
        finding('pod:shop/a', 'PodOnUnhealthyNode', 'warning'),
      ],
      causes: { 'pod:shop/a#CrashLoopBackOff': 'pod:shop/b#OOMKilled', 'pod:shop/b#OOMKilled': 'pod:shop/a#PodOnUnhealthyNode', 'pod:shop/a#PodOnUnhealthyNode': null },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const d = run(row.found);
      for (const [id, cause] of Object.entries(row.causes)) assert.equal(causeOf(d, id), cause, id);
      // Whatever the input order, the answer is the same.
      assert.deepEqual(rootsOf(run([...row.found].reverse())), rootsOf(d));
      // Every chain ends.
      for (const f of d.findings.values()) {
        const seen = new Set<string>();
        for (let at: string | null | undefined = f.id; at; at = causeOf(d, at)) {
          assert.ok(!seen.has(at), `cycle through ${at}`);
          seen.add(at);
        }
      }
    });
  }
});

describe('diagnosis engine: folding replicas', () => {
  const pods = () => [replica('web-1-c', 'web-1'), replica('web-1-a', 'web-1'), replica('web-1-b', 'web-1'), replica('web-2-a', 'web-2')];
  const rows: { name: string; found: DraftFinding[]; want: { root: string; effects: string[]; also: string[] }[] }[] = [
    {
      name: 'the same code on pods of one ReplicaSet is one root, the first by name, effects merged',
      found: [
        finding('pod:shop/web-1-c', 'CrashLoopBackOff', 'critical'),
        finding('pod:shop/web-1-b', 'CrashLoopBackOff', 'critical'),
        finding('pod:shop/web-1-a', 'CrashLoopBackOff', 'critical'),
        finding('service:shop/web', 'ServiceEndpointsNotReady', 'warning', ['pod:shop/web-1-c']),
        finding('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['pod:shop/web-1-b']),
      ],
      want: [{ root: 'pod:shop/web-1-a#CrashLoopBackOff', effects: ['deployment:shop/web#ReplicasUnavailable', 'service:shop/web#ServiceEndpointsNotReady'], also: ['pod:shop/web-1-b', 'pod:shop/web-1-c'] }],
    },
    {
      name: 'another owner or another code is another root',
      found: [finding('pod:shop/web-1-a', 'CrashLoopBackOff', 'critical'), finding('pod:shop/web-2-a', 'CrashLoopBackOff', 'critical'), finding('pod:shop/web-1-b', 'OOMKilled', 'critical')],
      want: [
        { root: 'pod:shop/web-1-a#CrashLoopBackOff', effects: [], also: [] },
        { root: 'pod:shop/web-1-b#OOMKilled', effects: [], also: [] },
        { root: 'pod:shop/web-2-a#CrashLoopBackOff', effects: [], also: [] },
      ],
    },
    {
      name: 'a replica whose finding has a cause is an effect, not folded',
      found: [finding('node:n1', 'NodeNotReady', 'critical'), finding('pod:shop/web-1-a', 'CrashLoopBackOff', 'critical', ['node:n1']), finding('pod:shop/web-1-b', 'CrashLoopBackOff', 'critical')],
      want: [
        { root: 'node:n1#NodeNotReady', effects: ['pod:shop/web-1-a#CrashLoopBackOff'], also: [] },
        { root: 'pod:shop/web-1-b#CrashLoopBackOff', effects: [], also: [] },
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(rootsOf(run(row.found, { pods })), row.want));
  }
});

describe('diagnosis engine: roots, notes, order', () => {
  it('never makes history (info) a root; it is a note, unchained', () => {
    const d = run([finding('pod:shop/a', 'RestartedPreviously', 'info', ['node:n1']), finding('node:n1', 'NodeCordoned', 'warning')]);
    assert.deepEqual(rootsOf(d), [{ root: 'node:n1#NodeCordoned', effects: [], also: [] }]);
    assert.deepEqual(d.notes.map((n) => n.id), ['pod:shop/a#RestartedPreviously']);
    assert.equal(causeOf(d, 'pod:shop/a#RestartedPreviously'), null);
  });

  it('orders roots critical first, then by more effects, then by id', () => {
    const d = run([
      finding('pod:shop/z', 'OOMKilled', 'critical'),
      finding('pod:shop/y', 'OOMKilled', 'critical'),
      finding('node:n1', 'NodeCordoned', 'warning'),
      finding('pod:shop/q', 'PodOnUnhealthyNode', 'warning', ['node:n1']),
      finding('node:n2', 'NodeNotReady', 'critical'),
      finding('pod:shop/p', 'PodOnUnhealthyNode', 'critical', ['node:n2']),
      finding('service:shop/s', 'ServiceNoMatchingPods', 'warning'),
    ]);
    assert.deepEqual(
      d.roots.map((r) => r.finding.id),
      ['node:n2#NodeNotReady', 'pod:shop/y#OOMKilled', 'pod:shop/z#OOMKilled', 'node:n1#NodeCordoned', 'service:shop/s#ServiceNoMatchingPods'],
    );
  });

  it('keeps one finding per id when two analyzers report the same', () => {
    const d = diagnose(view(), NOW, { analyzers: [analyzer([finding('pod:shop/a', 'OOMKilled', 'critical')], [], 'one'), analyzer([{ ...finding('pod:shop/a', 'OOMKilled', 'critical'), summary: 'second' }], [], 'two')] });
    assert.equal(d.findings.size, 1);
    assert.equal(d.findings.get('pod:shop/a#OOMKilled')?.summary, 'pod:shop/a OOMKilled');
  });
});

describe('diagnosis engine: silent analyzers', () => {
  const status = (resource: string, forbidden: boolean): CacheSyncStatus => ({ resource, synced: true, failing_since: null, forbidden, forbidden_namespaces: [] });
  const rows: { name: string; analyzers: AnalyzerEntry[]; sync: CacheSyncStatus[]; silent: string[]; findings: number }[] = [
    { name: 'nothing forbidden: nobody silent', analyzers: [analyzer([], ['resourcequotas'], 'quota')], sync: [status('resourcequotas', false)], silent: [], findings: 0 },
    {
      name: 'a forbidden resource names every analyzer reading it; they still run',
      analyzers: [analyzer([finding('pod:shop/a', 'OOMKilled', 'critical')], ['pods', 'events'], 'pods'), analyzer([], ['resourcequotas', 'events'], 'quota')],
      sync: [status('events', true), status('resourcequotas', false)],
      silent: ['events: RBAC forbids reading events: the pods, quota analyzers cannot see it and say nothing about it'],
      findings: 1,
    },
    {
      name: 'each forbidden resource once, in name order',
      analyzers: [analyzer([], ['storageclasses', 'persistentvolumes'], 'storage')],
      sync: [status('storageclasses', true), status('persistentvolumes', true)],
      silent: ['persistentvolumes: RBAC forbids reading persistentvolumes: the storage analyzer cannot see it and says nothing about it', 'storageclasses: RBAC forbids reading storageclasses: the storage analyzer cannot see it and says nothing about it'],
      findings: 0,
    },
    {
      name: 'an analyzer that throws is reported, the others still answer',
      analyzers: [{ name: 'broken', reads: [], analyze: () => { throw new Error('boom'); } }, analyzer([finding('pod:shop/a', 'OOMKilled', 'critical')])],
      sync: [],
      silent: ['broken: the broken analyzer failed: boom'],
      findings: 1,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const d = diagnose(view({ syncStatus: () => row.sync }), NOW, { analyzers: row.analyzers });
      assert.deepEqual(d.silent.map((s) => `${s.resource}: ${s.reason}`), row.silent);
      assert.equal(d.findings.size, row.findings);
    });
  }
});

describe('diagnosis engine: evidence links', () => {
  it('links evidence about an existing object to its view, and evidence about a missing one to nothing', () => {
    const d = run([finding('pod:shop/a', 'CreateContainerConfigError', 'critical', ['configmap:shop/missing'], ['pod:shop/a', 'configmap:shop/missing', 'node:n1', 'namespace:shop'])], {
      pods: () => [replica('a', 'rs')],
      nodes: () => [{ name: 'n1', ready: true, conditions: [], taints: [], unschedulable: false, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null, capacity: { cpuM: null, memBytes: null, pods: null }, allocatable: { cpuM: null, memBytes: null, pods: null } }],
      namespaces: () => [{ name: 'shop', phase: 'Active', createdAt: null, labels: {} }],
    });
    assert.deepEqual(
      d.findings.get('pod:shop/a#CreateContainerConfigError')?.evidence.map((e) => [e.node_id, e.link]),
      [
        ['pod:shop/a', '/namespaces/shop/pods/a'],
        ['configmap:shop/missing', null],
        ['node:n1', '/graph/node%3An1'],
        ['namespace:shop', '/namespaces/shop'],
      ],
    );
  });
});

describe('diagnosis cut to what a caller may see', () => {
  const visible = (ns: string) => isVisibleNamespace(ns, []);
  const found = [
    // A hidden root whose effect is visible (through a cluster-scoped node).
    finding('pod:kube-system/dns', 'CrashLoopBackOff', 'critical'),
    finding('node:n1', 'NodeNetworkUnavailable', 'warning', ['pod:kube-system/dns'], ['pod:kube-system/dns']),
    finding('pod:shop/web', 'PodOnUnhealthyNode', 'warning', ['node:n1']),
    // A visible chain crossing namespaces through a node.
    finding('node:n2', 'NodeNotReady', 'critical'),
    finding('pod:shop/api', 'PodOnUnhealthyNode', 'critical', ['node:n2']),
    finding('pod:blog/db', 'PodOnUnhealthyNode', 'critical', ['node:n2']),
    // A volume bound to a hidden claim is as hidden as its claim.
    finding('pv:pv-dns', 'PvReleased', 'warning'),
    finding('pod:shop/old', 'RestartedPreviously', 'info'),
    finding('pod:kube-system/old', 'RestartedPreviously', 'info'),
  ];
  const d = run(found, { pvs: () => [{ ...pvDefaults, name: 'pv-dns', phase: 'Released', claim: { namespace: 'kube-system', name: 'dns-data' }, storageClass: null, reason: null, message: null, capacityBytes: null, accessModes: [] }] });

  it('shows visible roots with their visible effects, hides hidden roots and names them nowhere', () => {
    const cut = diagnosisFor(d, visible, null);
    assert.deepEqual(cut.root_causes.map((r) => [r.finding.id, r.effects.map((e) => e.id)]), [['node:n2#NodeNotReady', ['pod:blog/db#PodOnUnhealthyNode', 'pod:shop/api#PodOnUnhealthyNode']]]);
    assert.deepEqual(cut.hidden_causes.map((h) => [h.effect.id, h.effect.caused_by, h.reason]), [
      ['node:n1#NodeNetworkUnavailable', null, 'cause_outside_visible_namespaces'],
      ['pod:shop/web#PodOnUnhealthyNode', 'node:n1#NodeNetworkUnavailable', 'cause_outside_visible_namespaces'],
    ]);
    assert.deepEqual(cut.notes.map((n) => n.id), ['pod:shop/old#RestartedPreviously']);
    assert.ok(!JSON.stringify(cut).includes('kube-system'), 'nothing names the hidden namespace');
    assert.ok(!JSON.stringify(cut).includes('pv-dns'), 'nor the volume of its claim');
    assert.equal(cut.total_findings, 6);
  });

  it('keeps, for one namespace, the roots whose object or some effect lies in it', () => {
    assert.deepEqual(diagnosisFor(d, visible, 'blog').root_causes.map((r) => r.finding.id), ['node:n2#NodeNotReady']);
    assert.deepEqual(diagnosisFor(d, visible, 'blog').hidden_causes, []);
    assert.deepEqual(diagnosisFor(d, visible, 'shop').hidden_causes.map((h) => h.effect.id), ['pod:shop/web#PodOnUnhealthyNode']);
    assert.deepEqual(diagnosisFor(d, visible, 'empty').root_causes, []);
  });

  it("keeps, for one namespace, a volume whose claim lies in it (a Released volume is about that namespace's data)", () => {
    const withShopVolume = run([finding('pv:pv-shop', 'PvReleased', 'warning')], { pvs: () => [{ ...pvDefaults, name: 'pv-shop', phase: 'Released', claim: { namespace: 'shop', name: 'old-data' }, storageClass: null }] });
    assert.deepEqual(diagnosisFor(withShopVolume, visible, 'shop').root_causes.map((r) => r.finding.id), ['pv:pv-shop#PvReleased']);
    assert.deepEqual(diagnosisFor(withShopVolume, visible, 'blog').root_causes, []);
  });

  it('explains one object: its findings, the chain to the root, what it causes', () => {
    const api = detailFor(d, visible, 'pod:shop/api');
    assert.equal(api.healthy, false);
    assert.deepEqual(api.chain.map((f) => f.id), ['pod:shop/api#PodOnUnhealthyNode', 'node:n2#NodeNotReady']);
    assert.equal(api.root_cause?.id, 'node:n2#NodeNotReady');
    assert.equal(api.cause_hidden, false);
    const node = detailFor(d, visible, 'node:n2');
    assert.deepEqual(node.effects.map((f) => f.id), ['pod:blog/db#PodOnUnhealthyNode', 'pod:shop/api#PodOnUnhealthyNode']);
    assert.equal(node.root_cause?.id, 'node:n2#NodeNotReady');
    const web = detailFor(d, visible, 'pod:shop/web');
    assert.deepEqual(web.chain.map((f) => f.id), ['pod:shop/web#PodOnUnhealthyNode', 'node:n1#NodeNetworkUnavailable']);
    assert.equal(web.root_cause, null);
    assert.equal(web.cause_hidden, true);
    assert.ok(!JSON.stringify(web).includes('kube-system'));
    const healthy = detailFor(d, visible, 'service:shop/quiet');
    assert.deepEqual({ ...healthy, generated_at: '' }, { object: 'service:shop/quiet', healthy: true, findings: [], chain: [], root_cause: null, cause_hidden: false, effects: [], notes: [], generated_at: '' });
    assert.deepEqual(detailFor(d, visible, 'pod:shop/old').notes.map((f) => f.id), ['pod:shop/old#RestartedPreviously']);
    assert.equal(detailFor(d, visible, 'pod:shop/old').healthy, true);
  });

  it("an object's problem: its own first finding, and its chain's root unless the chain leaves what the caller may see", () => {
    const api = problemOf(d, visible, 'pod:shop/api');
    assert.ok(api !== null);
    assert.equal(api.finding.object, 'pod:shop/api');
    assert.deepEqual(api.root, { code: 'NodeNotReady', summary: 'node:n2 NodeNotReady', node_id: 'node:n2' });
    assert.deepEqual(problemOf(d, visible, 'node:n2')?.root, { code: 'NodeNotReady', summary: 'node:n2 NodeNotReady', node_id: 'node:n2' }, 'its own finding is the root: named');
    const web = problemOf(d, visible, 'pod:shop/web');
    assert.ok(web !== null, 'the problem is shown');
    assert.equal(web.root, null, 'its root is hidden: never named');
    assert.equal(web.finding.caused_by, 'node:n1#NodeNetworkUnavailable', 'the link to the visible node stays; the chain beyond it is cut');
    assert.equal(problemOf(d, visible, 'pod:shop/old'), null, 'history only');
    assert.equal(problemOf(d, visible, 'pod:shop/none'), null, 'no finding');
  });
});
