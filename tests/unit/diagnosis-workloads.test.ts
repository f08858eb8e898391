// The workloads analyzer at its boundaries (docs/diagnosis.md states the rules): one table of
// hand-built object sets and the findings each must give, time from a fixed `now`; then the
// issue's whole chain (Deployment ← ReplicaSet ← quota) built once and checked end to end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KIND_PREFIX } from '../../domain/cluster/node-id.ts';
import type { ClusterView, Condition, ContainerStatus, ControllerObject, EventObject, LimitRangeObject, PodObject, ResourceQuotaObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { analyzeQuota } from '../../domain/diagnosis/analyzers/quota.ts';
import { ROLLOUT_STALL_SECS, STARTUP_GRACE_SECS, WORKLOAD_CODES, analyzeWorkloads } from '../../domain/diagnosis/analyzers/workloads.ts';
import { diagnosisInput, type DraftFinding } from '../../domain/diagnosis/input.ts';
import { REFUSAL_CURRENT_SECS } from '../../domain/diagnosis/refusal-message.ts';
import { emptyCluster } from '../support/services.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
/** An ISO time `secs` seconds before NOW. */
const ago = (secs: number) => new Date(NOW.getTime() - secs * 1000).toISOString();
const HOUR = 3600;

interface Objects {
  pods?: PodObject[];
  events?: EventObject[];
  workloads?: WorkloadObject[];
  controllers?: ControllerObject[];
  resourceQuotas?: ResourceQuotaObject[];
  limitRanges?: LimitRangeObject[];
}

function cluster(o: Objects): ClusterView {
  return {
    ...emptyCluster,
    pods: () => o.pods ?? [],
    events: () => o.events ?? [],
    workloads: () => o.workloads ?? [],
    controllers: () => o.controllers ?? [],
    resourceQuotas: () => o.resourceQuotas ?? [],
    limitRanges: () => o.limitRanges ?? [],
  };
}

function deployment(name: string, desired: number, available: number, extra: Partial<WorkloadObject> = {}): WorkloadObject {
  return { namespace: 'shop', name, kind: 'Deployment', desired, available, updated: available, ready: available, conditions: [], paused: false, createdAt: ago(HOUR), selector: { app: name }, ...extra };
}

function daemonSet(name: string, desired: number, available: number, extra: Partial<WorkloadObject> = {}): WorkloadObject {
  return { ...deployment(name, desired, available, extra), kind: 'DaemonSet', ...extra };
}

function controller(kind: ControllerObject['kind'], name: string, desired: number, available: number, extra: Partial<ControllerObject> = {}): ControllerObject {
  return { namespace: 'shop', name, kind, owner: null, createdAt: ago(HOUR), conditions: [], desired, ready: available, available, revision: null, job: null, cronJob: null, ...extra };
}

const replicaSet = (name: string, owner: string, revision: number, desired: number, available: number, extra: Partial<ControllerObject> = {}) =>
  controller('ReplicaSet', name, desired, available, { owner: { kind: 'Deployment', name: owner }, revision, ...extra });

function status(extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name: 'app', ready: true, restartCount: 0, waiting: null, runningSince: ago(HOUR), terminated: null, lastTerminated: null, ...extra };
}

