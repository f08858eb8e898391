// Incidents as the projection of the diagnosis (domain/incidents/detect.ts,
// docs/health-and-incidents.md), one table, one loop: each row's pod goes through the real
// diagnosis engine and then the projection, so an incident says what /diagnosis says about the
// same pod; OOMRisk (metrics only) at its boundaries; time from the manual clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, ContainerResources, ContainerStatus, EventObject, MetricsSnapshot, NodeObject, PodObject } from '../../domain/cluster/model.ts';
import { OOM_RISK_PCT, compareIncidents, incidentOf } from '../../domain/incidents/detect.ts';
import { RECENT_TERMINATION_SECS } from '../../domain/diagnosis/analyzers/pod-containers.ts';
import { PROBE_FAILING_MIN_SECS, STUCK_PENDING_SECS } from '../../domain/diagnosis/analyzers/pods.ts';
import { diagnose } from '../../domain/diagnosis/engine.ts';
import { problemOf } from '../../domain/diagnosis/visible.ts';
import { nodeId } from '../../domain/cluster/node-id.ts';
import { memberFlags } from '../../domain/apps/flags.ts';
import type { Incident } from '../../schema/incidents.ts';
import { emptyCluster, ManualClock } from '../support/services.ts';
import { eventDefaults, nodeDefaults, podDefaults } from '../support/objects.ts';

/** Pods are created at T0; each row advances the clock by `after` seconds before judging. */
const T0 = new Date('2026-11-21T12:00:00Z');
const iso = (secsAfterT0: number) => new Date(T0.getTime() + secsAfterT0 * 1000).toISOString();
const MI = 1024 * 1024;

const limited = (memLimitBytes: number | null): ContainerResources => ({ cpuRequestM: 100, cpuLimitM: null, memRequestBytes: 64 * MI, memLimitBytes });

function status(extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name: 'app', ready: true, restartCount: 0, waiting: null, runningSince: iso(0), terminated: null, lastTerminated: null, ...extra };
}

const exit = (reason: string | null, exitCode: number, finishedAt = iso(0)) => ({ exitCode, reason, signal: null, startedAt: iso(0), finishedAt });

function pod(extra: Partial<PodObject> = {}): PodObject {
  return { ...podDefaults,
    namespace: 'shop',
    name: 'web-1',
    phase: 'Running',
    createdAt: iso(0),
    startedAt: iso(0),
    nodeName: 'node-1',
    labels: {},
    workload: { kind: 'Deployment', name: 'web' },
    owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] },
    ready: true,
    readySince: iso(0),
    unschedulable: null,
    containers: [{ name: 'app', image: 'example/web:1', resources: limited(null), ports: [] }],
    statuses: [status()],
    ...extra,
  };
}

const noMetrics: MetricsSnapshot = { available: false, reason: 'metrics-server is not installed' };
const usage = (memBytes: number): MetricsSnapshot => ({ available: true, at: iso(0), pods: new Map([['shop/web-1', { cpuM: 10, memBytes }]]) });
const withLimit = (memLimitBytes: number | null, ...more: (number | null)[]): Partial<PodObject> => ({
  containers: [memLimitBytes, ...more].map((limit, i) => ({ name: `c${i}`, image: 'example/web:1', resources: limited(limit), ports: [] })),
});

/** What a row expects: no incident, or these fields of it. */
type Want = null | Partial<Incident>;

const LIMIT = 1000 * MI;
/** Bytes for a share of LIMIT in tenths of a percent (exact integers, no float drift). */
const atPermille = (permille: number) => (LIMIT / 1000) * permille;

