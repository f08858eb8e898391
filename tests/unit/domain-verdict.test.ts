// Every namespace verdict rule of domain/health/verdict.ts (docs/health-and-incidents.md,
// "Namespace verdicts"), one table, one loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject, PvcObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { MAX_ROOT_CAUSE_REASONS, compareHealth, namespaceHealth, rootCausesByNamespace, type NamespaceInputs, type RootCauseLine } from '../../domain/health/verdict.ts';
import type { Diagnosis, Finding } from '../../schema/diagnosis.ts';
import type { Incident } from '../../schema/incidents.ts';
import type { NamespaceHealth } from '../../schema/overview.ts';
import { eventDefaults, podDefaults, pvcDefaults, workloadDefaults } from '../support/objects.ts';

function pod(name: string, phase = 'Running'): PodObject {
  return { ...podDefaults,
    namespace: 'shop',
    name,
    phase,
    createdAt: '2026-11-21T11:00:00Z',
    startedAt: null,
    nodeName: null,
    labels: {},
    workload: { kind: 'Pod', name },
    owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] },
    ready: phase === 'Running',
    readySince: null,
    unschedulable: null,
    containers: [],
    statuses: [],
  };
}

const incident = (podName: string, reason: string, severity: Incident['severity']) => ({ pod: podName, reason, severity }) as Incident;
const deployment = (name: string, desired: number, available: number): WorkloadObject => ({ ...workloadDefaults, namespace: 'shop', name, kind: 'Deployment', desired, available });
const daemonset = (name: string, desired: number, available: number): WorkloadObject => ({ ...workloadDefaults, namespace: 'shop', name, kind: 'DaemonSet', desired, available });
const pvc = (name: string, phase: string): PvcObject => ({ ...pvcDefaults, namespace: 'shop', name, phase, volumeName: null });

const quotaFull: RootCauseLine = { severity: 'warning', text: 'quota pods is full (2/2) → 2 of 4 replicas of api unavailable' };
const nodeDown: RootCauseLine = { severity: 'critical', text: 'node n1 is not ready → pod db runs on an unhealthy node' };

const base: NamespaceInputs = { namespace: 'shop', complete: true, pods: [], incidents: [], workloads: [], services: [], pvcs: [], events: [] };