function pod(name: string, owner: { kind: string; name: string }, extra: Partial<PodObject> = {}): PodObject {
  return {
    namespace: 'shop',
    name,
    phase: 'Running',
    createdAt: ago(HOUR),
    startedAt: ago(HOUR),
    nodeName: 'node-1',
    labels: {},
    workload: owner,
    owner,
    refs: { configMaps: [], secrets: [], pvcs: [] }, envHosts: [],
    ready: true,
    readySince: ago(HOUR),
    unschedulable: null,
    containers: [{ name: 'app', image: 'example/app:1', resources: { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null }, ports: [] }],
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

const crashing: Partial<PodObject> = { ready: false, statuses: [status({ ready: false, restartCount: 4, waiting: { reason: 'CrashLoopBackOff', message: null } })] };
const starting: Partial<PodObject> = { phase: 'Pending', ready: false, statuses: [status({ ready: false, waiting: { reason: 'ContainerCreating', message: null }, runningSince: null })] };

function failedCreate(kind: string, name: string, message: string, lastSeenAgo = 30, extra: Partial<EventObject> = {}): EventObject {
  return {
    namespace: 'shop',
    involvedKind: kind,
    involvedNamespace: 'shop',
    involvedName: name,
    source: 'replicaset-controller',
    type: 'Warning',
    reason: 'FailedCreate',
    message,
    count: 5,
    firstSeen: ago(lastSeenAgo + 300),
    lastSeen: ago(lastSeenAgo),
    ...extra,
  };
}

const QUOTA_REFUSAL = (podName: string) => `Error creating: pods "${podName}" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2`;
const cond = (type: string, statusValue: string, reason: string | null, message: string | null = null): Condition => ({ type, status: statusValue, reason, message, lastTransition: ago(600) });

function run(o: Objects): DraftFinding[] {
  return analyzeWorkloads(diagnosisInput(cluster(o), NOW));
}

/** What a row expects of one finding: its id plus any of these fields. */
type Want = { id: string } & Partial<Pick<DraftFinding, 'severity' | 'summary' | 'suspects' | 'attributes'>>;

const rsOwner = (name: string) => ({ kind: 'ReplicaSet', name });

const rows: { name: string; objects: Objects; want: Want[] }[] = [
  // ReplicasUnavailable on Deployments: the shortfall and the startup grace.
  { name: 'all replicas available: nothing', objects: { workloads: [deployment('api', 3, 3)] }, want: [] },
  // RolloutPaused: a paused Deployment short of replicas says it is paused; fully available, it stays quiet.
  { name: 'paused with every replica available: nothing', objects: { workloads: [deployment('api', 3, 3, { paused: true })], controllers: [replicaSet('api-1', 'api', 1, 3, 3)], pods: [pod('api-1-a', rsOwner('api-1'))] }, want: [] },
  {
    name: 'created paused, so no ReplicaSet was ever made: the pause is the cause (suspected last, after anything failing)',
    objects: { workloads: [deployment('api', 2, 0, { paused: true })] },
    want: [
      { id: 'deployment:shop/api#ReplicasUnavailable', severity: 'critical', suspects: ['deployment:shop/api'] },
      { id: 'deployment:shop/api#RolloutPaused', severity: 'critical', summary: 'rollout of api is paused (spec.paused) with 2 of 2 replicas unavailable: nothing changes until it is resumed', attributes: { desired: 2, available: 0 } },
    ],
  },
  {
    name: 'paused with one of three unavailable and a crashing pod: the pods are suspected before the pause',
    objects: { workloads: [deployment('api', 3, 2, { paused: true })], controllers: [replicaSet('api-1', 'api', 1, 3, 2)], pods: [pod('api-1-a', rsOwner('api-1')), pod('api-1-b', rsOwner('api-1'), crashing)] },
    want: [
      { id: 'deployment:shop/api#ReplicasUnavailable', severity: 'warning', suspects: ['replicaset:shop/api-1', 'pod:shop/api-1-b', 'pod:shop/api-1-a', 'deployment:shop/api'] },
      { id: 'deployment:shop/api#RolloutPaused', severity: 'warning' },
    ],
  },
  { name: `paused, created ${STARTUP_GRACE_SECS - 1} s ago: still starting, nothing`, objects: { workloads: [deployment('api', 2, 0, { paused: true, createdAt: ago(STARTUP_GRACE_SECS - 1) })] }, want: [] },
  {
    name: 'one of three unavailable for an hour: warning, ReplicaSet then not-Ready pod first',
    objects: {
      workloads: [deployment('api', 3, 2)],
      controllers: [replicaSet('api-1', 'api', 1, 3, 2)],
      pods: [pod('api-1-a', rsOwner('api-1')), pod('api-1-b', rsOwner('api-1'), crashing), pod('api-1-c', rsOwner('api-1'))],
    },
    want: [{ id: 'deployment:shop/api#ReplicasUnavailable', severity: 'warning', summary: '1 of 3 replicas of api unavailable', suspects: ['replicaset:shop/api-1', 'pod:shop/api-1-b', 'pod:shop/api-1-a', 'pod:shop/api-1-c'] }],
  },
  {
    name: 'none available: critical',
    objects: { workloads: [deployment('api', 2, 0)], controllers: [replicaSet('api-1', 'api', 1, 2, 0)], pods: [pod('api-1-a', rsOwner('api-1'), crashing)] },
    want: [{ id: 'deployment:shop/api#ReplicasUnavailable', severity: 'critical', summary: '2 of 2 replicas of api unavailable' }],
  },
  {
    name: `Deployment created ${STARTUP_GRACE_SECS - 1} s ago: still starting, nothing`,
    objects: { workloads: [deployment('api', 2, 0, { createdAt: ago(STARTUP_GRACE_SECS - 1) })] },
    want: [],
  },
  {
    name: `Deployment created ${STARTUP_GRACE_SECS} s ago: reported`,
    objects: { workloads: [deployment('api', 2, 0, { createdAt: ago(STARTUP_GRACE_SECS) })] },
    want: [{ id: 'deployment:shop/api#ReplicasUnavailable', severity: 'critical' }],
  },
  {
    name: 'old Deployment, newest pod just created (scale-up or replacement): nothing yet',
    objects: { workloads: [deployment('api', 3, 2)], controllers: [replicaSet('api-1', 'api', 1, 3, 2)], pods: [pod('api-1-a', rsOwner('api-1')), pod('api-1-b', rsOwner('api-1')), pod('api-1-c', rsOwner('api-1'), { ...starting, createdAt: ago(10) })] },
    want: [],
  },
  {
    name: 'old Deployment, new ReplicaSet just created by a rollout: nothing yet',
    objects: { workloads: [deployment('api', 3, 2)], controllers: [replicaSet('api-2', 'api', 2, 1, 0, { createdAt: ago(20) }), replicaSet('api-1', 'api', 1, 3, 2)] },
    want: [],
  },
  {
    name: 'a current refusal skips the grace: reported at once, the refused ReplicaSet first',
    objects: {
      workloads: [deployment('api', 3, 2)],
      controllers: [replicaSet('api-2', 'api', 2, 3, 2, { createdAt: ago(20) }), replicaSet('api-1', 'api', 1, 0, 0)],
      pods: [pod('api-2-a', rsOwner('api-2'), { createdAt: ago(15) }), pod('api-2-b', rsOwner('api-2'), { createdAt: ago(15) })],
      events: [failedCreate('ReplicaSet', 'api-2', QUOTA_REFUSAL('api-2-zz'))],
    },
    want: [
      { id: 'deployment:shop/api#ReplicasUnavailable', severity: 'warning', suspects: ['replicaset:shop/api-2', 'replicaset:shop/api-1', 'pod:shop/api-2-a', 'pod:shop/api-2-b'] },
      { id: 'replicaset:shop/api-2#ReplicaCreateFailed', severity: 'critical', attributes: { refusal: 'quota', quota: 'pods', resource: 'pods' }, suspects: ['resourcequota:shop/pods'] },
    ],
  },
  {
    name: 'scaled to zero: a note, never a shortfall',
    objects: { workloads: [deployment('api', 0, 0)] },
    want: [{ id: 'deployment:shop/api#ScaledToZero', severity: 'info' }],
  },
  // DaemonSets, StatefulSets, ReplicaSets.
  {
    name: 'DaemonSet short: warning, its own pods as suspects',
    objects: { workloads: [daemonSet('agent', 3, 2)], pods: [pod('agent-a', { kind: 'DaemonSet', name: 'agent' }, crashing), pod('agent-b', { kind: 'DaemonSet', name: 'agent' })] },
    want: [{ id: 'daemonset:shop/agent#ReplicasUnavailable', severity: 'warning', suspects: ['pod:shop/agent-a', 'pod:shop/agent-b'] }],
  },
  { name: 'DaemonSet wanting no pods (no matching node): no note', objects: { workloads: [daemonSet('agent', 0, 0)] }, want: [] },
  {
    name: 'StatefulSet with none available: critical',
    objects: { controllers: [controller('StatefulSet', 'db', 3, 0)], pods: [pod('db-0', { kind: 'StatefulSet', name: 'db' }, crashing)] },
    want: [{ id: 'statefulset:shop/db#ReplicasUnavailable', severity: 'critical', summary: '3 of 3 replicas of db unavailable', suspects: ['pod:shop/db-0'] }],
  },
  {
    name: 'StatefulSet refused a pod: its own refusal is its first suspect',
    objects: {
      controllers: [controller('StatefulSet', 'db', 3, 2)],
      pods: [pod('db-0', { kind: 'StatefulSet', name: 'db' }), pod('db-1', { kind: 'StatefulSet', name: 'db' })],
      events: [failedCreate('StatefulSet', 'db', 'create Pod db-2 in StatefulSet db failed error: pods "db-2" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2', 30, { source: 'statefulset-controller' })],
    },
    want: [
      { id: 'statefulset:shop/db#ReplicasUnavailable', severity: 'warning', suspects: ['statefulset:shop/db', 'pod:shop/db-0', 'pod:shop/db-1'] },
      { id: 'statefulset:shop/db#ReplicaCreateFailed', attributes: { refusal: 'quota', quota: 'pods', resource: 'pods' }, suspects: ['resourcequota:shop/pods'] },
    ],
  },
  {
    name: "StatefulSet refused its pod's volume claim by a storage quota: says claims",
    objects: {
      controllers: [controller('StatefulSet', 'db', 1, 0)],
      events: [
        failedCreate('StatefulSet', 'db', 'create Claim data-db-0 for Pod db-0 in StatefulSet db failed error: persistentvolumeclaims "data-db-0" is forbidden: exceeded quota: storage, requested: requests.storage=10Gi, used: requests.storage=20Gi, limited: requests.storage=20Gi', 30, { source: 'statefulset-controller' }),
      ],
    },
    want: [
      { id: 'statefulset:shop/db#ReplicasUnavailable', severity: 'critical' },
      {
        id: 'statefulset:shop/db#ReplicaCreateFailed',
        summary: 'StatefulSet db cannot create volume claims for its pods: quota storage refused it (requests.storage 20Gi/20Gi used, 10Gi more requested)',
        attributes: { refusal: 'quota', quota: 'storage', resource: 'requests.storage', creating: 'claims' },
        suspects: ['resourcequota:shop/storage'],
      },
    ],
  },
  { name: 'StatefulSet scaled to zero: a note', objects: { controllers: [controller('StatefulSet', 'db', 0, 0)] }, want: [{ id: 'statefulset:shop/db#ScaledToZero', severity: 'info' }] },
  { name: "a Deployment's ReplicaSet short: judged through the Deployment only", objects: { controllers: [replicaSet('api-1', 'api', 1, 3, 1)] }, want: [] },
  { name: 'a bare ReplicaSet short: reported on itself', objects: { controllers: [controller('ReplicaSet', 'solo', 2, 1)] }, want: [{ id: 'replicaset:shop/solo#ReplicasUnavailable', severity: 'warning' }] },
  // ReplicaCreateFailed: which refusals are current.
  {
    name: `refusal seen ${REFUSAL_CURRENT_SECS} s ago: current`,
    objects: { controllers: [replicaSet('api-1', 'api', 1, 3, 2)], events: [failedCreate('ReplicaSet', 'api-1', QUOTA_REFUSAL('api-1-x'), REFUSAL_CURRENT_SECS)] },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed', severity: 'critical', summary: 'ReplicaSet api-1 cannot create pods: quota pods refused it (pods 2/2 used, 1 more requested)' }],
  },
  { name: `refusal seen ${REFUSAL_CURRENT_SECS + 1} s ago: over`, objects: { controllers: [replicaSet('api-1', 'api', 1, 3, 2)], events: [failedCreate('ReplicaSet', 'api-1', QUOTA_REFUSAL('api-1-x'), REFUSAL_CURRENT_SECS + 1)] }, want: [] },
  {
    name: 'fresh refusal, but the ReplicaSet runs all the live pods it wants: over',
    objects: { controllers: [replicaSet('api-1', 'api', 1, 2, 1)], pods: [pod('api-1-a', rsOwner('api-1')), pod('api-1-b', rsOwner('api-1'), starting)], events: [failedCreate('ReplicaSet', 'api-1', QUOTA_REFUSAL('api-1-x'))] },
    want: [],
  },
  {
    name: 'failed and deleting pods are not live: still short, still refused',
    objects: {
      controllers: [replicaSet('api-1', 'api', 1, 2, 0)],
      pods: [pod('api-1-a', rsOwner('api-1'), { phase: 'Failed', ready: false }), pod('api-1-b', rsOwner('api-1'), { deletion: { at: ago(5), graceSecs: 30 } })],
      events: [failedCreate('ReplicaSet', 'api-1', QUOTA_REFUSAL('api-1-x'))],
    },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed' }],
  },
  { name: 'a Normal event with reason FailedCreate is not a refusal', objects: { controllers: [replicaSet('api-1', 'api', 1, 3, 2)], events: [failedCreate('ReplicaSet', 'api-1', QUOTA_REFUSAL('api-1-x'), 30, { type: 'Normal' })] }, want: [] },
  {
    name: 'a ReplicaFailure condition alone: refused, the condition as status evidence',
    objects: { controllers: [replicaSet('api-1', 'api', 1, 3, 2, { conditions: [cond('ReplicaFailure', 'True', 'FailedCreate', 'pods "api-1-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2')] })] },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed', attributes: { refusal: 'quota', quota: 'pods', resource: 'pods' }, suspects: ['resourcequota:shop/pods'] }],
  },
  {
    name: 'LimitRange refusal: the LimitRange that explains it first, then the others in the namespace',
    objects: {
      controllers: [replicaSet('api-1', 'api', 1, 1, 0)],
      limitRanges: [
        { namespace: 'shop', name: 'a-loose', limits: [{ type: 'Container', max: { cpu: '4' }, min: {} }] },
        { namespace: 'shop', name: 'z-tight', limits: [{ type: 'Container', max: { cpu: '500m' }, min: {} }] },
        { namespace: 'other', name: 'elsewhere', limits: [{ type: 'Container', max: { cpu: '500m' }, min: {} }] },
      ],
      events: [failedCreate('ReplicaSet', 'api-1', 'Error creating: pods "api-1-x" is forbidden: maximum cpu usage per Container is 500m, but limit is 1')],
    },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed', attributes: { refusal: 'limitrange', resource: 'cpu', bound: 'maximum', scope: 'Container' }, suspects: ['limitrange:shop/z-tight', 'limitrange:shop/a-loose'] }],
  },
  {
    name: 'webhook denial: named, nothing in the model to suspect',
    objects: { controllers: [replicaSet('api-1', 'api', 1, 1, 0)], events: [failedCreate('ReplicaSet', 'api-1', 'Error creating: admission webhook "policy.example.com" denied the request: no root')] },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed', summary: 'ReplicaSet api-1 cannot create pods: admission webhook policy.example.com denied it: no root', attributes: { refusal: 'webhook', webhook: 'policy.example.com' }, suspects: [] }],
  },
  {
    name: 'an unknown refusal: other, its words redacted',
    objects: { controllers: [replicaSet('api-1', 'api', 1, 1, 0)], events: [failedCreate('ReplicaSet', 'api-1', 'Error creating: token=hunter2hunter2 refused by something')] },
    want: [{ id: 'replicaset:shop/api-1#ReplicaCreateFailed', summary: 'ReplicaSet api-1 cannot create pods: token=[REDACTED] refused by something', attributes: { refusal: 'other' } }],
  },
  {
    name: 'a running Job refused its pod',
    objects: {
      controllers: [controller('Job', 'report', 1, 0, { job: { active: 0, succeeded: 0, failed: 0, backoffLimit: 6, completions: 1, startedAt: ago(60), completedAt: null, suspended: false } })],
      events: [failedCreate('Job', 'report', QUOTA_REFUSAL('report-x'), 30, { source: 'job-controller' })],
    },
    want: [{ id: 'job:shop/report#ReplicaCreateFailed', attributes: { refusal: 'quota', quota: 'pods', resource: 'pods' } }],
  },
  {
    name: 'a finished Job wants no pods: its old refusal is over',
    objects: {
      controllers: [controller('Job', 'report', 1, 0, { conditions: [cond('Complete', 'True', null)], job: { active: 0, succeeded: 1, failed: 0, backoffLimit: 6, completions: 1, startedAt: ago(600), completedAt: ago(60), suspended: false } })],
      events: [failedCreate('Job', 'report', QUOTA_REFUSAL('report-x'))],
    },
    want: [],
  },
  {
    name: 'a DaemonSet refused a pod',
    objects: { workloads: [daemonSet('agent', 2, 1)], pods: [pod('agent-a', { kind: 'DaemonSet', name: 'agent' })], events: [failedCreate('DaemonSet', 'agent', QUOTA_REFUSAL('agent-x'), 30, { source: 'daemonset-controller' })] },
    want: [{ id: 'daemonset:shop/agent#ReplicasUnavailable', suspects: ['daemonset:shop/agent', 'pod:shop/agent-a'] }, { id: 'daemonset:shop/agent#ReplicaCreateFailed' }],
  },
  // ProgressDeadlineExceeded.
  {
    name: 'progress deadline exceeded: the newest ReplicaSet and its pods are suspects',
    objects: {
      workloads: [deployment('api', 2, 2, { conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "api-2" has timed out progressing.')] })],
      controllers: [replicaSet('api-1', 'api', 1, 2, 2), replicaSet('api-2', 'api', 2, 1, 0)],
      pods: [pod('api-2-a', rsOwner('api-2'), crashing)],
    },
    want: [
      { id: 'deployment:shop/api#ProgressDeadlineExceeded', severity: 'critical', suspects: ['replicaset:shop/api-2', 'pod:shop/api-2-a'] },
      { id: 'deployment:shop/api#RolloutStuck' },
    ],
  },
  {
    name: 'progress deadline exceeded and short: the shortfall suspects the deadline first (same object)',
    objects: {
      workloads: [deployment('api', 2, 0, { createdAt: ago(600), conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "api-1" has timed out progressing.')] })],
      controllers: [replicaSet('api-1', 'api', 1, 2, 0)],
      pods: [pod('api-1-a', rsOwner('api-1'), { createdAt: ago(600) })],
    },
    want: [
      { id: 'deployment:shop/api#ReplicasUnavailable', suspects: ['deployment:shop/api', 'replicaset:shop/api-1', 'pod:shop/api-1-a'] },
      { id: 'deployment:shop/api#ProgressDeadlineExceeded' },
    ],
  },
  { name: 'Progressing=True: no deadline finding', objects: { workloads: [deployment('api', 2, 2, { conditions: [cond('Progressing', 'True', 'NewReplicaSetAvailable')] })] }, want: [] },
  // RolloutStuck.
  {
    name: 'new ReplicaSet crash-looping while the old one serves: stuck',
    objects: {
      workloads: [deployment('api', 3, 3)],
      controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)],
      pods: [pod('api-2-a', rsOwner('api-2'), { ...crashing, createdAt: ago(120) })],
    },
    want: [{ id: 'deployment:shop/api#RolloutStuck', severity: 'warning', suspects: ['replicaset:shop/api-2', 'pod:shop/api-2-a'], attributes: { new_replicaset: 'api-2', serving_pods: 3, failing_pods: 1 } }],
  },
  {
    name: `failing new pod younger than ${STARTUP_GRACE_SECS} s: not yet`,
    objects: { workloads: [deployment('api', 3, 3)], controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), { ...crashing, createdAt: ago(STARTUP_GRACE_SECS - 1) })] },
    want: [],
  },
  {
    name: `new pod merely starting for ${ROLLOUT_STALL_SECS - 1} s: not yet`,
    objects: { workloads: [deployment('api', 3, 3)], controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), { ...starting, createdAt: ago(ROLLOUT_STALL_SECS - 1), readySince: ago(ROLLOUT_STALL_SECS - 1) })] },
    want: [],
  },
  {
    name: `new pod merely starting for ${ROLLOUT_STALL_SECS} s: stuck`,
    objects: { workloads: [deployment('api', 3, 3)], controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), { ...starting, createdAt: ago(ROLLOUT_STALL_SECS), readySince: ago(ROLLOUT_STALL_SECS) })] },
    want: [{ id: 'deployment:shop/api#RolloutStuck' }],
  },
  {
    name: `new pod with no Ready condition yet, created ${ROLLOUT_STALL_SECS} s ago: stuck (creation is the fallback)`,
    objects: { workloads: [deployment('api', 3, 3)], controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), { ...starting, createdAt: ago(ROLLOUT_STALL_SECS), readySince: null })] },
    want: [{ id: 'deployment:shop/api#RolloutStuck' }],
  },
  {
    name: `new pod created an hour ago but not Ready only for ${ROLLOUT_STALL_SECS - 1} s (its Ready condition's last change): not yet`,
    objects: { workloads: [deployment('api', 3, 3)], controllers: [replicaSet('api-1', 'api', 1, 3, 3), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), { phase: 'Running', ready: false, createdAt: ago(HOUR), readySince: ago(ROLLOUT_STALL_SECS - 1) })] },
    want: [],
  },
  {
    name: 'new ReplicaSet failing but no older one serves: a shortfall, not a stuck rollout',
    objects: { workloads: [deployment('api', 1, 0)], controllers: [replicaSet('api-1', 'api', 1, 0, 0), replicaSet('api-2', 'api', 2, 1, 0)], pods: [pod('api-2-a', rsOwner('api-2'), crashing)] },
    want: [{ id: 'deployment:shop/api#ReplicasUnavailable', severity: 'critical' }],
  },
  {
    name: 'new ReplicaSet refused its pods while the old one serves: stuck, the new ReplicaSet suspected',
    objects: {
      workloads: [deployment('api', 2, 2)],
      controllers: [replicaSet('api-1', 'api', 1, 2, 2), replicaSet('api-2', 'api', 2, 1, 0, { createdAt: ago(30) })],
      events: [failedCreate('ReplicaSet', 'api-2', QUOTA_REFUSAL('api-2-x'))],
    },
    want: [{ id: 'deployment:shop/api#RolloutStuck', suspects: ['replicaset:shop/api-2'] }, { id: 'replicaset:shop/api-2#ReplicaCreateFailed' }],
  },
];

