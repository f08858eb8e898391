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
