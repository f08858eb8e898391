// The nodes analyzer at its boundaries: Ready False versus Unknown, a Lease exactly at the
// grace bound and just past it, pressure conditions, the cordon, and the pods left on a node
// that is not ready or unreachable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, Condition, LeaseObject, NodeObject, PodObject } from '../../domain/cluster/model.ts';
import { analyzeNodes, NODE_CODES } from '../../domain/diagnosis/analyzers/nodes.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const ago = (secs: number): string => new Date(NOW.getTime() - secs * 1000).toISOString();

function view(objects: { nodes?: NodeObject[]; leases?: LeaseObject[]; pods?: PodObject[] }): ClusterView {
  const none = () => [];
  return {
    namespaces: none,
    pods: () => objects.pods ?? [],
    nodes: () => objects.nodes ?? [],
    events: none,
    workloads: none,
    services: none,
    pvcs: none,
    controllers: none,
    ingresses: none,
    configMaps: none,
    secrets: none,
    pvs: none,
    endpointSlices: none,
    ingressClasses: none,
    storageClasses: none,
    nodeLeases: () => objects.leases ?? [],
    resourceQuotas: none,
    limitRanges: none,
    hpas: none,
    pdbs: none,
    metrics: () => ({ available: false, reason: 'test' }),
    vulnerabilityReports: none,
    configAuditReports: none,
    scannerReportStatus: () => ({ vulnerabilityreports: 'off', configauditreports: 'off' }),
    syncStatus: none,
    staleSince: () => null,
  };
}

const cond = (type: string, status: string, lastTransition: string | null = ago(600), reason: string | null = null, message: string | null = null): Condition => ({ type, status, reason, message, lastTransition });

function node(name: string, extra: Partial<NodeObject> = {}): NodeObject {
  return {
    name,
    ready: true,
    conditions: [cond('Ready', 'True', ago(86_400), 'KubeletReady'), cond('MemoryPressure', 'False'), cond('DiskPressure', 'False'), cond('PIDPressure', 'False'), cond('NetworkUnavailable', 'False')],
    taints: [],
    unschedulable: false,
    createdAt: ago(86_400),
    labels: {},
    containerMetricsPath: '/metrics/cadvisor',
    kubelet: null,
    capacity: { cpuM: null, memBytes: null, pods: null },
    allocatable: { cpuM: null, memBytes: null, pods: null },
    ...extra,
  };
}

/** `node` with its Ready condition replaced. */
const withReady = (name: string, ready: Condition, extra: Partial<NodeObject> = {}): NodeObject => {
  const base = node(name, extra);
  return { ...base, ready: ready.status === 'True', conditions: [ready, ...base.conditions.filter((c) => c.type !== 'Ready')] };
};

const lease = (name: string, renewedSecsAgo: number, durationSecs: number | null = 40): LeaseObject => ({ name, renewTime: ago(renewedSecsAgo), durationSecs });

function pod(name: string, nodeName: string, extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'shop',
    name,
    phase: 'Running',
    createdAt: ago(3600),
    startedAt: ago(3600),
    nodeName,
    labels: {},
    workload: { kind: 'Pod', name },
    owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: true,
    readySince: ago(3600),
    unschedulable: null,
    containers: [],
    statuses: [],
    initContainers: [],
    initStatuses: [],
    statusReason: null,
    deletion: null,
    finalizers: [],
    nodeSelector: {},
    ...extra,
  };
}

const run = (objects: Parameters<typeof view>[0]): DraftFinding[] => analyzeNodes(diagnosisInput(view(objects), NOW));
const brief = (f: DraftFinding) => ({ id: f.id, severity: f.severity, since: f.since, suspects: f.suspects });

