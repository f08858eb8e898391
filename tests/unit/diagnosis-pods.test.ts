// The pods analyzer at its boundaries, one table, one loop: each row a hand-built cluster
// (pods, nodes, events, ConfigMaps/Secrets) judged at T0 + `after` seconds, and the findings
// it must yield (codes exactly; severity, attributes, suspects and summary where given).
// Every bound is tried just below, at and just above. Invariants every finding keeps (schema,
// id, severity from POD_CODES, the node as last suspect) are checked on every row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import type { ClusterView, ContainerStatus, EventObject, NodeObject, PodObject, SecretObject, NamespacedName, Termination } from '../../domain/cluster/model.ts';
import {
  CONTAINER_CREATING_STUCK_SECS,
  EVICTED_RECENT_SECS,
  HIGH_RESTART_RECENT_SECS,
  POD_CODES,
  PROBE_EVENT_RECENT_SECS,
  PROBE_FAILING_MIN_SECS,
  RECENT_TERMINATION_SECS,
  STUCK_PENDING_SECS,
  TERMINATING_STUCK_MARGIN_SECS,
  analyzePods,
} from '../../domain/diagnosis/analyzers/pods.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { Finding } from '../../schema/diagnosis.ts';
import { emptyCluster } from '../support/services.ts';

/** Pods are created at T0; each row judges at T0 + `after` seconds. */
const T0 = Date.parse('2026-11-21T12:00:00Z');
const iso = (secs: number) => new Date(T0 + secs * 1000).toISOString();

function status(extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name: 'app', ready: true, restartCount: 0, waiting: null, runningSince: iso(0), terminated: null, lastTerminated: null, ...extra };
}

const ended = (reason: string | null, exitCode: number, finishedAt = iso(0), signal: number | null = null): Termination => ({ exitCode, reason, signal, startedAt: iso(0), finishedAt });
const waiting = (reason: string, message: string | null = null, extra: Partial<ContainerStatus> = {}) =>
  status({ ready: false, runningSince: null, waiting: { reason, message }, ...extra });

function pod(extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'shop',
    name: 'web-1',
    phase: 'Running',
    createdAt: iso(0),
    startedAt: iso(0),
    nodeName: 'node-1',
    labels: {},
    workload: { kind: 'Deployment', name: 'web' },
    owner: { kind: 'ReplicaSet', name: 'web-7d9f' },
    refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: true,
    readySince: iso(0),
    unschedulable: null,
    containers: [{ name: 'app', image: 'example/web:1', resources: { cpuRequestM: 100, cpuLimitM: null, memRequestBytes: null, memLimitBytes: 256 * 1024 * 1024 }, ports: [] }],
    statuses: [status()],
    initContainers: [],
    initStatuses: [],
    statusReason: null,
    deletion: null,
    finalizers: [],
    nodeSelector: {},
    ...extra,
  };
}

const pending = (extra: Partial<PodObject> = {}) => pod({ phase: 'Pending', ready: false, readySince: null, statuses: [waiting('ContainerCreating')], ...extra });
const unscheduled = (message: string, extra: Partial<PodObject> = {}) =>
  pending({ nodeName: null, startedAt: null, statuses: [], unschedulable: { reason: 'Unschedulable', message }, ...extra });

function event(reason: string, message: string, extra: Partial<EventObject> = {}): EventObject {
  return { namespace: 'shop', involvedKind: 'Pod', involvedNamespace: 'shop', involvedName: 'web-1', source: 'kubelet', type: 'Warning', reason, message, count: 1, firstSeen: iso(0), lastSeen: iso(0), ...extra };
}

function node(name: string, extra: Partial<NodeObject> = {}): NodeObject {
  return { name, ready: true, conditions: [], taints: [], unschedulable: false, createdAt: iso(-86400), labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null, capacity: { cpuM: null, memBytes: null, pods: null }, allocatable: { cpuM: null, memBytes: null, pods: null }, ...extra };
}

interface World {
  pods: PodObject[];
  nodes?: NodeObject[];
  events?: EventObject[];
  configMaps?: NamespacedName[];
  secrets?: SecretObject[];
  /** Informers RBAC refuses (served empty): absence from them proves nothing. */
  forbidden?: string[];
  /** Informers RBAC refuses in these namespaces only (a per-namespace watch). */
  forbiddenIn?: Record<string, string[]>;
}

function view(w: World): ClusterView {
  return {
    ...emptyCluster,
    pods: () => w.pods,
    nodes: () => w.nodes ?? [node('node-1')],
    events: () => w.events ?? [],
    configMaps: () => w.configMaps ?? [],
    secrets: () => w.secrets ?? [],
    syncStatus: () =>
      ['configmaps', 'secrets'].map((resource) => {
        const refusedIn = w.forbiddenIn?.[resource] ?? [];
        return { resource, synced: true, failing_since: null, forbidden: (w.forbidden?.includes(resource) ?? false) || refusedIn.length > 0, forbidden_namespaces: refusedIn };
      }),
  };
}

/** What a row expects of one finding; unset fields are not checked. */
interface Want {
  code: string;
  severity?: DraftFinding['severity'];
  attributes?: Record<string, string | number | boolean>;
  /** Attribute names that must be absent. */
  noAttributes?: string[];
  suspects?: string[];
  summary?: string | RegExp;
  /** Evidence lines that must be present, as `source node_id` prefixes. */
  evidence?: string[];
}

