// Slimmers turn API objects into what the service reads, dropping managedFields,
// annotations and everything else no handler uses, so 5000 pods stay small in memory.
import type { Condition, ControllerObject, EventObject, IngressObject, NamespacedName, NamespaceObject, NodeObject, NodeResources, PvcObject, PvObject, SecretObject, ServiceObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { bytes, millicores, parseQuantity } from '../../domain/resources/quantity.ts';
import { intern, internOrNull } from './intern.ts';
import { templateSecurity } from './slim-security.ts';

interface RawCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** Conditions as every kind keeps them; messages stay whole (they are what explains a failure). */
export function slimConditions(raw: RawCondition[] | undefined): Condition[] {
  return (raw ?? []).map((c) => ({ type: intern(c.type ?? ''), status: intern(c.status ?? 'Unknown'), reason: internOrNull(c.reason), message: internOrNull(c.message), lastTransition: internOrNull(c.lastTransitionTime) }));
}

interface RawNamespace {
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  status?: { phase?: string };
}

export function slimNamespace(raw: unknown): NamespaceObject | null {
  const ns = raw as RawNamespace;
  if (!ns.metadata?.name) return null;
  return {
    name: ns.metadata.name,
    phase: ns.status?.phase ?? 'Unknown',
    createdAt: ns.metadata.creationTimestamp ?? null,
    labels: ns.metadata.labels ?? {},
  };
}

/** Real kubelets serve container (cAdvisor) metrics here; a simulated node names its own path. */
export const DEFAULT_CONTAINER_METRICS_PATH = '/metrics/cadvisor';
export const CONTAINER_METRICS_PATH_ANNOTATION = 'capstan.dev/container-metrics-path';

interface RawNode {
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { unschedulable?: boolean; taints?: { key?: string; value?: string; effect?: string }[] };
  status?: {
    conditions?: RawCondition[];
    addresses?: { type?: string; address?: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
  };
}

function nodeResources(list: Record<string, string> | undefined): NodeResources {
  return { cpuM: millicores(list?.cpu), memBytes: bytes(list?.memory), pods: parseQuantity(list?.pods) };
}

export function slimNode(raw: unknown): NodeObject | null {
  const node = raw as RawNode;
  if (!node.metadata?.name) return null;
  const path = node.metadata.annotations?.[CONTAINER_METRICS_PATH_ANNOTATION];
  const addresses = node.status?.addresses ?? [];
  const address = (addresses.find((a) => a.type === 'InternalIP') ?? addresses[0])?.address;
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  return {
    name: node.metadata.name,
    ready: node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    conditions: slimConditions(node.status?.conditions),
    taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key ?? '', value: t.value ?? null, effect: t.effect ?? '' })),
    unschedulable: node.spec?.unschedulable ?? false,
    createdAt: node.metadata.creationTimestamp ?? null,
    labels: node.metadata.labels ?? {},
    containerMetricsPath: path?.startsWith('/') ? path : DEFAULT_CONTAINER_METRICS_PATH,
    kubelet: address && port ? { address, port } : null,
    capacity: nodeResources(node.status?.capacity),
    allocatable: nodeResources(node.status?.allocatable),
  };
}

interface RawMeta {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string };
}

const createdAtOf = (raw: unknown): string | null => (raw as RawMeta).metadata?.creationTimestamp ?? null;

function namespaced(raw: unknown): NamespacedName | null {
  const meta = (raw as RawMeta).metadata;
  return meta?.name && meta.namespace ? { namespace: meta.namespace, name: meta.name } : null;
}

interface RawService {
  spec?: { type?: string; selector?: Record<string, string>; ports?: { name?: string; port?: number; targetPort?: string | number }[] };
}

export function slimService(raw: unknown): ServiceObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const spec = (raw as RawService).spec;
  const selector = spec?.selector;
  return {
    ...id,
    selector: selector && Object.keys(selector).length > 0 ? selector : null,
    type: spec?.type ?? 'ClusterIP',
    ports: (spec?.ports ?? []).map((p) => ({ name: p.name ?? null, port: p.port ?? 0, targetPort: p.targetPort ?? null })),
    createdAt: createdAtOf(raw),
  };
}

export function slimPvc(raw: unknown): PvcObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const pvc = raw as { status?: { phase?: string }; spec?: { volumeName?: string; storageClassName?: string | null; accessModes?: string[]; resources?: { requests?: { storage?: string } } } };
  return {
    ...id,
    phase: pvc.status?.phase ?? 'Pending',
    volumeName: pvc.spec?.volumeName || null,
    storageClass: pvc.spec?.storageClassName ?? null,
    createdAt: createdAtOf(raw),
    requestBytes: bytes(pvc.spec?.resources?.requests?.storage),
    accessModes: pvc.spec?.accessModes ?? [],
  };
}

