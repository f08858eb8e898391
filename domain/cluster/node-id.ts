// Cluster-model node ids: `kind:namespace/name` or `kind:name`, readable and stable
// (docs/cluster-model.md). The graph, the diagnosis and every deep link use these.
import type { GraphNode } from '../../schema/graph.ts';

export type NodeKind = GraphNode['kind'];

export const KIND_PREFIX: Record<NodeKind, string> = {
  Namespace: 'namespace',
  Deployment: 'deployment',
  DaemonSet: 'daemonset',
  ReplicaSet: 'replicaset',
  StatefulSet: 'statefulset',
  Job: 'job',
  CronJob: 'cronjob',
  Pod: 'pod',
  Image: 'image',
  Service: 'service',
  Ingress: 'ingress',
  ConfigMap: 'configmap',
  Secret: 'secret',
  PersistentVolumeClaim: 'pvc',
  PersistentVolume: 'pv',
  Node: 'node',
  Problem: 'problem',
  StorageClass: 'storageclass',
  IngressClass: 'ingressclass',
  ResourceQuota: 'resourcequota',
  LimitRange: 'limitrange',
  HorizontalPodAutoscaler: 'hpa',
  PodDisruptionBudget: 'pdb',
};

/** Kinds with no namespace: their ids are `kind:name`. */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<NodeKind> = new Set(['Namespace', 'Node', 'PersistentVolume', 'Image', 'StorageClass', 'IngressClass']);

/** `pod:shop/checkout-7d9f-x2`, `namespace:shop`, `node:kwok-node-1`, `image:ghcr.io/acme/app:1.2`, `resourcequota:shop/pods`. */
export function nodeId(kind: NodeKind, namespace: string | null, name: string): string {
  return `${KIND_PREFIX[kind]}:${namespace === null ? name : `${namespace}/${name}`}`;
}

export const isNodeKind = (kind: string): kind is NodeKind => kind in KIND_PREFIX;

const KIND_OF_PREFIX: ReadonlyMap<string, NodeKind> = new Map(Object.entries(KIND_PREFIX).map(([kind, prefix]) => [prefix, kind as NodeKind]));

/**
 * The parts of a node id, or null for one no kind claims. A problem node's id is `problem:`
 * followed by its finding's id (`problem:pod:shop/x#CrashLoopBackOff`): its namespace is its
 * object's, and its name is the rest after `problem:`.
 */
export function parseNodeId(id: string): { kind: NodeKind; namespace: string | null; name: string } | null {
  const colon = id.indexOf(':');
  if (colon <= 0) return null;
  const kind = KIND_OF_PREFIX.get(id.slice(0, colon));
  if (kind === undefined) return null;
  const rest = id.slice(colon + 1);
  if (kind === 'Problem') {
    const object = parseNodeId(rest.slice(0, rest.includes('#') ? rest.lastIndexOf('#') : rest.length));
    return { kind, namespace: object?.namespace ?? null, name: rest };
  }
  if (CLUSTER_SCOPED_KINDS.has(kind)) return { kind, namespace: null, name: rest };
  const slash = rest.indexOf('/');
  return slash > 0 ? { kind, namespace: rest.slice(0, slash), name: rest.slice(slash + 1) } : null;
}

/**
 * The dashboard view of a node: its own screen where one exists (a namespace, a pod's
 * incident story), else the entity view. The graph's `link` and the diagnosis' evidence
 * links both come from here, so they always agree.
 */
export function linkOf(id: string): string {
  const parsed = parseNodeId(id);
  if (parsed === null) return `/graph/${encodeURIComponent(id)}`;
  const { kind, namespace, name } = parsed;
  if (kind === 'Namespace') return `/namespaces/${name}`;
  if (kind === 'Pod' && namespace !== null) return `/namespaces/${namespace}/pods/${name}`;
  // A problem opens its object's view: a pod's incident story, another object's entity view.
  if (kind === 'Problem') {
    const object = parseNodeId(name.slice(0, name.lastIndexOf('#')));
    if (object?.kind === 'Pod' && object.namespace !== null) return `/incidents/${object.namespace}/${object.name}`;
    return object === null ? `/graph/${encodeURIComponent(id)}` : linkOf(name.slice(0, name.lastIndexOf('#')));
  }
  return `/graph/${encodeURIComponent(id)}`;
}