const rows: { name: string; input: Partial<NamespaceInputs>; want: Partial<NamespaceHealth> }[] = [
  { name: 'an empty namespace is healthy', input: {}, want: { health_score: 'healthy', reasons: [] } },
  { name: 'running pods, full deployments, bound claims: healthy', input: { pods: [pod('a'), pod('b')], workloads: [deployment('web', 2, 2), daemonset('agent', 3, 3)], pvcs: [pvc('data', 'Bound')] }, want: { health_score: 'healthy', pods_running: 2 } },
  { name: 'the cache has not synced: unknown, whatever else is wrong', input: { complete: false, incidents: [incident('a', 'CrashLoopBackOff', 'critical')], pods: [pod('a')] }, want: { health_score: 'unknown', reasons: ['the cluster cache has not finished syncing'] } },
  { name: 'one critical incident: critical', input: { pods: [pod('a'), pod('b')], incidents: [incident('a', 'CrashLoopBackOff', 'critical')] }, want: { health_score: 'critical', reasons: ['1 failing pod(s)'], pods_failing: 1, pods_running: 1 } },
  { name: 'two critical incidents on one pod count it once', input: { pods: [pod('a')], incidents: [incident('a', 'OOMKilled', 'critical'), incident('a', 'Failed', 'critical')] }, want: { pods_failing: 1, reasons: ['1 failing pod(s)'] } },
  {
    name: 'critical and warning together: critical, both reasons listed',
    input: { pods: [pod('a'), pod('b', 'Pending')], incidents: [incident('a', 'CrashLoopBackOff', 'critical'), incident('b', 'StuckPending', 'warning')] },
    want: { health_score: 'critical', reasons: ['1 failing pod(s)', '1 warning incident(s): StuckPending'], pods_pending: 1 },
  },
  { name: 'a warning incident alone: degraded', input: { pods: [pod('a')], incidents: [incident('a', 'OOMRisk', 'warning')] }, want: { health_score: 'degraded', reasons: ['1 warning incident(s): OOMRisk'], pods_failing: 0 } },
  { name: 'warning reasons are listed once each', input: { incidents: [incident('a', 'NotReady', 'warning'), incident('b', 'NotReady', 'warning'), incident('c', 'OOMRisk', 'warning')] }, want: { reasons: ['3 warning incident(s): NotReady, OOMRisk'] } },
  { name: 'a deployment one replica short: degraded', input: { workloads: [deployment('web', 3, 2)] }, want: { health_score: 'degraded', reasons: ['deployment(s) below desired replicas: web 2/3'], deployments_degraded: 1, deployments_total: 1 } },
  { name: 'a deployment with none available: degraded', input: { workloads: [deployment('web', 1, 0)] }, want: { health_score: 'degraded', deployments_degraded: 1 } },
  { name: 'a deployment exactly at desired: healthy', input: { workloads: [deployment('web', 3, 3)] }, want: { health_score: 'healthy', deployments_degraded: 0 } },
  { name: 'a deployment above desired (a rollout surge): healthy', input: { workloads: [deployment('web', 3, 4)] }, want: { health_score: 'healthy' } },
  { name: 'a deployment scaled to zero: healthy', input: { workloads: [deployment('web', 0, 0)] }, want: { health_score: 'healthy' } },
  { name: 'a daemonset missing a node: degraded', input: { workloads: [daemonset('agent', 3, 2)] }, want: { health_score: 'degraded', reasons: ['daemonset(s) not on every node: agent'], daemonsets_total: 1 } },
  { name: 'an unbound claim: degraded', input: { pvcs: [pvc('data', 'Pending'), pvc('logs', 'Bound')] }, want: { health_score: 'degraded', reasons: ['1 unbound PVC(s)'], pvcs_unbound: 1 } },
  { name: 'a Lost claim is unbound too', input: { pvcs: [pvc('data', 'Lost')] }, want: { health_score: 'degraded', pvcs_unbound: 1 } },
  {
    name: 'counts: failing pods are not running or pending; total counts all',
    input: { pods: [pod('a'), pod('b'), pod('c', 'Pending'), pod('d', 'Pending'), pod('e', 'Succeeded')], incidents: [incident('a', 'CrashLoopBackOff', 'critical'), incident('d', 'ImagePullBackOff', 'critical')] },
    want: { pods_running: 1, pods_pending: 1, pods_failing: 2, pods_total: 5, summary: { pods: { running: 1, total: 5 }, deployments: 0, services: 0, daemonsets: 0 } },
  },
  {
    name: 'the last event time is the newest lastSeen',
    input: {
      events: [
        { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'a', type: 'Normal', reason: 'Pulled', message: '', count: 1, firstSeen: null, lastSeen: '2026-11-21T11:00:00Z' },
        { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'a', type: 'Normal', reason: 'Started', message: '', count: 1, firstSeen: null, lastSeen: '2026-11-21T11:30:00Z' },
        { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'a', type: 'Normal', reason: 'Old', message: '', count: 1, firstSeen: null, lastSeen: null },
      ],
    },
    want: { last_event_time: '2026-11-21T11:30:00.000Z' },
  },
  { name: 'no events: no last event time', input: {}, want: { last_event_time: null } },
  // Root causes: they name the reasons; the score rules above stand unchanged.
  { name: 'root causes name the reasons of a degraded namespace', input: { workloads: [deployment('web', 3, 2)], rootCauses: [quotaFull] }, want: { health_score: 'degraded', reasons: [quotaFull.text] } },
  {
    name: 'root causes replace the symptom counts they explain',
    input: { pods: [pod('a')], incidents: [incident('a', 'CrashLoopBackOff', 'critical')], workloads: [deployment('web', 3, 2)], rootCauses: [nodeDown, quotaFull] },
    want: { health_score: 'critical', reasons: [nodeDown.text, quotaFull.text], pods_failing: 1 },
  },
  { name: 'a root cause does not change the score: healthy by the rules stays healthy, and lists nothing', input: { rootCauses: [nodeDown] }, want: { health_score: 'healthy', reasons: [] } },
  { name: 'a critical root cause does not make a degraded namespace critical', input: { workloads: [deployment('web', 3, 0)], rootCauses: [nodeDown] }, want: { health_score: 'degraded', reasons: [nodeDown.text] } },
  {
    name: 'a critical verdict no critical root cause explains keeps its failing-pod count',
    input: { pods: [pod('a')], incidents: [incident('a', 'CrashLoopBackOff', 'critical')], rootCauses: [quotaFull] },
    want: { health_score: 'critical', reasons: [quotaFull.text, '1 failing pod(s)'] },
  },
  {
    name: 'symptoms with no root cause keep their counts (a verdict is never unexplained)',
    input: { workloads: [deployment('web', 3, 2)], rootCauses: [] },
    want: { health_score: 'degraded', reasons: ['deployment(s) below desired replicas: web 2/3'] },
  },
  {
    name: `at most ${MAX_ROOT_CAUSE_REASONS} root causes are named, the rest counted`,
    input: { pvcs: [pvc('data', 'Pending')], rootCauses: Array.from({ length: MAX_ROOT_CAUSE_REASONS + 2 }, (_, i) => ({ severity: 'warning' as const, text: `cause ${i}` })) },
    want: { reasons: [...Array.from({ length: MAX_ROOT_CAUSE_REASONS }, (_, i) => `cause ${i}`), 'and 2 more root cause(s)'] },
  },
  { name: 'root causes do not make a syncing cache known', input: { complete: false, rootCauses: [nodeDown] }, want: { health_score: 'unknown', reasons: ['the cluster cache has not finished syncing'] } },
  { name: 'RBAC refuses pods and events here: unknown, naming them, never a false healthy', input: { unreadable: ['pods', 'events'] }, want: { health_score: 'unknown', reasons: ['not fully judged: RBAC forbids Capstan to read pods, events in this namespace'] } },
  {
    name: 'a refusal does not hide what was seen broken: still critical, the refusal named too',
    input: { unreadable: ['events'], pods: [pod('a')], incidents: [incident('a', 'CrashLoopBackOff', 'critical')] },
    want: { health_score: 'critical', reasons: ['1 failing pod(s)', 'not fully judged: RBAC forbids Capstan to read events in this namespace'] },
  },
  { name: 'degraded stays degraded under a refusal', input: { unreadable: ['services'], pvcs: [pvc('data', 'Pending')] }, want: { health_score: 'degraded', reasons: ['1 unbound PVC(s)', 'not fully judged: RBAC forbids Capstan to read services in this namespace'] } },
  { name: 'nothing refused here: judged as usual', input: { unreadable: [], pods: [pod('a')] }, want: { health_score: 'healthy' } },
];

