// The slimmers (runtime/kube/slim*.ts) on the fields the diagnosis reads, from objects written
// as the API server returns them (managedFields, uids, annotations and `null` lists included),
// one table per family: each row is a raw object and either the whole slimmed object (so
// anything kept by mistake fails too) or, for boundaries, the fields that row is about.
import { describe } from 'node:test';
import type { ControllerObject } from '../../domain/cluster/model.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimController, slimDaemonSet, slimDeployment, slimEvent, slimNode } from '../../runtime/kube/slim.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { meta, runTable, T } from '../support/slim-table.ts';

const noResources = { cpuRequestM: null, cpuLimitM: null, memRequestBytes: null, memLimitBytes: null };

describe('slimPod: init containers, deletion, finalizers, the kubelet reason', () => {
  runTable(slimPod, [
    {
      name: 'an init container crash-looping while the app container waits in PodInitializing',
      raw: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: meta('api-7d9f8-x2k4q', 'shop', {
          generateName: 'api-7d9f8-',
          labels: { app: 'api', 'pod-template-hash': '7d9f8' },
          annotations: { 'kubectl.kubernetes.io/restartedAt': T },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-7d9f8', uid: 'u1', controller: true, blockOwnerDeletion: true }],
        }),
        spec: {
          nodeName: 'kwok-node-1',
          nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' },
          initContainers: [{ name: 'migrate', image: 'ghcr.io/acme/migrate:2.1', command: ['/migrate'], envFrom: [{ secretRef: { name: 'db-credentials' } }] }],
          containers: [{ name: 'api', image: 'ghcr.io/acme/api:1.0.0', resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '256Mi' } }, ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { containerPort: 9090 }], env: [{ name: 'DATABASE_URL', value: 'postgres://api:p4ss@db.shop.svc:5432/api' }, { name: 'LOG_LEVEL', value: 'debug' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'token' } } }] }],
          volumes: [{ name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] } }],
          restartPolicy: 'Always',
          tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        },
        status: {
          phase: 'Pending',
          conditions: [
            { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [migrate]', lastProbeTime: null, lastTransitionTime: T },
            { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [api]', lastProbeTime: null, lastTransitionTime: T },
            { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: T },
          ],
          hostIP: '10.0.0.1',
          podIP: '10.244.1.7',
          startTime: T,
          initContainerStatuses: [
            {
              name: 'migrate',
              image: 'ghcr.io/acme/migrate:2.1',
              imageID: 'ghcr.io/acme/migrate@sha256:abc',
              containerID: 'containerd://1234',
              ready: false,
              restartCount: 4,
              started: false,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container=migrate pod=api-7d9f8-x2k4q_shop(6f1c)' } },
              lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: '2026-11-21T11:58:00Z', finishedAt: '2026-11-21T11:58:03Z', containerID: 'containerd://1234' } },
            },
          ],
          containerStatuses: [{ name: 'api', image: 'ghcr.io/acme/api:1.0.0', imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'PodInitializing' } }, lastState: {} }],
          qosClass: 'Burstable',
        },
      },
      want: {
        namespace: 'shop',
        name: 'api-7d9f8-x2k4q',
        phase: 'Pending',
        createdAt: T,
        startedAt: T,
        nodeName: 'kwok-node-1',
        labels: { app: 'api', 'pod-template-hash': '7d9f8' },
        workload: { kind: 'Deployment', name: 'api' },
        owner: { kind: 'ReplicaSet', name: 'api-7d9f8' },
        refs: { configMaps: ['kube-root-ca.crt'], secrets: ['db-credentials'], pvcs: [] },
        // Hosts only: the URL's credentials and path are not kept; a plain word is a host candidate too.
        envHosts: [{ container: 'api', variable: 'DATABASE_URL', host: 'db.shop.svc' }, { container: 'api', variable: 'LOG_LEVEL', host: 'debug' }],
        ready: false,
        readySince: T,
        unschedulable: null,
        containers: [{ name: 'api', image: 'ghcr.io/acme/api:1.0.0', resources: { cpuRequestM: 250, cpuLimitM: null, memRequestBytes: 128 * 2 ** 20, memLimitBytes: 256 * 2 ** 20 }, ports: [{ name: 'http', port: 8080 }, { name: null, port: 9090 }] }],
        statuses: [{ name: 'api', ready: false, restartCount: 0, waiting: { reason: 'PodInitializing', message: null }, runningSince: null, terminated: null, lastTerminated: null }],
        initContainers: [{ name: 'migrate', image: 'ghcr.io/acme/migrate:2.1' }],
        initStatuses: [
          {
            name: 'migrate',
            ready: false,
            restartCount: 4,
            waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container=migrate pod=api-7d9f8-x2k4q_shop(6f1c)' },
            runningSince: null,
            terminated: null,
            lastTerminated: { exitCode: 1, reason: 'Error', signal: null, startedAt: '2026-11-21T11:58:00Z', finishedAt: '2026-11-21T11:58:03Z' },
          },
        ],
        statusReason: null,
        deletion: null,
        finalizers: [],
        nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' },
      },
    },
    {
      name: 'a pod being deleted, held by a finalizer, with its grace period',
      raw: {
        metadata: meta('worker-0', 'shop', { deletionTimestamp: '2026-11-21T12:05:00Z', deletionGracePeriodSeconds: 30, finalizers: ['example.com/drain', 'foregroundDeletion'] }),
        spec: { nodeName: 'kwok-node-2', containers: [{ name: 'worker', image: 'worker:1' }] },
        status: { phase: 'Running', containerStatuses: [{ name: 'worker', ready: true, restartCount: 0, state: { running: { startedAt: T } } }] },
      },
      fields: { deletion: { at: '2026-11-21T12:05:00Z', graceSecs: 30 }, finalizers: ['example.com/drain', 'foregroundDeletion'], phase: 'Running' },
    },
    {
      name: 'an evicted pod keeps the kubelet reason and message, and its last container state',
      raw: {
        metadata: meta('batch-1', 'jobs'),
        spec: { nodeName: 'kwok-node-3', containers: [{ name: 'batch', image: 'batch:1' }] },
        status: {
          phase: 'Failed',
          reason: 'Evicted',
          message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. Container batch was using 1Gi, request is 0, has larger consumption of its request. ',
          startTime: T,
          containerStatuses: [{ name: 'batch', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } } }],
        },
      },
      fields: {
        phase: 'Failed',
        statusReason: {
          reason: 'Evicted',
          message: 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. Container batch was using 1Gi, request is 0, has larger consumption of its request. ',
        },
        statuses: [{ name: 'batch', ready: false, restartCount: 0, waiting: null, runningSince: null, terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', signal: null, startedAt: null, finishedAt: null }, lastTerminated: null }],
      },
    },
    {
      name: 'an init container that completed and one still running; a terminated app container with a signal',
      raw: {
        metadata: meta('web-1', 'shop'),
        spec: { initContainers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }], containers: [{ name: 'web', image: 'web:1' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'a', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: T, finishedAt: T } } },
            { name: 'b', ready: false, restartCount: 0, state: { running: { startedAt: T } } },
          ],
          containerStatuses: [{ name: 'web', ready: false, restartCount: 2, state: { terminated: { exitCode: 143, signal: 15, reason: 'Error', startedAt: T, finishedAt: T } } }],
        },
      },
      fields: {
        initContainers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
        initStatuses: [
          { name: 'a', ready: true, restartCount: 0, waiting: null, runningSince: null, terminated: { exitCode: 0, reason: 'Completed', signal: null, startedAt: T, finishedAt: T }, lastTerminated: null },
          { name: 'b', ready: false, restartCount: 0, waiting: null, runningSince: T, terminated: null, lastTerminated: null },
        ],
        statuses: [{ name: 'web', ready: false, restartCount: 2, waiting: null, runningSince: null, terminated: { exitCode: 143, reason: 'Error', signal: 15, startedAt: T, finishedAt: T }, lastTerminated: null }],
      },
    },
    {
      name: 'boundary: a pod with nothing but its name falls back to empty lists and nulls',
      raw: { metadata: { name: 'bare', namespace: 'shop' } },
      want: {
        namespace: 'shop',
        name: 'bare',
        phase: 'Unknown',
        createdAt: null,
        startedAt: null,
        nodeName: null,
        labels: {},
        workload: { kind: 'Pod', name: 'bare' },
        owner: null,
        refs: { configMaps: [], secrets: [], pvcs: [] },
        envHosts: [],
        ready: false,
        readySince: null,
        unschedulable: null,
        containers: [],
        statuses: [],
        initContainers: [],
        initStatuses: [],
        statusReason: null,
        deletion: null,
        finalizers: [],
        nodeSelector: {},
      },
    },
    {
      name: 'boundary: deletion without a grace period; a status message without a reason is no kubelet reason',
      raw: { metadata: { name: 'p', namespace: 'shop', deletionTimestamp: T }, spec: { containers: [{ name: 'c', image: 'c' }] }, status: { phase: 'Running', message: 'stray message' } },
      fields: { deletion: { at: T, graceSecs: null }, statusReason: null },
    },
    {
      name: 'boundary: a reason without a message; a waiting state without a reason; nameless and imageless containers',
      raw: {
        metadata: { name: 'p', namespace: 'shop' },
        spec: { initContainers: [{}], containers: [{ name: 'c' }] },
        status: { phase: 'Failed', reason: 'NodeLost', initContainerStatuses: [{ state: { waiting: {} } }] },
      },
      fields: {
        statusReason: { reason: 'NodeLost', message: null },
        initContainers: [{ name: '', image: '' }],
        initStatuses: [{ name: '', ready: false, restartCount: 0, waiting: { reason: 'Waiting', message: null }, runningSince: null, terminated: null, lastTerminated: null }],
        containers: [{ name: 'c', image: '', resources: noResources, ports: [] }],
      },
    },
    { name: 'boundary: no namespace, no pod', raw: { metadata: { name: 'p' } }, want: null },
    { name: 'boundary: no name, no pod', raw: { metadata: { namespace: 'shop' } }, want: null },
  ]);
});