describe('analyzeWorkloads', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = run(row.objects);
      assert.deepEqual(
        got.map((f) => f.id).sort(),
        row.want.map((w) => w.id).sort(),
        `findings: ${JSON.stringify(got.map((f) => f.summary))}`,
      );
      for (const want of row.want) {
        const finding = got.find((f) => f.id === want.id);
        assert.ok(finding);
        for (const [key, value] of Object.entries(want)) assert.deepEqual(finding[key as keyof DraftFinding], value, `${want.id}.${key}`);
        assert.ok(finding.evidence.length > 0, `${want.id} has evidence`);
        assert.ok(finding.evidence.every((e) => e.link === null));
      }
    });
  }
});

describe('WORKLOAD_CODES', () => {
  it('declares every code the table produces, on the kinds and at the severities it declares', () => {
    const specs = new Map(WORKLOAD_CODES.map((c) => [c.code, c]));
    const produced = new Set<string>();
    for (const row of rows) {
      for (const f of run(row.objects)) {
        const spec = specs.get(f.code);
        assert.ok(spec, `${f.code} is declared`);
        produced.add(f.code);
        const prefixes = spec.kind.split('|').map((kind) => KIND_PREFIX[kind as keyof typeof KIND_PREFIX]);
        assert.ok(prefixes.includes(f.object.slice(0, f.object.indexOf(':'))), `${f.id} is on a ${spec.kind}`);
        // ReplicasUnavailable and RolloutPaused are declared at their worst (critical) and drop to warning while some replicas serve.
        assert.ok(f.severity === spec.severity || ((f.code === 'ReplicasUnavailable' || f.code === 'RolloutPaused') && f.severity === 'warning'), `${f.id} severity`);
      }
    }
    assert.deepEqual([...produced].sort(), [...specs.keys()].sort(), 'every declared code is exercised');
  });
});