describe('namespace verdicts', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = namespaceHealth({ ...base, ...row.input });
      const picked = Object.fromEntries(Object.keys(row.want).map((k) => [k, got[k as keyof NamespaceHealth]]));
      assert.deepEqual(picked, row.want);
    });
  }

  it('sorts critical, degraded, unknown, healthy, then by name', () => {
    const verdict = (namespace: string, input: Partial<NamespaceInputs>) => namespaceHealth({ ...base, namespace, ...input });
    const list = [
      verdict('b-healthy', {}),
      verdict('a-unknown', { complete: false }),
      verdict('z-critical', { incidents: [incident('x', 'Failed', 'critical')] }),
      verdict('a-healthy', {}),
      verdict('c-degraded', { pvcs: [pvc('p', 'Pending')] }),
      verdict('a-critical', { incidents: [incident('x', 'Failed', 'critical')] }),
    ].sort(compareHealth);
    assert.deepEqual(
      list.map((h) => h.namespace),
      ['a-critical', 'z-critical', 'c-degraded', 'a-unknown', 'a-healthy', 'b-healthy'],
    );
  });
});

describe('root causes in namespace reasons', () => {
  const finding = (object: string, namespace: string | null, summary: string, severity: Finding['severity'] = 'warning'): Finding => ({
    id: `${object}#X`, code: 'X', severity, object, namespace, summary, evidence: [], since: null, caused_by: null, attributes: {},
  });
  const cut: Diagnosis = {
    namespace: null,
    root_causes: [
      { finding: finding('node:n1', null, 'node n1 is not ready', 'critical'), effects: [finding('pod:shop/a', 'shop', 'pod a runs on an unhealthy node'), finding('pod:blog/b', 'blog', 'pod b runs on an unhealthy node')], also: [] },
      {
        finding: finding('resourcequota:shop/pods', 'shop', 'quota pods is full (2/2)'),
        effects: [finding('replicaset:shop/api-1', 'shop', 'replicaset api-1 cannot create pods'), finding('deployment:shop/api', 'shop', '2 of 4 replicas of api unavailable')],
        also: [],
      },
      { finding: finding('pod:shop/web-1', 'shop', 'container web keeps crashing', 'critical'), effects: [], also: ['pod:shop/web-2', 'pod:shop/web-3'] },
    ],
    notes: [],
    hidden_causes: [{ effect: finding('pod:blog/c', 'blog', 'endpoints not ready'), reason: 'cause_outside_visible_namespaces' }],
    silent: [],
    total_findings: 0,
    generated_at: '2026-11-21T12:00:00.000Z',
  };

  it('words each root as cause → its farthest effect in the namespace, critical first, in every namespace it touches', () => {
    const lines = rootCausesByNamespace(cut);
    assert.deepEqual(lines.get('shop'), [
      { severity: 'critical', text: 'node n1 is not ready → pod a runs on an unhealthy node' },
      { severity: 'critical', text: 'container web keeps crashing (and 2 more like it)' },
      { severity: 'warning', text: 'quota pods is full (2/2) → 2 of 4 replicas of api unavailable' },
    ]);
    assert.deepEqual(lines.get('blog'), [
      { severity: 'critical', text: 'node n1 is not ready → pod b runs on an unhealthy node' },
      { severity: 'warning', text: '1 problem(s) caused outside what Capstan may show' },
    ]);
    assert.equal(lines.get('other'), undefined);
  });
});