const NODE = 'node:node-1';
const CM_MISSING = 'MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found';

const rows: { name: string; world: World; after?: number; want: Want[] }[] = [
  // Healthy and finished pods say nothing.
  { name: 'a healthy running pod', world: { pods: [pod()] }, after: 86400, want: [] },
  { name: 'a Succeeded pod', world: { pods: [pod({ phase: 'Succeeded', ready: false, statuses: [status({ ready: false, terminated: ended('Completed', 0) })] })] }, after: 86400, want: [] },

  // Waiting reasons.
  {
    name: 'CrashLoopBackOff with the last exit',
    world: { pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', 'back-off 40s restarting failed container', { restartCount: 5, lastTerminated: ended('Error', 1) })] })] },
    want: [{ code: 'CrashLoopBackOff', severity: 'critical', attributes: { container: 'app', init: false, exit_code: 1, reason: 'Error', restarts: 5 }, noAttributes: ['signal'], suspects: [NODE], summary: 'web-1: container app crash-looping, last exit 1 (Error), 5 restarts' }],
  },
  {
    name: 'CrashLoopBackOff killed by a signal',
    world: { pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 2, lastTerminated: ended('Error', 137, iso(0), 9) })] })] },
    want: [{ code: 'CrashLoopBackOff', attributes: { exit_code: 137, signal: 9 } }],
  },
  {
    name: 'an init container crash-looping keeps the pod Pending: CrashLoopBackOff (init), not StuckPending',
    world: {
      pods: [
        pending({
          initContainers: [{ name: 'migrate', image: 'example/migrate:1' }],
          initStatuses: [waiting('CrashLoopBackOff', null, { name: 'migrate', restartCount: 4, lastTerminated: ended('Error', 3) })],
          statuses: [waiting('PodInitializing')],
        }),
      ],
    },
    after: STUCK_PENDING_SECS * 2,
    want: [{ code: 'CrashLoopBackOff', attributes: { container: 'migrate', init: true, exit_code: 3 }, summary: /init container migrate crash-looping/ }],
  },
  {
    name: 'two containers crash-looping: one finding, evidence for both',
    world: {
      pods: [
        pod({
          ready: false,
          containers: [
            { name: 'app', image: 'example/web:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] },
            { name: 'sidecar', image: 'example/proxy:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] },
          ],
          statuses: [waiting('CrashLoopBackOff', null, { restartCount: 3, lastTerminated: ended('Error', 1) }), waiting('CrashLoopBackOff', null, { name: 'sidecar', restartCount: 3, lastTerminated: ended('Error', 2) })],
        }),
      ],
    },
    want: [{ code: 'CrashLoopBackOff', attributes: { container: 'app', containers: 'app,sidecar', exit_code: 1 }, summary: /\(and 1 more container\)$/, evidence: ['status pod:shop/web-1', 'status pod:shop/web-1', 'status pod:shop/web-1', 'status pod:shop/web-1'] }],
  },
  {
    name: 'ImagePullBackOff names the image',
    world: { pods: [pending({ statuses: [waiting('ImagePullBackOff', 'Back-off pulling image "example/web:1"')] })] },
    want: [{ code: 'ImagePullBackOff', severity: 'critical', attributes: { image: 'example/web:1' }, suspects: [NODE], summary: 'web-1: cannot pull image example/web:1 for container app' }],
  },
  { name: 'ErrImagePull', world: { pods: [pending({ statuses: [waiting('ErrImagePull', 'failed to pull and unpack image')] })] }, want: [{ code: 'ErrImagePull', attributes: { image: 'example/web:1' }, noAttributes: ['waiting_reason'] }] },
  { name: 'ErrImageNeverPull is reported as ErrImagePull', world: { pods: [pending({ statuses: [waiting('ErrImageNeverPull')] })] }, want: [{ code: 'ErrImagePull', attributes: { waiting_reason: 'ErrImageNeverPull' } }] },
  { name: 'InvalidImageName', world: { pods: [pending({ statuses: [waiting('InvalidImageName', 'couldn\'t parse image reference "Example/Web"')] })] }, want: [{ code: 'InvalidImageName', attributes: { image: 'example/web:1' } }] },
  {
    name: 'CreateContainerConfigError: a missing ConfigMap is named, absent and the first suspect',
    world: { pods: [pending({ refs: { configMaps: ['app-config'], secrets: [], pvcs: ['data'] }, statuses: [waiting('CreateContainerConfigError', 'configmap "app-config" not found')] })] },
    want: [
      {
        code: 'CreateContainerConfigError',
        severity: 'critical',
        attributes: { missing_kind: 'ConfigMap', missing_name: 'app-config' },
        noAttributes: ['missing_key'],
        suspects: ['configmap:shop/app-config', 'pvc:shop/data', NODE],
        evidence: ['absence configmap:shop/app-config'],
        summary: 'web-1: container app misses ConfigMap app-config',
      },
    ],
  },
  {
    name: 'CreateContainerConfigError: a missing Secret key',
    world: { pods: [pending({ statuses: [waiting('CreateContainerConfigError', "couldn't find key password in Secret shop/db")] })] },
    want: [{ code: 'CreateContainerConfigError', attributes: { missing_kind: 'Secret', missing_name: 'db', missing_key: 'password' }, suspects: ['secret:shop/db', NODE], summary: 'web-1: container app misses key password of Secret db' }],
  },
  {
    name: 'CreateContainerConfigError with an unreadable message: the referenced objects the view lacks are suspects',
    world: {
      pods: [pending({ refs: { configMaps: ['present', 'gone'], secrets: ['creds'], pvcs: [] }, statuses: [waiting('CreateContainerConfigError', 'failed to sync configmap cache: timed out waiting for the condition')] })],
      configMaps: [{ namespace: 'shop', name: 'present' }],
      secrets: [{ namespace: 'shop', name: 'creds' }],
    },
    want: [{ code: 'CreateContainerConfigError', noAttributes: ['missing_kind'], suspects: ['configmap:shop/gone', NODE], summary: 'web-1: container app has a bad configuration' }],
  },
  {
    name: 'CreateContainerConfigError with an unreadable message and Secrets forbidden: a Secret missing from the view is no suspect',
    world: {
      pods: [pending({ refs: { configMaps: [], secrets: ['creds'], pvcs: [] }, statuses: [waiting('CreateContainerConfigError', 'failed to sync secret cache: timed out waiting for the condition')] })],
      forbidden: ['secrets'],
    },
    want: [{ code: 'CreateContainerConfigError', suspects: [NODE] }],
  },
  {
    name: 'Secrets refused in another namespace only: a Secret missing here is still known to be missing',
    world: {
      pods: [pending({ refs: { configMaps: [], secrets: ['creds'], pvcs: [] }, statuses: [waiting('CreateContainerConfigError', 'failed to sync secret cache: timed out waiting for the condition')] })],
      forbiddenIn: { secrets: ['payments'] },
    },
    want: [{ code: 'CreateContainerConfigError', suspects: ['secret:shop/creds', NODE] }],
  },
  {
    name: "Secrets refused in this pod's namespace: a Secret missing from the view is no suspect",
    world: {
      pods: [pending({ refs: { configMaps: [], secrets: ['creds'], pvcs: [] }, statuses: [waiting('CreateContainerConfigError', 'failed to sync secret cache: timed out waiting for the condition')] })],
      forbiddenIn: { secrets: ['shop'] },
    },
    want: [{ code: 'CreateContainerConfigError', suspects: [NODE] }],
  },
  {
    name: 'CreateContainerConfigError about a ConfigMap created since: still the suspect, no longer called absent',
    world: { pods: [pending({ statuses: [waiting('CreateContainerConfigError', 'configmap "app-config" not found')] })], configMaps: [{ namespace: 'shop', name: 'app-config' }] },
    want: [{ code: 'CreateContainerConfigError', suspects: ['configmap:shop/app-config', NODE], evidence: ['status configmap:shop/app-config'] }],
  },
  {
    name: 'CreateContainerError: the message is redacted',
    world: { pods: [pending({ statuses: [waiting('CreateContainerError', 'failed to create: env PASSWORD=hunter2secret rejected')] })] },
    want: [{ code: 'CreateContainerError', severity: 'critical', summary: 'web-1: container app cannot be created' }],
  },
  { name: 'RunContainerError', world: { pods: [pod({ ready: false, statuses: [waiting('RunContainerError', 'exec: "/app": permission denied')] })] }, want: [{ code: 'RunContainerError', summary: 'web-1: container app cannot be started' }] },

  // OOMKilled: recent until running and Ready for RECENT_TERMINATION_SECS.
  {
    name: 'a crash loop after an OOM kill is OOMKilled, not CrashLoopBackOff',
    world: { pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 3, lastTerminated: ended('OOMKilled', 137) })] })] },
    want: [{ code: 'OOMKilled', severity: 'critical', attributes: { crash_looping: true, exit_code: 137, memory_limit_bytes: 256 * 1024 * 1024 }, summary: 'web-1: container app OOM-killed at its 256Mi limit, 3 restarts' }],
  },
  {
    name: 'OOM kill, running and Ready just under the bound: OOMKilled',
    world: { pods: [pod({ statuses: [status({ restartCount: 1, lastTerminated: ended('OOMKilled', 137), runningSince: iso(1) })] })] },
    after: RECENT_TERMINATION_SECS,
    want: [{ code: 'OOMKilled', attributes: { crash_looping: false } }],
  },
  {
    name: 'OOM kill, running and Ready exactly the bound: history',
    world: { pods: [pod({ statuses: [status({ restartCount: 1, lastTerminated: ended('OOMKilled', 137), runningSince: iso(0) })] })] },
    after: RECENT_TERMINATION_SECS,
    want: [{ code: 'OOMKilledPreviously', severity: 'info' }],
  },
  {
    name: 'OOM kill long ago, Ready since: history',
    world: { pods: [pod({ statuses: [status({ restartCount: 1, lastTerminated: ended('OOMKilled', 137), runningSince: iso(0) })] })] },
    after: RECENT_TERMINATION_SECS + 1,
    want: [{ code: 'OOMKilledPreviously', severity: 'info' }],
  },
  {
    name: 'OOM kill, running long but never Ready since: still OOMKilled',
    world: { pods: [pod({ ready: false, statuses: [status({ ready: false, restartCount: 1, lastTerminated: ended('OOMKilled', 137), runningSince: iso(0) })] })] },
    after: RECENT_TERMINATION_SECS * 10,
    want: [{ code: 'OOMKilled' }],
  },
  {
    name: 'a bare pod that failed by an OOM kill: OOMKilled, not PodFailed',
    world: { pods: [pod({ phase: 'Failed', ready: false, owner: null, statuses: [status({ ready: false, runningSince: null, terminated: ended('OOMKilled', 137) })] })] },
    after: 86400,
    want: [{ code: 'OOMKilled' }],
  },
  { name: "a failed Job's pod: the Job explains it", world: { pods: [pod({ phase: 'Failed', ready: false, owner: { kind: 'Job', name: 'nightly-1' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('OOMKilled', 137) })] })] }, want: [] },

  // HighRestartRate: ≥ 3 restarts, ≥ 3 per hour since start, the last within 15 minutes.
  {
    name: 'HighRestartRate: 3 restarts in the first hour',
    world: { pods: [pod({ statuses: [status({ restartCount: 3, lastTerminated: ended('Error', 1, iso(3000)), runningSince: iso(3000) })] })] },
    after: 3600,
    want: [{ code: 'HighRestartRate', severity: 'warning', attributes: { restarts: 3, exit_code: 1 }, summary: 'web-1: container app restarted 3 times in 60m' }],
  },
  { name: 'HighRestartRate: 2 restarts are too few', world: { pods: [pod({ statuses: [status({ restartCount: 2, lastTerminated: ended('Error', 1, iso(50)), runningSince: iso(50) })] })] }, after: 60, want: [] },
  // 4 restarts: rate ≥ 3/h while the pod's lifetime is ≤ 4800 s.
  { name: 'HighRestartRate: rate just above 3/h', world: { pods: [pod({ statuses: [status({ restartCount: 4, lastTerminated: ended('Error', 1, iso(4700)), runningSince: iso(4700) })] })] }, after: 4799, want: [{ code: 'HighRestartRate' }] },
  { name: 'HighRestartRate: rate exactly 3/h', world: { pods: [pod({ statuses: [status({ restartCount: 4, lastTerminated: ended('Error', 1, iso(4700)), runningSince: iso(4700) })] })] }, after: 4800, want: [{ code: 'HighRestartRate' }] },
  { name: 'HighRestartRate: rate just below 3/h', world: { pods: [pod({ statuses: [status({ restartCount: 4, lastTerminated: ended('Error', 1, iso(4700)), runningSince: iso(4700) })] })] }, after: 4801, want: [] },
  {
    name: 'HighRestartRate: the last restart exactly 15 minutes ago still counts',
    world: { pods: [pod({ statuses: [status({ restartCount: 10, ready: false, lastTerminated: ended('Error', 1, iso(100)), runningSince: iso(100) })] })] },
    after: 100 + HIGH_RESTART_RECENT_SECS,
    want: [{ code: 'HighRestartRate' }],
  },
  {
    name: 'HighRestartRate: the last restart 15 minutes and a second ago does not',
    world: { pods: [pod({ statuses: [status({ restartCount: 10, ready: false, lastTerminated: ended('Error', 1, iso(100)), runningSince: iso(100) })] })] },
    after: 100 + HIGH_RESTART_RECENT_SECS + 1,
    want: [],
  },

  // RestartedPreviously: restarted, then running and Ready for the bound.
  { name: 'a restart, Ready just under the bound: nothing yet', world: { pods: [pod({ statuses: [status({ restartCount: 1, lastTerminated: ended('Error', 1, iso(7200)), runningSince: iso(7200) })] })] }, after: 7200 + RECENT_TERMINATION_SECS - 1, want: [] },
  {
    name: 'a restart, Ready for the bound since: RestartedPreviously',
    world: { pods: [pod({ statuses: [status({ restartCount: 1, lastTerminated: ended('Error', 1, iso(7200)), runningSince: iso(7200) })] })] },
    after: 7200 + RECENT_TERMINATION_SECS,
    want: [{ code: 'RestartedPreviously', severity: 'info', attributes: { restarts: 1 } }],
  },
  { name: 'a finished init container that needed retries: nothing', world: { pods: [pod({ initContainers: [{ name: 'init', image: 'x' }], initStatuses: [status({ name: 'init', ready: false, restartCount: 2, runningSince: null, terminated: ended('Completed', 0) })] })] }, after: 86400, want: [] },

  // Evicted: a warning for EVICTED_RECENT_SECS, a note after.
  {
    name: 'Evicted just now, with the kubelet reason',
    world: { pods: [pod({ phase: 'Failed', ready: false, readySince: iso(0), statusReason: { reason: 'Evicted', message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi.' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('ContainerStatusUnknown', 137) })] })] },
    after: EVICTED_RECENT_SECS - 1,
    want: [{ code: 'Evicted', severity: 'warning', attributes: { resource: 'memory', reason: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi.' }, suspects: [NODE], summary: 'web-1 evicted: the node was low on memory' }],
  },
  {
    name: 'Evicted an hour ago: EvictedPreviously',
    world: { pods: [pod({ phase: 'Failed', ready: false, statusReason: { reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('Error', 137) })] })] },
    after: EVICTED_RECENT_SECS,
    want: [{ code: 'EvictedPreviously', severity: 'info', attributes: { resource: 'ephemeral-storage' } }],
  },
  {
    name: 'a bare pod (no controller) evicted an hour ago: still Evicted, nothing will replace it',
    world: { pods: [pod({ owner: null, workload: { kind: 'Pod', name: 'web-1' }, phase: 'Failed', ready: false, statusReason: { reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('Error', 137) })] })] },
    after: 3 * EVICTED_RECENT_SECS,
    want: [{ code: 'Evicted', severity: 'warning', attributes: { resource: 'ephemeral-storage', controller: false }, summary: 'web-1 was evicted 3h ago and nothing will replace it (no controller owns it): the node was low on ephemeral-storage' }],
  },
  {
    name: 'a bare pod evicted just now: Evicted, and says nothing replaces it',
    world: { pods: [pod({ owner: null, workload: { kind: 'Pod', name: 'web-1' }, phase: 'Failed', ready: false, readySince: iso(0), statusReason: { reason: 'Evicted', message: 'The node was low on resource: memory.' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('Error', 137) })] })] },
    after: 10,
    want: [{ code: 'Evicted', severity: 'warning', attributes: { controller: false }, summary: 'web-1 evicted and nothing will replace it (no controller owns it): the node was low on memory' }],
  },

  // TerminatingStuck: deletionTimestamp is already request time + grace.
  { name: 'terminating, just before the margin: nothing (not even its crash loop)', world: { pods: [pod({ deletion: { at: iso(0), graceSecs: 30 }, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 9 })] })] }, after: TERMINATING_STUCK_MARGIN_SECS - 1, want: [] },
  {
    name: 'terminating at the margin, finalizers named',
    world: { pods: [pod({ deletion: { at: iso(0), graceSecs: 30 }, finalizers: ['example.com/cleanup'] })] },
    after: TERMINATING_STUCK_MARGIN_SECS,
    want: [{ code: 'TerminatingStuck', severity: 'warning', attributes: { finalizers: 'example.com/cleanup', grace_secs: 30 }, suspects: [NODE], summary: 'web-1 stuck terminating 60s past its deadline, finalizers example.com/cleanup' }],
  },

  // Unschedulable, with the scheduler's cause and the objects that block it.
  {
    name: 'Unschedulable for cpu: no object to blame, no StuckPending on top',
    world: { pods: [unscheduled('0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.')] },
    after: STUCK_PENDING_SECS * 3,
    want: [{ code: 'Unschedulable', severity: 'warning', attributes: { cause: 'insufficient_cpu', nodes_total: 3 }, suspects: [], summary: 'web-1 unschedulable: not enough free cpu (3/3 nodes)' }],
  },
  {
    name: 'Unschedulable for a taint: the nodes with that NoSchedule/NoExecute taint are suspects',
    world: {
      pods: [unscheduled("0/3 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) didn't match Pod's node affinity/selector.")],
      nodes: [
        node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
        node('n2', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'PreferNoSchedule' }] }),
        node('n3', { taints: [{ key: 'node.kubernetes.io/not-ready', value: null, effect: 'NoExecute' }] }),
        node('n0', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] }),
      ],
    },
    want: [{ code: 'Unschedulable', attributes: { cause: 'taint', taints: 'dedicated' }, suspects: ['node:n0', 'node:n1'] }],
  },
  {
    name: 'every node its selector picks is tainted: the cause is the taint (whatever the counts say), those nodes the suspects',
    world: {
      pods: [unscheduled("0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector.", { nodeSelector: { pool: 'gpu' } })],
      nodes: [
        node('n1', { labels: { pool: 'gpu' }, taints: [{ key: 'dedicated', value: 'vision', effect: 'NoSchedule' }] }),
        node('n2', { labels: { pool: 'etl' }, unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', value: null, effect: 'NoSchedule' }] }),
        node('n3'),
        node('n4'),
      ],
    },
    want: [{ code: 'Unschedulable', attributes: { cause: 'taint', nodes_total: 4 }, suspects: ['node:n1'] }],
  },
  {
    name: 'Unschedulable on a cordoned node its selector picks: that node is the suspect, not a cordoned node elsewhere',
    world: {
      pods: [unscheduled("0/4 nodes are available: 2 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector.", { nodeSelector: { pool: 'etl' } })],
      nodes: [node('n1', { unschedulable: true }), node('n2', { labels: { pool: 'etl' }, unschedulable: true }), node('n3'), node('n4')],
    },
    want: [{ code: 'Unschedulable', attributes: { cause: 'node_unschedulable', nodes_total: 4 }, suspects: ['node:n2'] }],
  },
  {
    name: 'Unschedulable on cordoned nodes: they are suspects',
    world: { pods: [unscheduled('0/2 nodes are available: 2 node(s) were unschedulable.')], nodes: [node('n1', { unschedulable: true }), node('n2')] },
    want: [{ code: 'Unschedulable', attributes: { cause: 'node_unschedulable' }, suspects: ['node:n1'] }],
  },
  {
    name: 'Unschedulable for cpu while one node is cordoned: the cordon is not its cause, no suspects',
    world: { pods: [unscheduled('0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.')], nodes: [node('n1', { unschedulable: true }), node('n2'), node('n3'), node('n4')] },
    want: [{ code: 'Unschedulable', attributes: { cause: 'insufficient_cpu' }, suspects: [] }],
  },
  {
    name: 'Unschedulable for an unbound claim: the claims are suspects',
    world: { pods: [unscheduled('0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.', { refs: { configMaps: [], secrets: [], pvcs: ['data'] } })] },
    want: [{ code: 'Unschedulable', attributes: { cause: 'unbound_pvc' }, suspects: ['pvc:shop/data'] }],
  },
  {
    name: 'Unschedulable for node affinity shows the node selector',
    world: { pods: [unscheduled("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", { nodeSelector: { disk: 'ssd' } })] },
    want: [{ code: 'Unschedulable', attributes: { cause: 'node_affinity' }, evidence: ['spec pod:shop/web-1'] }],
  },
  { name: 'scheduling-gated: not Unschedulable, StuckPending once old enough', world: { pods: [unscheduled('waiting for scheduling gates: [example.com/quota]', { unschedulable: { reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' } })] }, after: STUCK_PENDING_SECS, want: [{ code: 'StuckPending', attributes: { scheduled: false, reason: 'SchedulingGated' } }] },

  // ContainerCreatingStuck: past the bound, with mount or sandbox failures.
  { name: 'creating just under the bound with FailedMount: nothing yet', world: { pods: [pending()], events: [event('FailedMount', CM_MISSING)] }, after: CONTAINER_CREATING_STUCK_SECS - 1, want: [] },
  {
    name: 'creating at the bound with FailedMount: the missing ConfigMap is the suspect',
    world: { pods: [pending({ refs: { configMaps: ['app-config'], secrets: [], pvcs: [] } })], events: [event('FailedMount', CM_MISSING, { count: 4 })] },
    after: CONTAINER_CREATING_STUCK_SECS,
    want: [
      {
        code: 'ContainerCreatingStuck',
        severity: 'warning',
        attributes: { event_reason: 'FailedMount', missing_kind: 'ConfigMap', missing_name: 'app-config', volume: 'cfg' },
        suspects: ['configmap:shop/app-config', NODE],
        evidence: ['status pod:shop/web-1', 'event pod:shop/web-1', 'absence configmap:shop/app-config'],
        summary: 'web-1 stuck creating containers for 60s: ConfigMap app-config not found',
      },
    ],
  },
  {
    name: 'creating with a sandbox failure',
    world: { pods: [pending()], events: [event('FailedCreatePodSandBox', 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network')] },
    after: CONTAINER_CREATING_STUCK_SECS + 1,
    want: [{ code: 'ContainerCreatingStuck', attributes: { event_reason: 'FailedCreatePodSandBox' }, noAttributes: ['missing_kind'], suspects: [NODE], summary: 'web-1 stuck creating containers for 61s: sandbox creation failing' }],
  },
  { name: 'creating long without failure events: only StuckPending', world: { pods: [pending()] }, after: STUCK_PENDING_SECS, want: [{ code: 'StuckPending', attributes: { scheduled: true }, suspects: [NODE] }] },
  {
    name: "another pod's FailedMount does not count",
    world: { pods: [pending()], events: [event('FailedMount', CM_MISSING, { involvedName: 'web-2' })] },
    after: CONTAINER_CREATING_STUCK_SECS,
    want: [],
  },

  // ProbeKilled: the kubelet restarted the container for a failed liveness or startup probe.
  {
    name: 'crash-looping on exit 137 after failed liveness probes: the probe, never just "exit 137"',
    world: {
      pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', 'back-off 40s restarting failed container', { restartCount: 4, lastTerminated: ended('Error', 137, iso(50)) })] })],
      events: [
        event('Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 503', { count: 12, lastSeen: iso(45) }),
        event('Killing', 'Container app failed liveness probe, will be restarted', { type: 'Normal', count: 4, lastSeen: iso(46) }),
      ],
    },
    after: 60,
    want: [{ code: 'ProbeKilled', severity: 'critical', attributes: { container: 'app', init: false, probe: 'liveness', message: 'HTTP probe failed with statuscode: 503', exit_code: 137, restarts: 4 }, suspects: [NODE], summary: 'web-1: container app restarted by the kubelet: its liveness probe failed (HTTP probe failed with statuscode: 503), 4 restarts' }],
  },
  {
    name: 'running again after a startup-probe kill (exit 143), only the Unhealthy events to say so (one container)',
    world: {
      pods: [pod({ ready: false, statuses: [status({ ready: false, restartCount: 1, runningSince: iso(55), lastTerminated: ended('Error', 143, iso(50)) })] })],
      events: [event('Unhealthy', 'Startup probe failed: Get "http://10.0.0.7:8080/healthz": dial tcp 10.0.0.7:8080: connect: connection refused', { count: 30, lastSeen: iso(48) })],
    },
    after: 60,
    want: [{ code: 'ProbeKilled', attributes: { probe: 'startup', exit_code: 143, message: 'Get "http://10.0.0.7:8080/healthz": dial tcp 10.0.0.7:8080: connect: connection refused' } }],
  },
  {
    name: 'crash-looping on exit 137 with no probe event: a crash loop',
    world: { pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 4, lastTerminated: ended('Error', 137, iso(50)) })] })] },
    after: 60,
    want: [{ code: 'CrashLoopBackOff', attributes: { exit_code: 137 } }],
  },
  {
    name: 'only readiness failing while it crash-loops: readiness restarts nothing, a crash loop',
    world: {
      pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 4, lastTerminated: ended('Error', 137, iso(50)) })] })],
      events: [event('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', { lastSeen: iso(45) })],
    },
    after: 60,
    want: [{ code: 'CrashLoopBackOff' }],
  },
  {
    name: 'OOMKilled beside liveness failures: the OOM kill',
    world: {
      pods: [pod({ ready: false, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 4, lastTerminated: ended('OOMKilled', 137, iso(50)) })] })],
      events: [event('Killing', 'Container app failed liveness probe, will be restarted', { type: 'Normal', lastSeen: iso(46) })],
    },
    after: 60,
    want: [{ code: 'OOMKilled' }],
  },
  {
    name: "another container's liveness kill (two containers): not this one's",
    world: {
      pods: [pod({ ready: false, containers: [{ name: 'app', image: 'example/web:1', resources: { cpuRequestM: 100, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] }, { name: 'proxy', image: 'example/proxy:1', resources: { cpuRequestM: 10, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] }], statuses: [waiting('CrashLoopBackOff', null, { restartCount: 4, lastTerminated: ended('Error', 137, iso(50)) }), status({ name: 'proxy' })] })],
      events: [event('Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 503', { lastSeen: iso(45) }), event('Killing', 'Container proxy failed liveness probe, will be restarted', { type: 'Normal', lastSeen: iso(46) })],
    },
    after: 60,
    want: [{ code: 'CrashLoopBackOff', attributes: { container: 'app' } }],
  },
  {
    name: 'killed by its liveness probe long ago, Ready since: history',
    world: {
      pods: [pod({ statuses: [status({ restartCount: 1, runningSince: iso(60), lastTerminated: ended('Error', 137, iso(50)) })] })],
      events: [event('Killing', 'Container app failed liveness probe, will be restarted', { type: 'Normal', lastSeen: iso(46) })],
    },
    after: 60 + RECENT_TERMINATION_SECS,
    want: [{ code: 'RestartedPreviously' }],
  },

  // ProbeFailing: Running, not Ready for the bound, a fresh Unhealthy event.
  {
    name: 'not Ready just under the bound: nothing yet',
    world: { pods: [pod({ ready: false, readySince: iso(1), statuses: [status({ ready: false })] })], events: [event('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', { lastSeen: iso(PROBE_FAILING_MIN_SECS) })] },
    after: PROBE_FAILING_MIN_SECS,
    want: [],
  },
  {
    name: 'not Ready for the bound with a readiness failure',
    world: { pods: [pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false })] })], events: [event('Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', { lastSeen: iso(PROBE_FAILING_MIN_SECS), count: 6 })] },
    after: PROBE_FAILING_MIN_SECS,
    want: [{ code: 'ProbeFailing', severity: 'warning', attributes: { probe: 'readiness', container: 'app' }, suspects: [NODE], summary: 'web-1 not ready for 60s: readiness probe failing (container app)' }],
  },
  {
    name: 'the last Unhealthy event exactly at the window: still failing',
    world: { pods: [pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false })] })], events: [event('Unhealthy', 'Liveness probe failed: connection refused', { lastSeen: iso(0) })] },
    after: PROBE_EVENT_RECENT_SECS,
    want: [{ code: 'ProbeFailing', attributes: { probe: 'liveness' } }],
  },
  {
    name: 'the last Unhealthy event older than the window: not a probe failure',
    world: { pods: [pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false })] })], events: [event('Unhealthy', 'Readiness probe failed: 503', { lastSeen: iso(0) })] },
    after: PROBE_EVENT_RECENT_SECS + 1,
    want: [],
  },
  { name: 'a Normal event named Unhealthy does not count', world: { pods: [pod({ ready: false, readySince: iso(0), statuses: [status({ ready: false })] })], events: [event('Unhealthy', 'Readiness probe failed', { type: 'Normal', lastSeen: iso(60) })] }, after: 120, want: [] },

  // PodFailed.
  {
    name: 'a bare pod Failed with an exit code',
    world: { pods: [pod({ phase: 'Failed', ready: false, owner: null, workload: { kind: 'Pod', name: 'web-1' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('Error', 2) })] })] },
    want: [{ code: 'PodFailed', severity: 'critical', attributes: { container: 'app', exit_code: 2, reason: 'Error' }, suspects: [NODE], summary: 'web-1 failed: container app exited 2 (Error)' }],
  },
  {
    name: 'a pod Failed by the node (status reason)',
    world: { pods: [pod({ phase: 'Failed', ready: false, owner: null, statusReason: { reason: 'NodeAffinity', message: "Pod Predicate NodeAffinity failed" }, statuses: [] })] },
    want: [{ code: 'PodFailed', attributes: { reason: 'NodeAffinity' }, summary: 'web-1 failed: NodeAffinity' }],
  },
  { name: "a Job's failed pod is the Job's business", world: { pods: [pod({ phase: 'Failed', ready: false, owner: { kind: 'Job', name: 'nightly-1' }, statuses: [status({ ready: false, runningSince: null, terminated: ended('Error', 1) })] })] }, want: [] },

  // StuckPending.
  { name: 'Pending just under the bound: nothing', world: { pods: [pending({ nodeName: null, startedAt: null, statuses: [] })] }, after: STUCK_PENDING_SECS - 1, want: [] },
  { name: 'Pending at the bound: StuckPending', world: { pods: [pending({ nodeName: null, startedAt: null, statuses: [] })] }, after: STUCK_PENDING_SECS, want: [{ code: 'StuckPending', severity: 'warning', suspects: [], summary: 'web-1 pending for 5m (not scheduled)' }] },

  // Suspects: claims before the node, the node last.
  {
    name: 'a crash-looping pod with claims: claims, then its node',
    world: { pods: [pod({ ready: false, refs: { configMaps: [], secrets: [], pvcs: ['data', 'logs'] }, statuses: [waiting('CrashLoopBackOff', null, { restartCount: 3, lastTerminated: ended('Error', 1) })] })] },
    want: [{ code: 'CrashLoopBackOff', suspects: ['pvc:shop/data', 'pvc:shop/logs', NODE] }],
  },
];