const rows: { name: string; pod: PodObject; after?: number; metrics?: MetricsSnapshot; events?: EventObject[]; want: Want }[] = [
  // OOMKilled: needs the OOMKilled termination and at least one restart.
  { name: 'OOMKilled, restarted once', pod: pod({ statuses: [status({ restartCount: 1, lastTerminated: exit('OOMKilled', 137) })] }), want: { reason: 'OOMKilled', severity: 'critical', last_exit_code: 137, restart_count: 1 } },
  { name: 'OOMKilled as its current state, not restarted yet: an OOM kill all the same', pod: pod({ statuses: [status({ restartCount: 0, terminated: exit('OOMKilled', 137) })] }), want: { reason: 'OOMKilled', detail: 'web-1: container app OOM-killed, 0 restarts', restart_count: 0 } },
  { name: 'OOMKilled as the current termination, restarted', pod: pod({ statuses: [status({ restartCount: 3, terminated: exit('OOMKilled', 137) })] }), want: { reason: 'OOMKilled', restart_count: 3 } },
  // Now versus history: an OOM kill the container has run Ready past for RECENT_TERMINATION_SECS is history.
  { name: 'OOMKilled, Ready since, just under the history bound: still an incident', pod: pod({ statuses: [status({ restartCount: 1, lastTerminated: exit('OOMKilled', 137) })] }), after: RECENT_TERMINATION_SECS - 1, want: { reason: 'OOMKilled' } },
  { name: 'OOMKilled, Ready since, exactly at the history bound: history, no incident', pod: pod({ statuses: [status({ restartCount: 1, lastTerminated: exit('OOMKilled', 137) })] }), after: RECENT_TERMINATION_SECS, want: null },
  { name: 'OOMKilled days ago, Ready since: history, no incident', pod: pod({ statuses: [status({ restartCount: 4, lastTerminated: exit('OOMKilled', 137) })] }), after: 3 * 86400, want: null },
  { name: 'OOMKilled long ago but the container is not Ready: still an incident', pod: pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false, restartCount: 1, lastTerminated: exit('OOMKilled', 137) })] }), after: 3 * 86400, want: { reason: 'OOMKilled' } },
  { name: 'OOMKilled, restarted just under the bound ago (a new kill resets it): still an incident', pod: pod({ statuses: [status({ restartCount: 2, runningSince: iso(3 * 86400 - RECENT_TERMINATION_SECS + 1), lastTerminated: exit('OOMKilled', 137) })] }), after: 3 * 86400, want: { reason: 'OOMKilled' } },
  { name: 'OOMKilled with no record of when it started running: still an incident', pod: pod({ statuses: [status({ restartCount: 1, runningSince: null, lastTerminated: exit('OOMKilled', 137) })] }), after: 3 * 86400, want: { reason: 'OOMKilled' } },
  { name: 'a non-OOM termination with restarts is not OOMKilled', pod: pod({ statuses: [status({ restartCount: 2, lastTerminated: exit('Error', 1) })] }), want: null },
  // Waiting reasons.
  {
    name: 'CrashLoopBackOff',
    pod: pod({ ready: false, statuses: [status({ ready: false, restartCount: 5, waiting: { reason: 'CrashLoopBackOff', message: null }, lastTerminated: exit('Error', 1) })] }),
    want: { reason: 'CrashLoopBackOff', severity: 'critical', last_exit_code: 1, restart_count: 5 },
  },
  { name: 'OOMKilled wins over CrashLoopBackOff (rule order)', pod: pod({ statuses: [status({ restartCount: 2, waiting: { reason: 'CrashLoopBackOff', message: null }, lastTerminated: exit('OOMKilled', 137) })] }), want: { reason: 'OOMKilled' } },
  ...['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'].map((reason) => ({
    name: `${reason} is critical`,
    pod: pod({ phase: 'Pending', ready: false, statuses: [status({ ready: false, waiting: { reason, message: 'why' }, runningSince: null })] }),
    want: { reason, severity: 'critical' as const },
  })),
  { name: 'ContainerCreating is a normal start, not an incident', pod: pod({ phase: 'Pending', ready: false, statuses: [status({ ready: false, waiting: { reason: 'ContainerCreating', message: null } })] }), after: 10, want: null },
  { name: 'phase Failed', pod: pod({ phase: 'Failed', ready: false }), want: { reason: 'PodFailed', severity: 'critical' } },
  // Pending.
  { name: 'Unschedulable at once, whatever the age', pod: pod({ phase: 'Pending', ready: false, unschedulable: { reason: 'Unschedulable', message: '0/3 nodes' } }), after: 0, want: { reason: 'Unschedulable', severity: 'warning', detail: 'web-1 unschedulable: 0/3 nodes' } },
  { name: 'Pending just under the stuck threshold', pod: pod({ phase: 'Pending', ready: false }), after: STUCK_PENDING_SECS - 1, want: null },
  { name: 'Pending exactly at the stuck threshold', pod: pod({ phase: 'Pending', ready: false }), after: STUCK_PENDING_SECS, want: { reason: 'StuckPending', severity: 'warning', detail: 'web-1 pending for 5m (on node node-1)' } },
  { name: 'Pending just over the stuck threshold', pod: pod({ phase: 'Pending', ready: false }), after: STUCK_PENDING_SECS + 1, want: { reason: 'StuckPending' } },
  { name: 'Pending with no creation time is not stuck (unknown age)', pod: pod({ phase: 'Pending', ready: false, createdAt: null }), after: 3600, want: null },
  // Running but not Ready: the pod's own problem only with a probe failing; otherwise its workload's (not an incident).
  { name: 'not Ready without any probe event: no incident (the workload reports the shortfall)', pod: pod({ ready: false, statuses: [status({ ready: false })] }), after: 3600, want: null },
  {
    name: `not Ready ${PROBE_FAILING_MIN_SECS} s with a recent Unhealthy event: ProbeFailing`,
    pod: pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false })] }),
    after: PROBE_FAILING_MIN_SECS,
    events: [{ ...eventDefaults, namespace: 'shop', involvedNamespace: 'shop', involvedKind: 'Pod', involvedName: 'web-1', type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503', count: 4, firstSeen: iso(5), lastSeen: iso(PROBE_FAILING_MIN_SECS - 5) }],
    want: { reason: 'ProbeFailing', severity: 'warning' },
  },
  { name: 'Succeeded is never an incident', pod: pod({ phase: 'Succeeded', ready: false }), after: 86400, want: null },
  // OOMRisk: memory use against the pod's limit, at or above OOM_RISK_PCT.
  { name: 'memory at 89.9 % of the limit', pod: pod(withLimit(LIMIT)), metrics: usage(atPermille(899)), want: null },
  { name: 'memory at 89.95 % of the limit: below 90, though it rounds to 90.0', pod: pod(withLimit(LIMIT)), metrics: usage(atPermille(899.5)), want: null },
  { name: 'memory exactly at 90 % of the limit', pod: pod(withLimit(LIMIT)), metrics: usage(atPermille(10 * OOM_RISK_PCT)), want: { reason: 'OOMRisk', severity: 'warning', mem_pct_of_limit: 90 } },
  { name: 'memory at 90.1 % of the limit', pod: pod(withLimit(LIMIT)), metrics: usage(atPermille(901)), want: { reason: 'OOMRisk', mem_pct_of_limit: 90.1 } },
  { name: 'memory over the limit', pod: pod(withLimit(LIMIT)), metrics: usage(atPermille(1200)), want: { reason: 'OOMRisk', mem_pct_of_limit: 120 } },
  { name: 'limits summed over containers: 95 % of one, 47.5 % of both', pod: pod(withLimit(LIMIT, LIMIT)), metrics: usage(atPermille(950)), want: null },
  { name: 'one unlimited container: the pod is unbounded, no OOMRisk', pod: pod(withLimit(LIMIT, null)), metrics: usage(atPermille(2000)), want: null },
  { name: 'no limit at all', pod: pod(withLimit(null)), metrics: usage(atPermille(2000)), want: null },
  { name: 'a zero limit is not a ratio', pod: pod(withLimit(0)), metrics: usage(1), want: null },
  { name: 'without metrics-server OOMRisk cannot fire', pod: pod(withLimit(LIMIT)), metrics: noMetrics, want: null },
  { name: 'metrics available but this pod unmeasured', pod: pod({ ...withLimit(LIMIT), name: 'web-2' }), metrics: usage(atPermille(990)), want: null },
  { name: 'a critical rule wins over OOMRisk', pod: pod({ ...withLimit(LIMIT), phase: 'Failed', ready: false }), metrics: usage(atPermille(990)), want: { reason: 'PodFailed' } },
  // Derived fields.
  {
    name: 'restart rate is restarts per hour since start',
    pod: pod({ statuses: [status({ restartCount: 6, runningSince: iso(2 * 3600 - 30), lastTerminated: exit('OOMKilled', 137) })] }),
    after: 2 * 3600,
    want: { restart_rate: 3, age: '2h' },
  },
  {
    name: 'restart rate counts at least a minute of running',
    pod: pod({ statuses: [status({ restartCount: 2, lastTerminated: exit('OOMKilled', 137) })] }),
    after: 5,
    want: { restart_rate: 120, age: '5s' },
  },
  {
    name: 'first failure is the earliest Warning event, and crashing_for counts from it',
    pod: pod({ statuses: [status({ restartCount: 1, lastTerminated: exit('OOMKilled', 137, iso(50)) })] }),
    after: 100,
    events: [
      { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'web-1', type: 'Normal', reason: 'Pulled', message: '', count: 1, firstSeen: iso(1), lastSeen: iso(1) },
      { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'web-1', type: 'Warning', reason: 'BackOff', message: '', count: 1, firstSeen: iso(40), lastSeen: iso(90) },
      { ...eventDefaults, namespace: 'shop', involvedKind: 'Pod', involvedName: 'web-1', type: 'Warning', reason: 'OOMKilling', message: '', count: 1, firstSeen: iso(20), lastSeen: iso(20) },
    ],
    want: { first_failure_ts: iso(20), crashing_for_secs: 80 },
  },
  {
    name: 'without Warning events, first failure is the first recorded termination',
    pod: pod({ statuses: [status({ restartCount: 1, lastTerminated: exit('OOMKilled', 137, iso(50)) })] }),
    after: 100,
    want: { first_failure_ts: iso(50), crashing_for_secs: 50 },
  },
];

