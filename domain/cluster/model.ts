// The cluster read model: objects as the informer cache keeps them (slimmed from the API
// objects) and the read-only view handlers query. No I/O: the runtime implements ClusterView.
import type { PodSecuritySpec } from '../../schema/security.ts';
import type { ConfigAuditReportObject, ScannerReportStatus, VulnerabilityReportObject } from '../security/trivy-reports.ts';

/**
 * What the built-in security checks read (docs/security-posture.md), kept only on the objects
 * judged by their own spec: each workload's pod template and bare pods. Absent on a replica
 * pod, a Deployment's ReplicaSet and a CronJob's Job, so 5000 replicas add nothing.
 */
export interface SecurityJudged {
  security?: PodSecuritySpec;
}

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

/** A Kubernetes status condition, as every kind below keeps it. */
export interface EnvHost {
  container: string;
  variable: string;
  host: string;
}

/**
 * A host a crashed container's previous instance named in its last log lines, with the line
 * that names it (redacted and cut: it is shown as evidence). Read by the runtime once per crash
 * (runtime/diagnosis/crash-logs.ts), never held by an informer.
 */
export interface LogHost {
  container: string;
  host: string;
  line: string;
}

export interface ContainerPort {
  name: string | null;
  port: number;
}

export interface Condition {
  type: string;
  status: string;
  reason: string | null;
  message: string | null;
  lastTransition: string | null;
}

/** A pod as the informer keeps it. */
export interface PodObject extends SecurityJudged {
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
  /**
   * Host names its containers' literal environment values mention (domain/diagnosis/host-names.ts),
   * with the variable that holds each: the hosts only, never the values (they may hold credentials).
   */
  envHosts: readonly EnvHost[];
  ready: boolean;
  /** When the Ready condition last changed. */
  readySince: string | null;
  /** PodScheduled=False: why the scheduler could not place it. */
  unschedulable: { reason: string; message: string | null } | null;
  /** `ports`: what the container declares (`spec.containers[].ports`), by name and number; a Service's named targetPort resolves against them. */
  containers: { name: string; image: string; resources: ContainerResources; ports: readonly ContainerPort[] }[];
  statuses: ContainerStatus[];
  /** Init containers, in the order they run, and their statuses (same shape as `statuses`). */
  initContainers: { name: string; image: string }[];
  initStatuses: ContainerStatus[];
  /** `status.reason`/`status.message`: the kubelet's word on the whole pod (Evicted, NodeLost...). */
  statusReason: { reason: string; message: string | null } | null;
  /** Set once deletion was requested: when, with the grace period granted (seconds). */
  deletion: { at: string; graceSecs: number | null } | null;
  finalizers: string[];
  /** `spec.nodeSelector`, for explaining an unschedulable pod. */
  nodeSelector: Readonly<Record<string, string>>;
}

/** A node as the informer keeps it. */
export interface NodeObject {
  name: string;
  ready: boolean;
  /** Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable as the node reports them. */
  conditions: Condition[];
  taints: { key: string; value: string | null; effect: string }[];
  /** `spec.unschedulable`: cordoned. */
  unschedulable: boolean;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
  /** Where its kubelet serves container metrics: `/metrics/cadvisor` unless the node's `capstan.dev/container-metrics-path` annotation says otherwise. */
  containerMetricsPath: string;
  /** The kubelet's address (InternalIP, else the first address) and port, from the node's status; null when not reported. */
  kubelet: { address: string; port: number } | null;
  /** `status.capacity` and `status.allocatable` (what pods may request); a null the node did not report. */
  capacity: NodeResources;
  allocatable: NodeResources;
}

export interface NodeResources {
  cpuM: number | null;
  memBytes: number | null;
  pods: number | null;
}

export interface EventObject {
  namespace: string;
  involvedKind: string;
  /** The involved object's namespace: empty for cluster-scoped objects (a Node's events live in `default`). */
  involvedNamespace: string;
  involvedName: string;
  /** The component that reported it (`default-scheduler`, `kubelet`, `replicaset-controller`...). */
  source: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
}

