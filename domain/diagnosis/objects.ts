// Which cluster-model objects exist in a snapshot, by node id: evidence about a missing
// object gets no link, and `/diagnosis/{id}` answers 404 for an id nothing carries.
import type { ClusterView } from '../cluster/model.ts';
import { nodeId } from '../cluster/node-id.ts';

export function existingNodeIds(view: ClusterView): Set<string> {
  const ids = new Set<string>();
  for (const ns of view.namespaces()) ids.add(nodeId('Namespace', null, ns.name));
  for (const node of view.nodes()) ids.add(nodeId('Node', null, node.name));
  for (const pod of view.pods()) {
    ids.add(nodeId('Pod', pod.namespace, pod.name));
    for (const c of pod.containers) if (c.image) ids.add(nodeId('Image', null, c.image));
  }
  for (const w of view.workloads()) ids.add(nodeId(w.kind, w.namespace, w.name));
  for (const c of view.controllers()) ids.add(nodeId(c.kind, c.namespace, c.name));
  for (const s of view.services()) ids.add(nodeId('Service', s.namespace, s.name));
  for (const i of view.ingresses()) ids.add(nodeId('Ingress', i.namespace, i.name));
  for (const c of view.configMaps()) ids.add(nodeId('ConfigMap', c.namespace, c.name));
  for (const s of view.secrets()) ids.add(nodeId('Secret', s.namespace, s.name));
  for (const p of view.pvcs()) ids.add(nodeId('PersistentVolumeClaim', p.namespace, p.name));
  for (const p of view.pvs()) ids.add(nodeId('PersistentVolume', null, p.name));
  for (const c of view.storageClasses()) ids.add(nodeId('StorageClass', null, c.name));
  for (const c of view.ingressClasses()) ids.add(nodeId('IngressClass', null, c.name));
  for (const q of view.resourceQuotas()) ids.add(nodeId('ResourceQuota', q.namespace, q.name));
  for (const l of view.limitRanges()) ids.add(nodeId('LimitRange', l.namespace, l.name));
  for (const h of view.hpas()) ids.add(nodeId('HorizontalPodAutoscaler', h.namespace, h.name));
  for (const p of view.pdbs()) ids.add(nodeId('PodDisruptionBudget', p.namespace, p.name));
  return ids;
}
