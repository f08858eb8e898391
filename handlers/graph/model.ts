// The cluster model: what exists, how it is connected and what is wrong, assembled per
// request from the informer cache (no graph store). Only namespaces Capstan may show take
// part; Secrets are names and types, never data; label values and problem details pass
// through the redaction package. Node ids are readable and stable: docs/cluster-model.md.
import type { GraphEdge, GraphNode } from '../../schema/graph.ts';
import type { HandlerContext } from '../context.ts';
import { redactRecord, redactText } from '../../domain/redaction/redact.ts';
import { isNodeKind, linkOf, nodeId } from '../../domain/cluster/node-id.ts';
import { workloadSecurity } from '../../domain/security/workload-security.ts';
import { visibleFindingsFor } from '../security/visible-findings.ts';

export interface ClusterGraph {
  nodes: ReadonlyMap<string, GraphNode>;
  edges: readonly GraphEdge[];
  /** Every edge touching a node, both directions. */
  adjacency: ReadonlyMap<string, readonly GraphEdge[]>;
}

export { nodeId };

/** A finding's node in the model: `problem:` and the finding's id (`problem:pod:shop/x#CrashLoopBackOff`). */
export const problemId = (findingId: string): string => `problem:${findingId}`;

const CONTROLLER_KINDS = new Set<string>(['Deployment', 'DaemonSet', 'ReplicaSet', 'StatefulSet', 'Job', 'CronJob']);
const isGraphKind = isNodeKind;