/** The pod's incident: the whole cluster (this pod, its events, a Ready node-1) diagnosed at `now`, then projected. */
function incidentAt(subject: PodObject, events: readonly EventObject[], metrics: MetricsSnapshot, now: Date): Incident | null {
  const node: NodeObject = { ...nodeDefaults, name: 'node-1', ready: true, createdAt: iso(-86400), labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null };
  const view: ClusterView = { ...emptyCluster, pods: () => [subject], events: () => events, nodes: () => [node], metrics: () => metrics };
  const d = diagnose(view, now);
  return incidentOf(subject, problemOf(d, () => true, nodeId('Pod', subject.namespace, subject.name)), events, metrics, now);
}

describe('incidents project the diagnosis', () => {
  for (const row of rows) {
    it(row.name, () => {
      const clock = new ManualClock(T0);
      clock.advance((row.after ?? 0) * 1000);
      const got = incidentAt(row.pod, row.events ?? [], row.metrics ?? noMetrics, clock.now());
      if (row.want === null) {
        assert.equal(got, null, got ? `unexpected ${got.reason}: ${got.detail}` : '');
        return;
      }
      assert.ok(got, 'an incident');
      const picked = Object.fromEntries(Object.keys(row.want).map((k) => [k, got[k as keyof Incident]]));
      assert.deepEqual(picked, row.want);
      assert.equal(got.id, `shop/${row.pod.name}/${got.reason}`);
    });
  }

  it('flags near_memory_limit on an application member exactly where the pod is OOMRisk', () => {
    for (const row of rows.filter((r) => r.metrics?.available && r.pod.phase === 'Running' && r.pod.statuses.every((s) => s.restartCount === 0))) {
      const metrics = row.metrics;
      const used = metrics?.available ? metrics.pods.get(`shop/${row.pod.name}`) : undefined;
      const incident = incidentAt(row.pod, [], metrics ?? noMetrics, T0);
      assert.equal(memberFlags(row.pod, used).includes('near_memory_limit'), incident?.reason === 'OOMRisk', row.name);
    }
  });

  it('orders critical first, then by namespace and pod', () => {
    const at = (namespace: string, podName: string, severity: Incident['severity']) => ({ namespace, pod: podName, severity }) as Incident;
    const sorted = [at('b', 'x', 'warning'), at('a', 'z', 'warning'), at('c', 'a', 'critical'), at('a', 'y', 'critical')].sort(compareIncidents);
    assert.deepEqual(
      sorted.map((i) => `${i.severity} ${i.namespace}/${i.pod}`),
      ['critical a/y', 'critical c/a', 'warning a/z', 'warning b/x'],
    );
  });
});
