// Slimmers turn API objects into what the service reads, dropping managedFields,
// annotations and everything else no handler uses, so 5000 pods stay small in memory.
import type { ControllerObject, EventObject, IngressObject, NamespacedName, NamespaceObject, NodeObject, PvcObject, PvObject, SecretObject, ServiceObject, WorkloadObject } from '../../domain/cluster/model.ts';

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
  status?: {
    conditions?: { type?: string; status?: string }[];
    addresses?: { type?: string; address?: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
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
    createdAt: node.metadata.creationTimestamp ?? null,
    labels: node.metadata.labels ?? {},
    containerMetricsPath: path?.startsWith('/') ? path : DEFAULT_CONTAINER_METRICS_PATH,
    kubelet: address && port ? { address, port } : null,
  };
}

interface RawMeta {
  metadata?: { name?: string; namespace?: string };
}

function namespaced(raw: unknown): NamespacedName | null {
  const meta = (raw as RawMeta).metadata;
  return meta?.name && meta.namespace ? { namespace: meta.namespace, name: meta.name } : null;
}

export function slimService(raw: unknown): ServiceObject | null {
  const id = namespaced(raw);
  const selector = (raw as { spec?: { selector?: Record<string, string> } }).spec?.selector;
  return id ? { ...id, selector: selector && Object.keys(selector).length > 0 ? selector : null } : null;
}

export function slimPvc(raw: unknown): PvcObject | null {
  const id = namespaced(raw);
  const pvc = raw as { status?: { phase?: string }; spec?: { volumeName?: string } };
  return id ? { ...id, phase: pvc.status?.phase ?? 'Pending', volumeName: pvc.spec?.volumeName || null } : null;
}

export const slimConfigMap = namespaced;

/** Name and type only: `data` and `stringData` are dropped here, before anything else sees them. */
export function slimSecret(raw: unknown): SecretObject | null {
  const id = namespaced(raw);
  return id ? { ...id, type: (raw as { type?: string }).type ?? 'Opaque' } : null;
}

export function slimController(kind: ControllerObject['kind']): (raw: unknown) => ControllerObject | null {
  return (raw) => {
    const id = namespaced(raw);
    if (!id) return null;
    const refs = (raw as { metadata?: { ownerReferences?: { kind?: string; name?: string; controller?: boolean }[] } }).metadata?.ownerReferences ?? [];
    const owner = refs.find((o) => o.controller) ?? refs[0];
    return { ...id, kind, owner: owner?.kind && owner.name ? { kind: owner.kind, name: owner.name } : null };
  };
}

interface RawIngress {
  spec?: {
    defaultBackend?: { service?: { name?: string } };
    rules?: { host?: string; http?: { paths?: { backend?: { service?: { name?: string } } }[] } }[];
  };
}

export function slimIngress(raw: unknown): IngressObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const spec = (raw as RawIngress).spec;
  const services = new Set<string>();
  if (spec?.defaultBackend?.service?.name) services.add(spec.defaultBackend.service.name);
  for (const rule of spec?.rules ?? []) for (const path of rule.http?.paths ?? []) if (path.backend?.service?.name) services.add(path.backend.service.name);
  return { ...id, services: [...services], hosts: (spec?.rules ?? []).map((r) => r.host ?? '').filter((h) => h !== '') };
}

export function slimPv(raw: unknown): PvObject | null {
  const pv = raw as { metadata?: { name?: string }; spec?: { claimRef?: { namespace?: string; name?: string }; storageClassName?: string }; status?: { phase?: string } };
  if (!pv.metadata?.name) return null;
  const claim = pv.spec?.claimRef;
  return {
    name: pv.metadata.name,
    phase: pv.status?.phase ?? 'Pending',
    claim: claim?.namespace && claim.name ? { namespace: claim.namespace, name: claim.name } : null,
    storageClass: pv.spec?.storageClassName || null,
  };
}

export function slimDeployment(raw: unknown): WorkloadObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const d = raw as { spec?: { replicas?: number }; status?: { availableReplicas?: number } };
  return { ...id, kind: 'Deployment', desired: d.spec?.replicas ?? 1, available: d.status?.availableReplicas ?? 0 };
}

export function slimDaemonSet(raw: unknown): WorkloadObject | null {
  const id = namespaced(raw);
  if (!id) return null;
  const d = raw as { status?: { desiredNumberScheduled?: number; numberAvailable?: number } };
  return { ...id, kind: 'DaemonSet', desired: d.status?.desiredNumberScheduled ?? 0, available: d.status?.numberAvailable ?? 0 };
}

interface RawEvent {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string };
  regarding?: { kind?: string; name?: string };
  type?: string;
  reason?: string;
  message?: string;
  note?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
}

export function slimEvent(raw: unknown): EventObject | null {
  const e = raw as RawEvent;
  const namespace = e.metadata?.namespace;
  const involved = e.involvedObject ?? e.regarding;
  if (!namespace || !involved?.name) return null;
  const lastSeen = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? null;
  return {
    namespace,
    involvedKind: involved.kind ?? '',
    involvedName: involved.name,
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: e.message ?? e.note ?? '',
    count: e.series?.count ?? e.count ?? 1,
    firstSeen: e.firstTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? null,
    lastSeen,
  };
}