export interface WorkloadObject extends SecurityJudged {
  namespace: string;
  name: string;
  kind: 'Deployment' | 'DaemonSet';
  desired: number;
  available: number;
  /** Pods of the current template (updatedReplicas / updatedNumberScheduled). */
  updated: number;
  ready: number;
  /** Deployment conditions (Progressing with ProgressDeadlineExceeded, Available, ReplicaFailure). */
  conditions: Condition[];
  paused: boolean;
  createdAt: string | null;
  /** The pod label selector's matchLabels. */
  selector: Readonly<Record<string, string>>;
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

export interface PvcObject extends NamespacedName {
  phase: string;
  /** The PersistentVolume it is bound to. */
  volumeName: string | null;
  /** `spec.storageClassName`; null when unset (the default class applies), '' for "no class". */
  storageClass: string | null;
  createdAt: string | null;
  requestBytes: number | null;
  accessModes: string[];
}

export interface ServiceObject extends NamespacedName {
  /** Null: a Service without a selector (its endpoints are managed by hand). */
  selector: Readonly<Record<string, string>> | null;
  /** ClusterIP, NodePort, LoadBalancer, ExternalName. */
  type: string;
  ports: { name: string | null; port: number; targetPort: string | number | null }[];
  createdAt: string | null;
}

/** An EndpointSlice, reduced to counts per Service (label `kubernetes.io/service-name`). */
export interface EndpointSliceObject extends NamespacedName {
  service: string | null;
  ready: number;
  notReady: number;
  /** Pods behind the not-ready endpoints (targetRef). */
  notReadyPods: string[];
}

/** ReplicaSets, StatefulSets, Jobs and CronJobs: ownership for the cluster model, status for diagnosis. */
export interface ControllerObject extends NamespacedName, SecurityJudged {
  kind: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'CronJob';
  owner: { kind: string; name: string } | null;
  createdAt: string | null;
  conditions: Condition[];
  /** ReplicaSet/StatefulSet: spec.replicas; Job: parallelism; CronJob: 0. */
  desired: number;
  ready: number;
  available: number;
  /** ReplicaSet: the Deployment revision annotation; null elsewhere. */
  revision: number | null;
  job: { active: number; succeeded: number; failed: number; backoffLimit: number; completions: number | null; startedAt: string | null; completedAt: string | null; suspended: boolean } | null;
  cronJob: { schedule: string; timeZone: string | null; startingDeadlineSecs: number | null; suspended: boolean; lastScheduleTime: string | null; lastSuccessfulTime: string | null; active: string[] } | null;
}

export interface IngressObject extends NamespacedName {
  /** Backend Services, by name. */
  services: string[];
  hosts: string[];
  /** Each backend with the port it names (number or port name). */
  backends: { service: string; port: number | string | null }[];
  /** TLS Secrets, by name. */
  tlsSecrets: string[];
  ingressClassName: string | null;
}

export interface IngressClassObject {
  name: string;
  controller: string;
  isDefault: boolean;
}

export interface StorageClassObject {
  name: string;
  provisioner: string;
  isDefault: boolean;
  /** Immediate or WaitForFirstConsumer. */
  bindingMode: string;
}

/** A node's heartbeat: the Lease in kube-node-lease named after the node. */
export interface LeaseObject {
  name: string;
  renewTime: string | null;
  durationSecs: number | null;
}

export interface ResourceQuotaObject extends NamespacedName {
  /** Resource name → quantity as the API writes it (`pods: "2"`, `requests.cpu: "1"`). */
  hard: Readonly<Record<string, string>>;
  used: Readonly<Record<string, string>>;
}

export interface LimitRangeObject extends NamespacedName {
  limits: { type: string; max: Readonly<Record<string, string>>; min: Readonly<Record<string, string>> }[];
}

export interface HpaObject extends NamespacedName {
  target: { kind: string; name: string };
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
  conditions: Condition[];
  createdAt: string | null;
}

export interface PdbObject extends NamespacedName {
  selector: Readonly<Record<string, string>>;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
  expectedPods: number;
  createdAt: string | null;
  /** The generation the disruption controller last wrote the status for; null before it has. */
  observedGeneration: number | null;
}

/**
 * That a Secret exists, by name: the agent reads Secrets as metadata only, so neither their data
 * nor their `type` ever reaches it (a detail view needing the type would GET that one Secret).
 */
export type SecretObject = NamespacedName;

export interface PvObject {
  name: string;
  phase: string;
  claim: NamespacedName | null;
  storageClass: string | null;
  /** `status.reason`/`status.message` (a Failed volume's recycler or deleter error). */
  reason: string | null;
  message: string | null;
  capacityBytes: number | null;
  accessModes: string[];
  /** Retain, Delete or Recycle. */
  reclaimPolicy: string;
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
  /**
   * RBAC refuses this resource somewhere the agent lists it: what it serves may be missing
   * objects (all of them when the refusal is cluster-wide), so whatever reads it says so.
   */
  forbidden: boolean;
  /**
   * Where the refusal applies when the agent lists per namespace (CAPSTAN_WATCH_SCOPE=namespaces):
   * the namespaces refused, in name order. Empty when nothing is refused or when the one
   * cluster-wide LIST is.
   */
  forbidden_namespaces: readonly string[];
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
  endpointSlices(): readonly EndpointSliceObject[];
  ingressClasses(): readonly IngressClassObject[];
  storageClasses(): readonly StorageClassObject[];
  /** Leases of kube-node-lease only (named after their nodes). */
  nodeLeases(): readonly LeaseObject[];
  resourceQuotas(): readonly ResourceQuotaObject[];
  limitRanges(): readonly LimitRangeObject[];
  hpas(): readonly HpaObject[];
  pdbs(): readonly PdbObject[];
  /** Keyed `namespace/pod`. */
  metrics(): MetricsSnapshot;
  /** trivy-operator's VulnerabilityReports (empty when its CRDs are not installed or not readable: see scannerReportStatus). */
  vulnerabilityReports(): readonly VulnerabilityReportObject[];
  /** trivy-operator's ConfigAuditReports. */
  configAuditReports(): readonly ConfigAuditReportObject[];
  /** Whether each kind of scanner report is read, and if not why. Not part of syncStatus: reports never hold readiness back. */
  scannerReportStatus(): ScannerReportStatus;
  syncStatus(): readonly CacheSyncStatus[];
  /** The earliest `failing_since` over every informer (answers may be stale since then), or null. */
  staleSince(): string | null;
}