export const slimConfigMap = namespaced;

/**
 * Name and namespace only. The informer reads Secrets as PartialObjectMetadata, so `data`,
 * `stringData` and `type` never arrive; annotations do (kubectl's last-applied-configuration
 * repeats a Secret whole, data included) and stop here with everything else.
 */
export const slimSecret: (raw: unknown) => SecretObject | null = namespaced;

interface RawController {
  metadata?: { annotations?: Record<string, string>; ownerReferences?: { kind?: string; name?: string; controller?: boolean }[] };
  spec?: {
    template?: unknown;
    jobTemplate?: { spec?: { template?: unknown } };
    replicas?: number;
    parallelism?: number;
    completions?: number;
    backoffLimit?: number;
    suspend?: boolean;
    schedule?: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
  };
  status?: {
    conditions?: RawCondition[];
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    active?: number | { name?: string }[];
    succeeded?: number;
    failed?: number;
    startTime?: string;
    completionTime?: string;
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
}

/**
 * A controller's pod template when the security checks judge it (docs/security-posture.md):
 * a ReplicaSet's template is its Deployment's and a Job's its CronJob's, judged there once.
 */
function controllerSecurity(kind: ControllerObject['kind'], c: RawController, owner: { kind?: string } | undefined) {
  if (kind === 'ReplicaSet' && owner?.kind === 'Deployment') return {};
  if (kind === 'Job' && owner?.kind === 'CronJob') return {};
  return templateSecurity(kind === 'CronJob' ? c.spec?.jobTemplate?.spec?.template : c.spec?.template);
}

/** ReplicaSets, StatefulSets, Jobs and CronJobs: ownership, and the status the diagnosis reads. */
export function slimController(kind: ControllerObject['kind']): (raw: unknown) => ControllerObject | null {
  return (raw) => {
    const id = namespaced(raw);
    if (!id) return null;
    const c = raw as RawController;
    const refs = c.metadata?.ownerReferences ?? [];
    const owner = refs.find((o) => o.controller) ?? refs[0];
    const revision = Number(c.metadata?.annotations?.['deployment.kubernetes.io/revision']);
    const active = c.status?.active;
    return {
      ...id,
      kind,
      owner: owner?.kind && owner.name ? { kind: owner.kind, name: owner.name } : null,
      createdAt: createdAtOf(raw),
      conditions: slimConditions(c.status?.conditions),
      desired: kind === 'Job' ? (c.spec?.parallelism ?? 1) : kind === 'CronJob' ? 0 : (c.spec?.replicas ?? 1),
      ready: c.status?.readyReplicas ?? 0,
      available: c.status?.availableReplicas ?? 0,
      revision: kind === 'ReplicaSet' && Number.isInteger(revision) ? revision : null,
      job:
        kind === 'Job'
          ? {
              active: typeof active === 'number' ? active : 0,
              succeeded: c.status?.succeeded ?? 0,
              failed: c.status?.failed ?? 0,
              backoffLimit: c.spec?.backoffLimit ?? 6,
              completions: c.spec?.completions ?? null,
              startedAt: c.status?.startTime ?? null,
              completedAt: c.status?.completionTime ?? null,
              suspended: c.spec?.suspend ?? false,
            }
          : null,
      cronJob:
        kind === 'CronJob'
          ? {
              schedule: c.spec?.schedule ?? '',
              timeZone: c.spec?.timeZone ?? null,
              startingDeadlineSecs: c.spec?.startingDeadlineSeconds ?? null,
              suspended: c.spec?.suspend ?? false,
              lastScheduleTime: c.status?.lastScheduleTime ?? null,
              lastSuccessfulTime: c.status?.lastSuccessfulTime ?? null,
              active: Array.isArray(active) ? active.map((a) => a.name ?? '').filter((n) => n !== '') : [],
            }
          : null,
      ...controllerSecurity(kind, c, owner),
    };
  };
}

interface RawBackend {
  service?: { name?: string; port?: { number?: number; name?: string } };
}

interface RawIngress {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: RawBackend;
    tls?: { secretName?: string }[];
    rules?: { host?: string; http?: { paths?: { backend?: RawBackend }[] } }[];
  };
}

export function slimIngress(raw: unknown): IngressObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const spec = (raw as RawIngress).spec;
  const backends = new Map<string, IngressObject['backends'][number]>();
  const addBackend = (b: RawBackend | undefined) => {
    const name = b?.service?.name;
    if (!name) return;
    const port = b.service?.port?.number ?? b.service?.port?.name ?? null;
    backends.set(`${name}:${String(port)}`, { service: name, port });
  };
  addBackend(spec?.defaultBackend);
  for (const rule of spec?.rules ?? []) for (const path of rule.http?.paths ?? []) addBackend(path.backend);
  return {
    ...id,
    services: [...new Set([...backends.values()].map((b) => b.service))],
    hosts: (spec?.rules ?? []).map((r) => r.host ?? '').filter((h) => h !== ''),
    backends: [...backends.values()],
    tlsSecrets: [...new Set((spec?.tls ?? []).map((t) => t.secretName ?? '').filter((n) => n !== ''))],
    ingressClassName: spec?.ingressClassName ?? null,
  };
}