describe('analyzeNodes', () => {
  const cases: { name: string; objects: Parameters<typeof view>[0]; want: ReturnType<typeof brief>[] }[] = [
    { name: 'a Ready node with a fresh lease is healthy', objects: { nodes: [node('n1')], leases: [lease('n1', 5)] }, want: [] },
    { name: 'a Ready node nobody manages but that heartbeats is healthy', objects: { nodes: [node('n1', { labels: {} })], leases: [lease('n1', 10)] }, want: [] },
    { name: 'a Ready node without a lease (leases not readable) is healthy', objects: { nodes: [node('n1')] }, want: [] },
    { name: 'lease exactly at the grace bound is fresh', objects: { nodes: [node('n1')], leases: [lease('n1', 40)] }, want: [] },
    {
      name: 'lease one second past the bound: unreachable since its last renewal',
      objects: { nodes: [node('n1')], leases: [lease('n1', 41)] },
      want: [{ id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(41), suspects: [] }],
    },
    { name: 'a longer lease duration widens the bound', objects: { nodes: [node('n1')], leases: [lease('n1', 100, 120)] }, want: [] },
    {
      name: 'a lease without a duration uses 40 s',
      objects: { nodes: [node('n1')], leases: [lease('n1', 41, null)] },
      want: [{ id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(41), suspects: [] }],
    },
    {
      name: 'Ready=False with a fresh lease: not ready since the transition',
      objects: { nodes: [withReady('n1', cond('Ready', 'False', ago(120), 'KubeletNotReady', 'container runtime is down'))], leases: [lease('n1', 3)] },
      want: [{ id: 'node:n1#NodeNotReady', severity: 'critical', since: ago(120), suspects: [] }],
    },
    {
      name: 'Ready=Unknown: unreachable, not "not ready"',
      objects: { nodes: [withReady('n1', cond('Ready', 'Unknown', ago(90), 'NodeStatusUnknown'))], leases: [lease('n1', 130)] },
      want: [{ id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(90), suspects: [] }],
    },
    {
      name: 'Ready=Unknown without any lease is still unreachable',
      objects: { nodes: [withReady('n1', cond('Ready', 'Unknown', ago(90)))] },
      want: [{ id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(90), suspects: [] }],
    },
    {
      name: 'Ready=False with a stale lease: the kubelet is gone, so unreachable',
      objects: { nodes: [withReady('n1', cond('Ready', 'False', ago(300)))], leases: [lease('n1', 200)] },
      want: [{ id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(200), suspects: [] }],
    },
    {
      name: 'each pressure condition that is True is a warning; False and Unknown are not',
      objects: {
        nodes: [
          node('n1', {
            conditions: [cond('Ready', 'True'), cond('MemoryPressure', 'True', ago(30)), cond('DiskPressure', 'True', ago(40)), cond('PIDPressure', 'Unknown'), cond('NetworkUnavailable', 'False')],
          }),
          node('n2', { conditions: [cond('Ready', 'True'), cond('PIDPressure', 'True', ago(50)), cond('NetworkUnavailable', 'True', ago(60))] }),
        ],
      },
      want: [
        { id: 'node:n1#NodeMemoryPressure', severity: 'warning', since: ago(30), suspects: [] },
        { id: 'node:n1#NodeDiskPressure', severity: 'warning', since: ago(40), suspects: [] },
        { id: 'node:n2#NodePIDPressure', severity: 'warning', since: ago(50), suspects: [] },
        { id: 'node:n2#NodeNetworkUnavailable', severity: 'warning', since: ago(60), suspects: [] },
      ],
    },
    {
      name: 'a cordoned node is a warning without a date',
      objects: { nodes: [node('n1', { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', value: null, effect: 'NoSchedule' }] })] },
      want: [{ id: 'node:n1#NodeCordoned', severity: 'warning', since: null, suspects: [] }],
    },
    {
      name: 'pods on a not-ready node: critical when not Ready, warning while Ready, finished pods ignored',
      objects: {
        nodes: [withReady('n1', cond('Ready', 'False', ago(120))), node('n2')],
        leases: [lease('n1', 1), lease('n2', 1)],
        pods: [
          pod('a', 'n1', { ready: false }),
          pod('b', 'n1'),
          pod('done', 'n1', { phase: 'Succeeded', ready: false }),
          pod('failed', 'n1', { phase: 'Failed', ready: false }),
          pod('elsewhere', 'n2', { ready: false }),
        ],
      },
      want: [
        { id: 'node:n1#NodeNotReady', severity: 'critical', since: ago(120), suspects: [] },
        { id: 'pod:shop/a#PodOnUnhealthyNode', severity: 'critical', since: ago(120), suspects: ['node:n1'] },
        { id: 'pod:shop/b#PodOnUnhealthyNode', severity: 'warning', since: ago(120), suspects: ['node:n1'] },
      ],
    },
    {
      name: 'pods on an unreachable node, a pending one included',
      objects: { nodes: [node('n1')], leases: [lease('n1', 600)], pods: [pod('a', 'n1', { phase: 'Pending', ready: false })] },
      want: [
        { id: 'node:n1#NodeUnreachable', severity: 'critical', since: ago(600), suspects: [] },
        { id: 'pod:shop/a#PodOnUnhealthyNode', severity: 'critical', since: ago(600), suspects: ['node:n1'] },
      ],
    },
    {
      name: 'pods on a merely pressured or cordoned node are not findings',
      objects: { nodes: [node('n1', { unschedulable: true, conditions: [cond('Ready', 'True'), cond('DiskPressure', 'True', ago(5))] })], pods: [pod('a', 'n1', { ready: false })] },
      want: [
        { id: 'node:n1#NodeDiskPressure', severity: 'warning', since: ago(5), suspects: [] },
        { id: 'node:n1#NodeCordoned', severity: 'warning', since: null, suspects: [] },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = run(c.objects).map(brief);
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      assert.deepEqual(got.sort(byId), [...c.want].sort(byId));
    });
  }

  it('shows the condition, the lease and the taint as evidence, the message redacted', () => {
    const n = withReady('n1', cond('Ready', 'Unknown', ago(90), 'NodeStatusUnknown', 'Kubelet stopped posting node status. token=abcdef0123456789abcdef'), {
      taints: [{ key: 'node.kubernetes.io/unreachable', value: null, effect: 'NoExecute' }, { key: 'team', value: 'a', effect: 'NoSchedule' }],
    });
    const [f] = run({ nodes: [n], leases: [lease('n1', 130)] });
    assert.ok(f);
    assert.equal(f.summary, 'node n1 stopped heartbeating 130 s ago');
    assert.deepEqual(
      f.evidence.map((e) => [e.source, e.node_id]),
      [
        ['status', 'node:n1'],
        ['lease', 'node:n1'],
        ['spec', 'node:n1'],
      ],
    );
    assert.match(f.evidence[0]?.fact ?? '', /^Ready=Unknown, reason NodeStatusUnknown, since .*: Kubelet stopped posting node status\./);
    assert.doesNotMatch(JSON.stringify(f), /abcdef0123456789abcdef/);
    assert.match(f.evidence[1]?.fact ?? '', /130 s ago \(stale after 40 s\)/);
    assert.equal(f.evidence[2]?.fact, 'tainted node.kubernetes.io/unreachable:NoExecute');
    assert.ok(f.evidence.every((e) => e.link === null));
    assert.equal(f.namespace, null);
  });

  it('declares every code it emits, each with its object kind', () => {
    const declared = new Map(NODE_CODES.map((c) => [c.code, c]));
    const all = [
      ...run({ nodes: [withReady('a', cond('Ready', 'False')), withReady('b', cond('Ready', 'Unknown'))], pods: [pod('p', 'a')] }),
      ...run({ nodes: [node('c', { unschedulable: true, conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'].map((t) => cond(t, 'True')) })] }),
    ];
    assert.deepEqual(new Set(all.map((f) => f.code)), new Set(declared.keys()));
    for (const f of all) {
      assert.equal(f.id, `${f.object}#${f.code}`);
      assert.equal(f.object.split(':')[0], declared.get(f.code)?.kind === 'Pod' ? 'pod' : 'node');
    }
  });
});