describe('the issue chain: 2 of 4 replicas of api missing ← ReplicaSet cannot create pods ← quota pods is full (2/2)', () => {
  const objects: Objects = {
    workloads: [deployment('api', 4, 2, { conditions: [cond('ReplicaFailure', 'True', 'FailedCreate', 'pods "api-5c9d-x7k2p" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2')] })],
    controllers: [replicaSet('api-5c9d', 'api', 3, 4, 2), replicaSet('api-7f01', 'api', 2, 0, 0)],
    pods: [pod('api-5c9d-a', rsOwner('api-5c9d')), pod('api-5c9d-b', rsOwner('api-5c9d'))],
    resourceQuotas: [{ namespace: 'shop', name: 'pods', hard: { pods: '2' }, used: { pods: '2' } }],
    events: [failedCreate('ReplicaSet', 'api-5c9d', QUOTA_REFUSAL('api-5c9d-x7k2p'))],
  };
  const input = diagnosisInput(cluster(objects), NOW);
  const findings = [...analyzeWorkloads(input), ...analyzeQuota(input)];
  const byId = new Map(findings.map((f) => [f.id, f]));
  const finding = (id: string): DraftFinding => {
    const f = byId.get(id);
    assert.ok(f, `${id} is found`);
    return f;
  };

  it('gives exactly the three links of the chain', () => {
    assert.deepEqual([...byId.keys()].sort(), ['deployment:shop/api#ReplicasUnavailable', 'replicaset:shop/api-5c9d#ReplicaCreateFailed', 'resourcequota:shop/pods#QuotaExhausted']);
  });

  it('the Deployment suspects its newest ReplicaSet first', () => {
    const f = finding('deployment:shop/api#ReplicasUnavailable');
    assert.equal(f.summary, '2 of 4 replicas of api unavailable');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.suspects, ['replicaset:shop/api-5c9d', 'replicaset:shop/api-7f01', 'pod:shop/api-5c9d-a', 'pod:shop/api-5c9d-b']);
  });

  it('the ReplicaSet cannot create pods and suspects the quota', () => {
    const f = finding('replicaset:shop/api-5c9d#ReplicaCreateFailed');
    assert.equal(f.severity, 'critical');
    assert.match(f.summary, /^ReplicaSet api-5c9d cannot create pods: quota pods/);
    assert.deepEqual(f.attributes, { refusal: 'quota', quota: 'pods', resource: 'pods' });
    assert.deepEqual(f.suspects, ['resourcequota:shop/pods']);
    assert.equal(f.evidence[0]?.source, 'event');
  });

  it('the quota is the root: full, suspecting nothing', () => {
    const f = finding('resourcequota:shop/pods#QuotaExhausted');
    assert.equal(f.summary, 'quota pods is full (2/2)');
    assert.deepEqual(f.attributes, { resource: 'pods', used: '2', hard: '2' });
    assert.deepEqual(f.suspects, []);
    assert.ok(f.evidence.some((e) => e.node_id === 'replicaset:shop/api-5c9d' && e.source === 'event'));
  });
});