const specOf = new Map(POD_CODES.map((c) => [c.code, c]));

function check(found: DraftFinding, want: Want): void {
  const label = `${found.id}: `;
  if (want.severity) assert.equal(found.severity, want.severity, `${label}severity`);
  for (const [k, value] of Object.entries(want.attributes ?? {})) assert.deepEqual(found.attributes[k], value, `${label}attribute ${k}`);
  for (const k of want.noAttributes ?? []) assert.equal(k in found.attributes, false, `${label}attribute ${k} should be absent`);
  if (want.suspects) assert.deepEqual(found.suspects, want.suspects, `${label}suspects`);
  if (typeof want.summary === 'string') assert.equal(found.summary, want.summary, `${label}summary`);
  else if (want.summary) assert.match(found.summary, want.summary, `${label}summary`);
  if (want.evidence) {
    const lines = found.evidence.map((e) => `${e.source} ${e.node_id}`);
    const remaining = [...lines];
    for (const w of want.evidence) {
      const i = remaining.indexOf(w);
      assert.ok(i !== -1, `${label}evidence ${w} in ${JSON.stringify(lines)}`);
      remaining.splice(i, 1);
    }
  }
}

/** What holds for every finding, whatever the row. */
function invariants(found: DraftFinding, pods: readonly PodObject[]): void {
  const { suspects, ...finding } = found;
  v.parse(Finding, { ...finding, caused_by: null });
  assert.equal(found.id, `${found.object}#${found.code}`);
  const spec = specOf.get(found.code);
  assert.ok(spec, `${found.code} is declared in POD_CODES`);
  assert.equal(found.severity, spec.severity, `${found.code} severity as declared`);
  for (const e of found.evidence) assert.equal(e.link, null);
  const p = pods.find((x) => `pod:${x.namespace}/${x.name}` === found.object);
  assert.ok(p);
  if (p.nodeName) assert.equal(suspects[suspects.length - 1], `node:${p.nodeName}`, `${found.id}: the node is the last suspect`);
  assert.equal(new Set(suspects).size, suspects.length, `${found.id}: no repeated suspect`);
  assert.ok(!JSON.stringify(found).includes('hunter2'), 'cluster messages are redacted');
}

