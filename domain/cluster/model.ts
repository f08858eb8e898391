// The cluster read model: objects as the informer cache keeps them (slimmed from the API
// objects) and the read-only view handlers query. No I/O: the runtime implements ClusterView.

/** A namespace as the informer cache keeps it (slimmed from the API object). */
export interface NamespaceObject {
  name: string;
  phase: string;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
}

export interface ContainerResources {
  cpuRequestM: number | null;
  cpuLimitM: number | null;
  memRequestBytes: number | null;
  memLimitBytes: number | null;
}

export interface Termination {
  exitCode: number;
  reason: string | null;
  signal: number | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  /** Present when waiting: CrashLoopBackOff, ImagePullBackOff, ContainerCreating... */
  waiting: { reason: string; message: string | null } | null;
  runningSince: string | null;
  terminated: Termination | null;
  lastTerminated: Termination | null;
}

/** A pod as the informer keeps it. */
export interface PodObject {
  namespace: string;
  name: string;
  phase: string;
  createdAt: string | null;
  startedAt: string | null;
  nodeName: string | null;
  labels: Readonly<Record<string, string>>;
  /** The workload that runs it: Deployment (through its ReplicaSet), StatefulSet, DaemonSet, Job, CronJob; a bare pod owns itself. */
  workload: { kind: string; name: string };
  /** The direct controller (a ReplicaSet for a Deployment's pod); null for a bare pod. */
  owner: { kind: string; name: string } | null;
  /** ConfigMaps, Secrets and PersistentVolumeClaims it reads, by name (volumes, envFrom, env). */
  refs: { configMaps: string[]; secrets: string[]; pvcs: string[] };
  ready: boolean;
  /** When the Ready condition last changed. */
  readySince: string | null;
  /** PodScheduled=False: why the scheduler could not place it. */
  unschedulable: { reason: string; message: string | null } | null;
  containers: { name: string; image: string; resources: ContainerResources }[];
  statuses: ContainerStatus[];
}

/** A node as the informer keeps it. */
export interface NodeObject {
  name: string;
  ready: boolean;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
  /** Where its kubelet serves container metrics: `/metrics/cadvisor` unless the node's `capstan.dev/container-metrics-path` annotation says otherwise. */
  containerMetricsPath: string;
  /** The kubelet's address (InternalIP, else the first address) and port, from the node's status; null when not reported. */
  kubelet: { address: string; port: number } | null;
}

export interface EventObject {
  namespace: string;
  involvedKind: string;
  involvedName: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
}

export interface WorkloadObject {
  namespace: string;
  name: string;
  kind: 'Deployment' | 'DaemonSet';
  desired: number;
  available: number;
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

export interface PvcObject extends NamespacedName {
  phase: string;
  /** The PersistentVolume it is bound to. */
  volumeName: string | null;
}

export interface ServiceObject extends NamespacedName {
  /** Null: a Service without a selector (its endpoints are managed by hand). */
  selector: Readonly<Record<string, string>> | null;
}

/** ReplicaSets, StatefulSets, Jobs and CronJobs: what the cluster model needs to draw ownership. */
export interface ControllerObject extends NamespacedName {
  kind: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'CronJob';
  owner: { kind: string; name: string } | null;
}

export interface IngressObject extends NamespacedName {
  /** Backend Services, by name. */
  services: string[];
  hosts: string[];
}

/** Metadata only: a Secret's data never enters Capstan's cache. */
export interface SecretObject extends NamespacedName {
  type: string;
}

export interface PvObject {
  name: string;
  phase: string;
  claim: NamespacedName | null;
  storageClass: string | null;
}

export interface PodUsage {
  cpuM: number;
  memBytes: number;
}

/** Pod usage from metrics.k8s.io, polled in the background; `available:false` says why. */
export type MetricsSnapshot =
  | { available: true; at: string; pods: ReadonlyMap<string, PodUsage> }
  | { available: false; reason: string };

export interface CacheSyncStatus {
  resource: string;
  synced: boolean;
  /** ISO time since which this informer has failed to LIST or WATCH; null while healthy. */
  failing_since: string | null;
}

/** Live cluster state, served from informers: never a LIST per HTTP request. */
export interface ClusterView {
  namespaces(): readonly NamespaceObject[];
  pods(): readonly PodObject[];
  nodes(): readonly NodeObject[];
  events(): readonly EventObject[];
  workloads(): readonly WorkloadObject[];
  services(): readonly ServiceObject[];
  pvcs(): readonly PvcObject[];
  controllers(): readonly ControllerObject[];
  ingresses(): readonly IngressObject[];
  configMaps(): readonly NamespacedName[];
  secrets(): readonly SecretObject[];
  pvs(): readonly PvObject[];
  /** Keyed `namespace/pod`. */
  metrics(): MetricsSnapshot;
  syncStatus(): readonly CacheSyncStatus[];
  /** The earliest `failing_since` over every informer (answers may be stale since then), or null. */
  staleSince(): string | null;
}