export function slimPv(raw: unknown): PvObject | null {
  const pv = raw as {
    metadata?: { name?: string };
    spec?: { claimRef?: { namespace?: string; name?: string }; storageClassName?: string; capacity?: { storage?: string }; accessModes?: string[]; persistentVolumeReclaimPolicy?: string };
    status?: { phase?: string; reason?: string; message?: string };
  };
  if (!pv.metadata?.name) return null;
  const claim = pv.spec?.claimRef;
  return {
    name: pv.metadata.name,
    phase: pv.status?.phase ?? 'Pending',
    claim: claim?.namespace && claim.name ? { namespace: claim.namespace, name: claim.name } : null,
    storageClass: pv.spec?.storageClassName || null,
    reason: pv.status?.reason ?? null,
    message: pv.status?.message ?? null,
    capacityBytes: bytes(pv.spec?.capacity?.storage),
    accessModes: pv.spec?.accessModes ?? [],
    reclaimPolicy: pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain',
  };
}

interface RawWorkload {
  spec?: { template?: unknown; replicas?: number; paused?: boolean; selector?: { matchLabels?: Record<string, string> } };
  status?: {
    conditions?: RawCondition[];
    availableReplicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    desiredNumberScheduled?: number;
    numberAvailable?: number;
    numberReady?: number;
    updatedNumberScheduled?: number;
  };
}

export function slimDeployment(raw: unknown): WorkloadObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const d = raw as RawWorkload;
  return {
    ...id,
    kind: 'Deployment',
    desired: d.spec?.replicas ?? 1,
    available: d.status?.availableReplicas ?? 0,
    updated: d.status?.updatedReplicas ?? 0,
    ready: d.status?.readyReplicas ?? 0,
    conditions: slimConditions(d.status?.conditions),
    paused: d.spec?.paused ?? false,
    createdAt: createdAtOf(raw),
    selector: d.spec?.selector?.matchLabels ?? {},
    ...templateSecurity(d.spec?.template),
  };
}

export function slimDaemonSet(raw: unknown): WorkloadObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const d = raw as RawWorkload;
  return {
    ...id,
    kind: 'DaemonSet',
    desired: d.status?.desiredNumberScheduled ?? 0,
    available: d.status?.numberAvailable ?? 0,
    updated: d.status?.updatedNumberScheduled ?? 0,
    ready: d.status?.numberReady ?? 0,
    conditions: slimConditions(d.status?.conditions),
    paused: false,
    createdAt: createdAtOf(raw),
    selector: d.spec?.selector?.matchLabels ?? {},
    ...templateSecurity(d.spec?.template),
  };
}

interface RawEvent {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  regarding?: { kind?: string; name?: string; namespace?: string };
  source?: { component?: string };
  reportingComponent?: string;
  reportingController?: string;
  type?: string;
  reason?: string;
  message?: string;
  note?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  // events.k8s.io/v1 keeps what a legacy recorder wrote under these names.
  deprecatedSource?: { component?: string };
  deprecatedCount?: number;
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
}

export function slimEvent(raw: unknown): EventObject | null {
  const e = raw as RawEvent;
  const namespace = e.metadata?.namespace;
  const involved = e.involvedObject ?? e.regarding;
  if (!namespace || !involved?.name) return null;
  const created = e.metadata?.creationTimestamp ?? null;
  // `||` where the API writes empty strings or zero times as `""`/`null` for "not set".
  const firstSeen = e.firstTimestamp || e.deprecatedFirstTimestamp || e.eventTime || created;
  const lastSeen = e.series?.lastObservedTime || e.lastTimestamp || e.deprecatedLastTimestamp || e.eventTime || created;
  return {
    namespace: intern(namespace),
    involvedKind: intern(involved.kind ?? ''),
    involvedNamespace: intern(involved.namespace ?? ''),
    involvedName: intern(involved.name),
    source: intern(e.source?.component || e.deprecatedSource?.component || e.reportingComponent || e.reportingController || ''),
    type: intern(e.type ?? 'Normal'),
    reason: intern(e.reason ?? ''),
    // Messages mostly name the one object they are about: kept as they come.
    message: e.message ?? e.note ?? '',
    count: e.series?.count || e.count || e.deprecatedCount || 1,
    firstSeen: internOrNull(firstSeen || null),
    lastSeen: internOrNull(lastSeen || null),
  };
}