describe('analyzePods', () => {
  for (const row of rows) {
    it(row.name, () => {
      const found = analyzePods(diagnosisInput(view(row.world), new Date(T0 + (row.after ?? 0) * 1000)));
      assert.deepEqual(found.map((f) => f.code).sort(), row.want.map((w) => w.code).sort(), JSON.stringify(found.map((f) => [f.code, f.summary])));
      for (const want of row.want) {
        const f = found.find((x) => x.code === want.code);
        assert.ok(f);
        check(f, want);
      }
      for (const f of found) invariants(f, row.world.pods);
    });
  }

  it('declares every code it can emit once, with a rule', () => {
    const codes = POD_CODES.map((c) => c.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const c of POD_CODES) assert.ok(c.kind === 'Pod' && c.rule.length > 20, c.code);
  });

  it("reads each pod's events through the index, not by scanning every event per pod", () => {
    // 200 pods, one FailedMount each: each pod's finding names its own ConfigMap only.
    const pods = Array.from({ length: 200 }, (_, i) => pending({ name: `p-${i}` }));
    const events = pods.map((p, i) => event('FailedMount', `MountVolume.SetUp failed for volume "cfg" : configmap "cm-${i}" not found`, { involvedName: p.name }));
    const found = analyzePods(diagnosisInput(view({ pods, events }), new Date(T0 + CONTAINER_CREATING_STUCK_SECS * 1000)));
    assert.equal(found.length, 200);
    for (const f of found) assert.equal(f.suspects[0], `configmap:shop/cm-${f.object.slice('pod:shop/p-'.length)}`);
  });
});
