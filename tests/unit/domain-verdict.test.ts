// Every namespace verdict rule of domain/health/verdict.ts (docs/health-and-incidents.md,
// "Namespace verdicts"), one table, one loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject, PvcObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { compareHealth, namespaceHealth, type NamespaceInputs } from '../../domain/health/verdict.ts';
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