export function buildGraph(ctx: HandlerContext): ClusterGraph {
  // Already cut to the visible namespaces (PVs bound to hidden claims included).
  const cluster = ctx.cluster;
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const add = (kind: GraphNode['kind'], namespace: string | null, name: string, status: string, extra: Partial<GraphNode> = {}): string => {
    const id = nodeId(kind, namespace, name);
    if (!nodes.has(id)) nodes.set(id, { id, kind, name, namespace, status, link: linkOf(id), ...extra });
    return id;
  };
  const link = (from: string, to: string, type: GraphEdge['type']) => {
    if (nodes.has(from) && nodes.has(to)) edges.push({ from, to, type });
  };

  for (const ns of cluster.namespaces()) add('Namespace', null, ns.name, ns.phase);
  const contained = (namespace: string, id: string) => link(nodeId('Namespace', null, namespace), id, 'contains');

  for (const node of cluster.nodes()) add('Node', null, node.name, node.ready ? 'Ready' : 'NotReady');
  for (const w of cluster.workloads()) {
    contained(w.namespace, add(w.kind, w.namespace, w.name, `${w.available}/${w.desired} available`));
  }
  for (const c of cluster.controllers()) add(c.kind, c.namespace, c.name, c.kind);
  for (const c of cluster.controllers()) {
    const id = nodeId(c.kind, c.namespace, c.name);
    if (c.owner && isGraphKind(c.owner.kind) && CONTROLLER_KINDS.has(c.owner.kind)) link(nodeId(c.owner.kind, c.namespace, c.owner.name), id, 'owns');
    else contained(c.namespace, id);
  }
  for (const s of cluster.configMaps()) contained(s.namespace, add('ConfigMap', s.namespace, s.name, 'ConfigMap'));
  for (const s of cluster.secrets()) contained(s.namespace, add('Secret', s.namespace, s.name, 'Secret'));
  for (const pvc of cluster.pvcs()) contained(pvc.namespace, add('PersistentVolumeClaim', pvc.namespace, pvc.name, pvc.phase));
  for (const pv of cluster.pvs()) {
    const id = add('PersistentVolume', null, pv.name, pv.phase);
    if (pv.claim) link(nodeId('PersistentVolumeClaim', pv.claim.namespace, pv.claim.name), id, 'bound-to');
  }

  const pods = cluster.pods();
  for (const pod of pods) {
    const id = add('Pod', pod.namespace, pod.name, pod.phase, { labels: redactRecord(pod.labels) });
    if (pod.owner && isGraphKind(pod.owner.kind) && CONTROLLER_KINDS.has(pod.owner.kind)) link(nodeId(pod.owner.kind, pod.namespace, pod.owner.name), id, 'owns');
    else contained(pod.namespace, id);
    if (pod.nodeName) link(id, nodeId('Node', null, pod.nodeName), 'scheduled-on');
    for (const c of pod.containers) if (c.image) link(id, add('Image', null, c.image, 'image'), 'runs-image');
    for (const name of pod.refs.configMaps) link(id, nodeId('ConfigMap', pod.namespace, name), 'uses-config');
    for (const name of pod.refs.secrets) link(id, nodeId('Secret', pod.namespace, name), 'uses-secret');
    for (const name of pod.refs.pvcs) link(id, nodeId('PersistentVolumeClaim', pod.namespace, name), 'mounts');
  }

  const podsByNamespace = new Map<string, (typeof pods)[number][]>();
  for (const pod of pods) {
    const list = podsByNamespace.get(pod.namespace);
    if (list) list.push(pod);
    else podsByNamespace.set(pod.namespace, [pod]);
  }
  for (const svc of cluster.services()) {
    const id = add('Service', svc.namespace, svc.name, svc.selector ? 'selector' : 'no selector');
    contained(svc.namespace, id);
    const selector = svc.selector;
    if (!selector) continue;
    for (const pod of podsByNamespace.get(svc.namespace) ?? []) {
      if (Object.entries(selector).every(([k, v]) => pod.labels[k] === v)) link(id, nodeId('Pod', pod.namespace, pod.name), 'selects');
    }
  }
  for (const ing of cluster.ingresses()) {
    const id = add('Ingress', ing.namespace, ing.name, ing.hosts.join(', ') || 'no host');
    contained(ing.namespace, id);
    for (const svc of ing.services) link(id, nodeId('Service', ing.namespace, svc), 'routes-to');
  }

  for (const sc of cluster.storageClasses()) add('StorageClass', null, sc.name, sc.provisioner);
  for (const ic of cluster.ingressClasses()) add('IngressClass', null, ic.name, ic.controller);
  for (const pvc of cluster.pvcs()) if (pvc.storageClass) link(nodeId('PersistentVolumeClaim', pvc.namespace, pvc.name), nodeId('StorageClass', null, pvc.storageClass), 'uses-class');
  for (const pv of cluster.pvs()) if (pv.storageClass) link(nodeId('PersistentVolume', null, pv.name), nodeId('StorageClass', null, pv.storageClass), 'uses-class');
  for (const ing of cluster.ingresses()) {
    const id = nodeId('Ingress', ing.namespace, ing.name);
    if (ing.ingressClassName) link(id, nodeId('IngressClass', null, ing.ingressClassName), 'uses-class');
    for (const secret of ing.tlsSecrets) link(id, nodeId('Secret', ing.namespace, secret), 'uses-secret');
  }
  for (const q of cluster.resourceQuotas()) contained(q.namespace, add('ResourceQuota', q.namespace, q.name, Object.entries(q.hard).map(([k, hard]) => `${k} ${q.used[k] ?? '0'}/${hard}`).join(', ') || 'no limits'));
  for (const l of cluster.limitRanges()) contained(l.namespace, add('LimitRange', l.namespace, l.name, 'LimitRange'));
  for (const hpa of cluster.hpas()) {
    const id = add('HorizontalPodAutoscaler', hpa.namespace, hpa.name, `${hpa.currentReplicas} (${hpa.minReplicas}–${hpa.maxReplicas})`);
    contained(hpa.namespace, id);
    if (isGraphKind(hpa.target.kind)) link(id, nodeId(hpa.target.kind, hpa.namespace, hpa.target.name), 'scales');
  }
  for (const pdb of cluster.pdbs()) {
    const id = add('PodDisruptionBudget', pdb.namespace, pdb.name, `${pdb.disruptionsAllowed} disruption(s) allowed`);
    contained(pdb.namespace, id);
    const selector = Object.entries(pdb.selector);
    if (selector.length === 0) continue;
    for (const pod of podsByNamespace.get(pdb.namespace) ?? []) {
      if (selector.every(([k, v]) => pod.labels[k] === v)) link(id, nodeId('Pod', pod.namespace, pod.name), 'selects');
    }
  }

  // Each workload (and bare pod) with CRITICAL or HIGH security findings says so, from the
  // same visible findings GET /security/findings serves.
  const { vulns, misconfigs } = visibleFindingsFor(ctx);
  for (const [id, security] of workloadSecurity(vulns, misconfigs)) {
    const node = nodes.get(id);
    if (node) nodes.set(id, { ...node, security });
  }

  // The diagnosis' findings as problem nodes (the same whole-cluster computation as
  // GET /diagnosis, handed out already cut to what the caller may see; history stays out):
  // each hangs off its object (has-problem) and points at the finding that causes it (caused-by).
  const problems = ctx.diagnosis.problems();
  for (const [object, findings] of problems.byObject) {
    const objectNode = nodes.get(object);
    const first = findings[0];
    if (objectNode && first) nodes.set(object, { ...objectNode, problem: { reason: first.code, severity: first.severity } });
    for (const f of findings) {
      const id = problemId(f.id);
      nodes.set(id, { id, kind: 'Problem', name: f.id, namespace: f.namespace, status: redactText(f.summary), link: linkOf(id), problem: { reason: f.code, severity: f.severity } });
      link(object, id, 'has-problem');
    }
  }
  for (const { from, to } of problems.causes) link(problemId(from), problemId(to), 'caused-by');

  const adjacency = new Map<string, GraphEdge[]>();
  for (const e of edges) {
    for (const end of [e.from, e.to]) {
      const list = adjacency.get(end);
      if (list) list.push(e);
      else adjacency.set(end, [e]);
    }
  }
  return { nodes, edges, adjacency };
}

/** A model built from sources that have since changed is still served this long (the staleness it always had). */
export const GRAPH_TTL_MS = 2000;

/**
 * The model is rebuilt only when something it is built from changed: an informer list (the
 * cache hands out a new array on a change), the diagnosis, the security posture or the
 * scanner reports (each recomputed at most every 5 s),
 * and at most once per GRAPH_TTL_MS. Between changes every request walks the same model.
 */
export function clusterGraph(ctx: HandlerContext): ClusterGraph {
  const c = ctx.cluster;
  const sources = [
    c.namespaces(), c.nodes(), c.workloads(), c.controllers(), c.configMaps(), c.secrets(), c.pvcs(), c.pvs(), c.pods(), c.services(), c.ingresses(),
    c.storageClasses(), c.ingressClasses(), c.resourceQuotas(), c.limitRanges(), c.hpas(), c.pdbs(), ctx.diagnosis.problems(), ctx.posture.findings(), ctx.scannerReports.vulns(),
  ];
  return ctx.memo.derive(`graph:${ctx.settings.tenantNamespaces.join(',')}`, sources, GRAPH_TTL_MS, () => buildGraph(ctx));
}