describe('slimNode: conditions, taints, cordon', () => {
  runTable(slimNode, [
    {
      name: 'a cordoned node under disk pressure whose kubelet stopped posting status',
      raw: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: meta('kwok-node-7', null, { labels: { 'kubernetes.io/hostname': 'kwok-node-7', type: 'kwok' }, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' } }),
        spec: {
          unschedulable: true,
          podCIDR: '10.244.7.0/24',
          taints: [
            { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-11-21T11:59:00Z' },
            { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: '2026-11-21T11:00:00Z' },
            { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
          ],
        },
        status: {
          capacity: { cpu: '64', memory: '256Gi', pods: '120' },
          allocatable: { cpu: '63500m', memory: '250Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          conditions: [
            { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: T, lastTransitionTime: '2026-11-20T00:00:00Z', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
            { type: 'DiskPressure', status: 'True', lastHeartbeatTime: T, lastTransitionTime: '2026-11-21T11:30:00Z', reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure' },
            { type: 'Ready', status: 'Unknown', lastHeartbeatTime: '2026-11-21T11:58:00Z', lastTransitionTime: '2026-11-21T11:59:00Z', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
          ],
          addresses: [
            { type: 'Hostname', address: 'kwok-node-7' },
            { type: 'InternalIP', address: '10.0.0.7' },
          ],
          daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
          nodeInfo: { kubeletVersion: 'fake' },
        },
      },
      want: {
        name: 'kwok-node-7',
        ready: false,
        conditions: [
          { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available', lastTransition: '2026-11-20T00:00:00Z' },
          { type: 'DiskPressure', status: 'True', reason: 'KubeletHasDiskPressure', message: 'kubelet has disk pressure', lastTransition: '2026-11-21T11:30:00Z' },
          { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransition: '2026-11-21T11:59:00Z' },
        ],
        taints: [
          { key: 'node.kubernetes.io/unreachable', value: null, effect: 'NoExecute' },
          { key: 'node.kubernetes.io/unschedulable', value: null, effect: 'NoSchedule' },
          { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        ],
        unschedulable: true,
        createdAt: T,
        labels: { 'kubernetes.io/hostname': 'kwok-node-7', type: 'kwok' },
        containerMetricsPath: '/metrics/cadvisor',
        kubelet: { address: '10.0.0.7', port: 10250 },
        capacity: { cpuM: 64_000, memBytes: 256 * 1024 ** 3, pods: 120 },
        allocatable: { cpuM: 63_500, memBytes: 250 * 1024 ** 3, pods: 110 },
      },
    },
    {
      name: 'a Ready node: ready follows the Ready condition',
      raw: { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastTransitionTime: T }] } },
      fields: { ready: true, unschedulable: false, taints: [] },
    },
    {
      name: 'boundary: no spec and no status: not ready, no conditions, no taints, schedulable',
      raw: { metadata: { name: 'n2' } },
      fields: { ready: false, conditions: [], taints: [], unschedulable: false, kubelet: null },
    },
    {
      name: 'boundary: a condition without status is Unknown; a taint without key or effect keeps empty strings',
      raw: { metadata: { name: 'n3' }, spec: { taints: [{}] }, status: { conditions: [{ type: 'Ready' }] } },
      fields: { ready: false, conditions: [{ type: 'Ready', status: 'Unknown', reason: null, message: null, lastTransition: null }], taints: [{ key: '', value: null, effect: '' }] },
    },
  ]);
});

const progressDeadline = { type: 'Progressing', status: 'False', lastUpdateTime: T, lastTransitionTime: T, reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "api-7d9f8" has timed out progressing.' };

describe('slimDeployment and slimDaemonSet: rollout status', () => {
  runTable(slimDeployment, [
    {
      name: 'a Deployment past its progress deadline, paused, with a matchExpressions selector part dropped',
      raw: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta('api', 'shop', { annotations: { 'deployment.kubernetes.io/revision': '4' } }),
        spec: {
          replicas: 4,
          paused: true,
          progressDeadlineSeconds: 600,
          selector: { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
          template: { metadata: { labels: { app: 'api', tier: 'web' } }, spec: { containers: [{ name: 'api', image: 'api:2' }] } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        },
        status: {
          observedGeneration: 3,
          replicas: 5,
          updatedReplicas: 2,
          readyReplicas: 3,
          availableReplicas: 3,
          unavailableReplicas: 2,
          conditions: [
            { type: 'Available', status: 'False', lastUpdateTime: T, lastTransitionTime: '2026-11-21T11:50:00Z', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
            progressDeadline,
          ],
        },
      },
      want: {
        namespace: 'shop',
        name: 'api',
        kind: 'Deployment',
        desired: 4,
        available: 3,
        updated: 2,
        ready: 3,
        conditions: [
          { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.', lastTransition: '2026-11-21T11:50:00Z' },
          { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "api-7d9f8" has timed out progressing.', lastTransition: T },
        ],
        paused: true,
        createdAt: T,
        selector: { app: 'api' },
        // The template as the security checks read it (tests/unit/slim-security.test.ts covers which objects keep one).
        security: podSecuritySpec({ containers: [{ name: 'api', image: 'api:2' }] }),
      },
    },
    {
      name: 'boundary: no replicas means 1 desired; no status means nothing updated, ready or available',
      raw: { metadata: { name: 'api', namespace: 'shop' }, spec: { selector: { matchLabels: { app: 'api' } } } },
      fields: { desired: 1, available: 0, updated: 0, ready: 0, conditions: [], paused: false, createdAt: null },
    },
    {
      name: 'boundary: scaled to zero stays zero',
      raw: { metadata: { name: 'api', namespace: 'shop' }, spec: { replicas: 0 }, status: { observedGeneration: 2 } },
      fields: { desired: 0, available: 0, selector: {} },
    },
  ]);
  runTable(slimDaemonSet, [
    {
      name: 'a DaemonSet reads the per-node counts',
      raw: {
        metadata: meta('agent', 'kube-system'),
        spec: { selector: { matchLabels: { name: 'agent' } } },
        status: { currentNumberScheduled: 3, desiredNumberScheduled: 3, numberAvailable: 1, numberReady: 2, updatedNumberScheduled: 3, numberMisscheduled: 0, observedGeneration: 1 },
      },
      want: { namespace: 'kube-system', name: 'agent', kind: 'DaemonSet', desired: 3, available: 1, updated: 3, ready: 2, conditions: [], paused: false, createdAt: T, selector: { name: 'agent' } },
    },
    {
      name: 'boundary: no status yet means nothing desired',
      raw: { metadata: { name: 'agent', namespace: 'kube-system' } },
      fields: { desired: 0, available: 0, updated: 0, ready: 0 },
    },
  ]);
});

const quotaRefusal = 'pods "api-7d9f8-abcde" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';

describe('slimController: ReplicaSets, StatefulSets, Jobs, CronJobs', () => {
  const common = (kind: ControllerObject['kind']) => ({ kind, job: null, cronJob: null, revision: null });
  describe('ReplicaSet', () => {
    runTable(slimController('ReplicaSet'), [
      {
        name: 'a ReplicaSet refused by a quota: revision annotation and ReplicaFailure condition',
        raw: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: meta('api-7d9f8', 'shop', {
            labels: { app: 'api', 'pod-template-hash': '7d9f8' },
            annotations: { 'deployment.kubernetes.io/desired-replicas': '4', 'deployment.kubernetes.io/max-replicas': '5', 'deployment.kubernetes.io/revision': '3' },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'u', controller: true, blockOwnerDeletion: true }],
          }),
          spec: { replicas: 4, selector: { matchLabels: { app: 'api', 'pod-template-hash': '7d9f8' } }, template: {} },
          status: {
            replicas: 2,
            fullyLabeledReplicas: 2,
            readyReplicas: 2,
            availableReplicas: 1,
            observedGeneration: 1,
            conditions: [{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: T, reason: 'FailedCreate', message: quotaRefusal }],
          },
        },
        want: {
          namespace: 'shop',
          name: 'api-7d9f8',
          kind: 'ReplicaSet',
          owner: { kind: 'Deployment', name: 'api' },
          createdAt: T,
          conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quotaRefusal, lastTransition: T }],
          desired: 4,
          ready: 2,
          available: 1,
          revision: 3,
          job: null,
          cronJob: null,
        },
      },
      { name: 'boundary: no revision annotation', raw: { metadata: { name: 'rs', namespace: 'shop' } }, fields: { revision: null, desired: 1, ready: 0, available: 0, owner: null, conditions: [] } },
      { name: 'boundary: a revision that is not a number', raw: { metadata: { name: 'rs', namespace: 'shop', annotations: { 'deployment.kubernetes.io/revision': 'three' } } }, fields: { revision: null } },
      { name: 'boundary: a fractional revision', raw: { metadata: { name: 'rs', namespace: 'shop', annotations: { 'deployment.kubernetes.io/revision': '2.5' } } }, fields: { revision: null } },
      { name: 'boundary: scaled down to zero (an old ReplicaSet)', raw: { metadata: { name: 'rs', namespace: 'shop', annotations: { 'deployment.kubernetes.io/revision': '1' } }, spec: { replicas: 0 }, status: { replicas: 0 } }, fields: { desired: 0, revision: 1 } },
      {
        name: 'boundary: several owners, the controller one wins; without a controller flag the first',
        raw: { metadata: { name: 'rs', namespace: 'shop', ownerReferences: [{ kind: 'Other', name: 'x' }, { kind: 'Deployment', name: 'api', controller: true }] } },
        fields: { owner: { kind: 'Deployment', name: 'api' } },
      },
    ]);
  });
  describe('StatefulSet', () => {
    runTable(slimController('StatefulSet'), [
      {
        name: 'a StatefulSet with two of three ready; the revision annotation is not read on other kinds',
        raw: {
          metadata: meta('db', 'shop', { annotations: { 'deployment.kubernetes.io/revision': '9' } }),
          spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } } },
          status: { replicas: 3, readyReplicas: 2, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 2, currentRevision: 'db-5d8', updateRevision: 'db-5d8', collisionCount: 0 },
        },
        want: { namespace: 'shop', name: 'db', ...common('StatefulSet'), owner: null, createdAt: T, conditions: [], desired: 3, ready: 2, available: 2 },
      },
    ]);
  });
  describe('Job', () => {
    runTable(slimController('Job'), [
      {
        name: 'a Job that hit its backoff limit',
        raw: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: meta('nightly-29412345', 'jobs', { labels: { 'batch.kubernetes.io/job-name': 'nightly-29412345' }, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', controller: true }] }),
          spec: { parallelism: 2, completions: 5, backoffLimit: 3, completionMode: 'NonIndexed', suspend: false, template: {} },
          status: {
            startTime: '2026-11-21T11:00:00Z',
            failed: 4,
            succeeded: 1,
            ready: 0,
            terminating: 0,
            uncountedTerminatedPods: {},
            conditions: [
              { type: 'FailureTarget', status: 'True', lastProbeTime: T, lastTransitionTime: T, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
              { type: 'Failed', status: 'True', lastProbeTime: T, lastTransitionTime: T, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
            ],
          },
        },
        want: {
          namespace: 'jobs',
          name: 'nightly-29412345',
          kind: 'Job',
          owner: { kind: 'CronJob', name: 'nightly' },
          createdAt: T,
          conditions: [
            { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransition: T },
            { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransition: T },
          ],
          desired: 2,
          ready: 0,
          available: 0,
          revision: null,
          job: { active: 0, succeeded: 1, failed: 4, backoffLimit: 3, completions: 5, startedAt: '2026-11-21T11:00:00Z', completedAt: null, suspended: false },
          cronJob: null,
        },
      },
      {
        name: 'a running Job counts its active pods; a completed one its completion time',
        raw: { metadata: { name: 'j', namespace: 'jobs' }, spec: { backoffLimit: 6 }, status: { active: 2, startTime: T, completionTime: '2026-11-21T12:10:00Z' } },
        fields: { job: { active: 2, succeeded: 0, failed: 0, backoffLimit: 6, completions: null, startedAt: T, completedAt: '2026-11-21T12:10:00Z', suspended: false } },
      },
      {
        name: 'boundary: an empty Job falls back to parallelism 1, backoff limit 6, no completions',
        raw: { metadata: { name: 'j', namespace: 'jobs' } },
        fields: { desired: 1, job: { active: 0, succeeded: 0, failed: 0, backoffLimit: 6, completions: null, startedAt: null, completedAt: null, suspended: false }, cronJob: null },
      },
      { name: 'boundary: a suspended Job with parallelism 0', raw: { metadata: { name: 'j', namespace: 'jobs' }, spec: { parallelism: 0, suspend: true } }, fields: { desired: 0, job: { active: 0, succeeded: 0, failed: 0, backoffLimit: 6, completions: null, startedAt: null, completedAt: null, suspended: true } } },
    ]);
  });
  describe('CronJob', () => {
    runTable(slimController('CronJob'), [
      {
        name: 'a CronJob in its own time zone with a starting deadline and a run in progress',
        raw: {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: meta('nightly', 'jobs'),
          spec: { schedule: '30 2 * * *', timeZone: 'Europe/Paris', startingDeadlineSeconds: 200, concurrencyPolicy: 'Forbid', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: {} },
          status: {
            active: [{ kind: 'Job', namespace: 'jobs', name: 'nightly-29412345', uid: 'u', apiVersion: 'batch/v1', resourceVersion: '1' }],
            lastScheduleTime: '2026-11-21T01:30:00Z',
            lastSuccessfulTime: '2026-11-20T01:31:10Z',
          },
        },
        want: {
          namespace: 'jobs',
          name: 'nightly',
          kind: 'CronJob',
          owner: null,
          createdAt: T,
          conditions: [],
          desired: 0,
          ready: 0,
          available: 0,
          revision: null,
          job: null,
          cronJob: { schedule: '30 2 * * *', timeZone: 'Europe/Paris', startingDeadlineSecs: 200, suspended: false, lastScheduleTime: '2026-11-21T01:30:00Z', lastSuccessfulTime: '2026-11-20T01:31:10Z', active: ['nightly-29412345'] },
        },
      },
      {
        name: 'boundary: a suspended CronJob that never ran: no time zone, no deadline, nothing active (status {} as created)',
        raw: { metadata: { name: 'c', namespace: 'jobs' }, spec: { schedule: '*/5 * * * *', suspend: true }, status: {} },
        fields: { desired: 0, job: null, cronJob: { schedule: '*/5 * * * *', timeZone: null, startingDeadlineSecs: null, suspended: true, lastScheduleTime: null, lastSuccessfulTime: null, active: [] } },
      },
      {
        name: 'boundary: a nameless active reference is dropped; a deadline of 0 stays 0',
        raw: { metadata: { name: 'c', namespace: 'jobs' }, spec: { schedule: '0 * * * *', startingDeadlineSeconds: 0 }, status: { active: [{ kind: 'Job' }, { kind: 'Job', name: 'c-1' }] } },
        fields: { cronJob: { schedule: '0 * * * *', timeZone: null, startingDeadlineSecs: 0, suspended: false, lastScheduleTime: null, lastSuccessfulTime: null, active: ['c-1'] } },
      },
    ]);
  });
});

describe('slimEvent: where the event is about, and who reported it', () => {
  runTable(slimEvent, [
    {
      name: 'a core/v1 Warning about a pod, from the kubelet, repeated',
      raw: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: meta('api-7d9f8-x2k4q.17a9c3d1e2f3a4b5', 'shop'),
        involvedObject: { kind: 'Pod', namespace: 'shop', name: 'api-7d9f8-x2k4q', uid: 'u', apiVersion: 'v1', resourceVersion: '1', fieldPath: 'spec.containers{api}' },
        reason: 'BackOff',
        message: 'Back-off restarting failed container api in pod api-7d9f8-x2k4q_shop(u)',
        source: { component: 'kubelet', host: 'kwok-node-1' },
        firstTimestamp: '2026-11-21T11:00:00Z',
        lastTimestamp: '2026-11-21T11:59:00Z',
        count: 42,
        type: 'Warning',
        eventTime: null,
        reportingComponent: 'kubelet',
        reportingInstance: 'kwok-node-1',
      },
      want: {
        namespace: 'shop',
        involvedKind: 'Pod',
        involvedNamespace: 'shop',
        involvedName: 'api-7d9f8-x2k4q',
        source: 'kubelet',
        type: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container api in pod api-7d9f8-x2k4q_shop(u)',
        count: 42,
        firstSeen: '2026-11-21T11:00:00Z',
        lastSeen: '2026-11-21T11:59:00Z',
      },
    },
    {
      name: 'a Node event lives in default and has no involved namespace',
      raw: {
        metadata: meta('kwok-node-7.17a9', 'default'),
        involvedObject: { kind: 'Node', name: 'kwok-node-7', uid: 'kwok-node-7' },
        reason: 'NodeNotReady',
        message: 'Node kwok-node-7 status is now: NodeNotReady',
        source: { component: 'node-controller' },
        firstTimestamp: T,
        lastTimestamp: T,
        count: 1,
        type: 'Normal',
      },
      fields: { namespace: 'default', involvedKind: 'Node', involvedNamespace: '', involvedName: 'kwok-node-7', source: 'node-controller' },
    },
    {
      name: 'a scheduler event written through events.k8s.io, read as core/v1 (empty source, series, no first/last timestamps)',
      raw: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: meta('big-1.17a9', 'shop'),
        involvedObject: { kind: 'Pod', namespace: 'shop', name: 'big-1', uid: 'u', apiVersion: 'v1', resourceVersion: '1' },
        reason: 'FailedScheduling',
        message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        type: 'Warning',
        eventTime: '2026-11-21T11:50:00.000000Z',
        series: { count: 7, lastObservedTime: '2026-11-21T11:58:00.000000Z' },
        action: 'Scheduling',
        reportingComponent: 'default-scheduler',
        reportingInstance: 'default-scheduler-host',
      },
      fields: { source: 'default-scheduler', count: 7, firstSeen: '2026-11-21T11:50:00.000000Z', lastSeen: '2026-11-21T11:58:00.000000Z', involvedNamespace: 'shop' },
    },
    {
      name: 'an events.k8s.io/v1 Event: regarding, note, reportingController, deprecated fields',
      raw: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: meta('api-7d9f8.17a9', 'shop'),
        eventTime: '2026-11-21T11:40:00.000000Z',
        reportingController: 'replicaset-controller',
        reportingInstance: '',
        action: 'Create',
        reason: 'FailedCreate',
        regarding: { kind: 'ReplicaSet', namespace: 'shop', name: 'api-7d9f8', uid: 'u', apiVersion: 'apps/v1', resourceVersion: '1' },
        note: `Error creating: ${quotaRefusal}`,
        type: 'Warning',
        deprecatedSource: { component: 'replicaset-controller' },
        deprecatedFirstTimestamp: '2026-11-21T11:40:00Z',
        deprecatedLastTimestamp: '2026-11-21T11:59:30Z',
        deprecatedCount: 12,
      },
      want: {
        namespace: 'shop',
        involvedKind: 'ReplicaSet',
        involvedNamespace: 'shop',
        involvedName: 'api-7d9f8',
        source: 'replicaset-controller',
        type: 'Warning',
        reason: 'FailedCreate',
        message: `Error creating: ${quotaRefusal}`,
        count: 12,
        firstSeen: '2026-11-21T11:40:00Z',
        lastSeen: '2026-11-21T11:59:30Z',
      },
    },
    {
      name: 'an events.k8s.io/v1 Event with a series and no deprecated fields',
      raw: {
        metadata: { name: 'e', namespace: 'shop', creationTimestamp: '2026-11-21T11:00:00Z' },
        eventTime: '2026-11-21T11:00:00.000000Z',
        reportingController: 'kubelet',
        reason: 'Unhealthy',
        regarding: { kind: 'Pod', namespace: 'shop', name: 'web-1' },
        note: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
        type: 'Warning',
        series: { count: 30, lastObservedTime: '2026-11-21T11:59:00.000000Z' },
      },
      fields: { source: 'kubelet', count: 30, firstSeen: '2026-11-21T11:00:00.000000Z', lastSeen: '2026-11-21T11:59:00.000000Z', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503' },
    },
    {
      name: 'boundary: no type is Normal; no count is 1; no timestamps fall back to the creation time; no source is ""',
      raw: { metadata: { name: 'e', namespace: 'shop', creationTimestamp: T }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Pulled' },
      want: { namespace: 'shop', involvedKind: 'Pod', involvedNamespace: '', involvedName: 'p', source: '', type: 'Normal', reason: 'Pulled', message: '', count: 1, firstSeen: T, lastSeen: T },
    },
    { name: 'boundary: an event about nothing is dropped', raw: { metadata: { name: 'e', namespace: 'shop' }, reason: 'X' }, want: null },
    { name: 'boundary: an event without a namespace is dropped', raw: { metadata: { name: 'e' }, involvedObject: { kind: 'Node', name: 'n' } }, want: null },
  ]);
});
