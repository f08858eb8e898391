import type { Out } from '../../schema/common.ts';
import type { Entity, EntityInput, GraphEdge, GraphNode, SearchInput, SearchResult, Subgraph, SubgraphInput } from '../../schema/graph.ts';
import type { HandlerContext } from '../context.ts';
import { namespaceRefusal } from '../namespaces/scope.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';
import { clusterGraph, type ClusterGraph } from './model.ts';
import { parseNodeId } from '../../domain/cluster/node-id.ts';

/** Nearer the top of this list is kept first when a budget runs out (after problems and distance). */
const KIND_RANK: readonly GraphNode['kind'][] = [
  'Problem', 'Namespace', 'Deployment', 'StatefulSet', 'DaemonSet', 'CronJob', 'Job', 'Service', 'Ingress', 'Pod',
  'ReplicaSet', 'PersistentVolumeClaim', 'PersistentVolume', 'ResourceQuota', 'LimitRange', 'HorizontalPodAutoscaler',
  'PodDisruptionBudget', 'ConfigMap', 'Secret', 'StorageClass', 'IngressClass', 'Node', 'Image',
];
const rankOf = (kind: GraphNode['kind']) => KIND_RANK.indexOf(kind);
const hasProblem = (n: GraphNode) => n.kind === 'Problem' || n.problem !== undefined;
/**
 * Shared by many: every pod on a node, every pod of an image, every pod mounting the
 * service-account ConfigMap. A walk stops at them unless it starts there, or a pod's
 * neighbourhood would be every other pod on its node.
 */
const HUB_KINDS: ReadonlySet<GraphNode['kind']> = new Set(['Namespace', 'Node', 'Image', 'ConfigMap', 'Secret', 'PersistentVolume', 'StorageClass', 'IngressClass', 'ResourceQuota', 'LimitRange']);
export const NEIGHBOR_LIMIT = 200;

/** Tokens are estimated as JSON characters / 4 (rounded up): the usual rule of thumb for English and JSON. */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);

/** The namespace an id names (`pod:shop/x` → shop, `namespace:shop` → shop, a problem → its object's), or null for cluster-scoped kinds. */
export function namespaceOfId(id: string): string | null {
  const parsed = parseNodeId(id);
  if (parsed === null) return null;
  return parsed.kind === 'Namespace' ? parsed.name : parsed.namespace;
}

/** 403 for an id in a namespace Capstan may not show, 404 for one that does not exist. */
function lookUp(graph: ClusterGraph, id: string, ctx: HandlerContext): { node: GraphNode } | { error: AppError } {
  const refused = namespaceRefusal(ctx.cluster, namespaceOfId(id));
  if (refused) return { error: refused };
  const node = graph.nodes.get(id);
  return node ? { node } : { error: { code: 'not_found', message: `no ${id} in the cluster model` } };
}

/** Problems first, then nearer, then by kind and id: the order a reader (or a model) needs them in. */
function importance(a: GraphNode & { distance: number }, b: GraphNode & { distance: number }): number {
  return Number(hasProblem(b)) - Number(hasProblem(a)) || a.distance - b.distance || rankOf(a.kind) - rankOf(b.kind) || a.id.localeCompare(b.id);
}

export function subgraph(input: Out<typeof SubgraphInput>, ctx: HandlerContext): Result<Out<typeof Subgraph>> {
  const graph = clusterGraph(ctx);
  const found = lookUp(graph, input.focus, ctx);
  if ('error' in found) return fail(found.error);

  const distance = new Map<string, number>();
  // A problem brings its causes with it, whatever the hops: each cause (caused-by, followed
  // to the root) and the object it is about, at the distance of the problem that led there.
  // They are not walked from, so the causal chain costs its length, not a neighbourhood.
  const reach = (id: string, hop: number, asCause = false): boolean => {
    if (distance.has(id)) return false;
    distance.set(id, hop);
    if (graph.nodes.get(id)?.kind === 'Problem') {
      for (const e of graph.adjacency.get(id) ?? []) {
        if (e.type === 'caused-by' && e.from === id) reach(e.to, hop, true);
        else if (asCause && e.type === 'has-problem' && e.to === id) reach(e.from, hop);
      }
    }
    return true;
  };
  reach(input.focus, 0);
  let frontier = [input.focus];
  for (let hop = 1; hop <= input.hops && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const id of frontier) {
      const kind = graph.nodes.get(id)?.kind;
      if (id !== input.focus && kind !== undefined && HUB_KINDS.has(kind)) continue;
      for (const e of graph.adjacency.get(id) ?? []) {
        const other = e.from === id ? e.to : e.from;
        if (reach(other, hop)) next.push(other);
      }
    }
    frontier = next;
  }
  const candidates = [...distance].flatMap(([id, d]) => {
    const node = graph.nodes.get(id);
    return node ? [{ ...node, distance: d }] : [];
  });
  const [focus, ...rest] = [candidates.find((c) => c.id === input.focus), ...candidates.filter((c) => c.id !== input.focus).sort(importance)];
  if (!focus) return fail({ code: 'not_found', message: `no ${input.focus} in the cluster model` });

  // Characters of {"nodes":[...],"edges":[...]}, counting a separator per element; the budget in characters is budget × 4.
  const limit = input.budget * 4;
  let chars = JSON.stringify({ nodes: [], edges: [] }).length;
  const kept = new Set<string>();
  const nodes: (GraphNode & { distance: number })[] = [];
  const edges: GraphEdge[] = [];
  for (const candidate of [focus, ...rest]) {
    const joining = (graph.adjacency.get(candidate.id) ?? []).filter((e) => {
      const other = e.from === candidate.id ? e.to : e.from;
      return kept.has(other) || other === candidate.id;
    });
    const cost = JSON.stringify(candidate).length + 1 + joining.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
    if (chars + cost > limit) continue;
    chars += cost;
    kept.add(candidate.id);
    nodes.push(candidate);
    edges.push(...joining);
  }
  const droppedNodes = candidates.filter((c) => !kept.has(c.id));
  const byKind: Record<string, number> = {};
  for (const n of droppedNodes) byKind[n.kind] = (byKind[n.kind] ?? 0) + 1;
  // Edges between candidates, each counted once at its `from` end: from the candidates' own
  // adjacency, so the cost follows the neighbourhood, not the whole cluster's edge list.
  let edgesWithin = 0;
  for (const id of distance.keys()) for (const e of graph.adjacency.get(id) ?? []) if (e.from === id && distance.has(e.to)) edgesWithin++;
  return ok({
    focus: input.focus,
    hops: input.hops,
    budget: input.budget,
    tokens_used: estimateTokens({ nodes, edges }),
    token_estimate: 'json_chars_div_4' as const,
    nodes,
    edges,
    truncated: droppedNodes.length > 0,
    dropped: { nodes: droppedNodes.length, edges: edgesWithin - edges.length, by_kind: byKind },
  });
}

export function entity(input: Out<typeof EntityInput>, ctx: HandlerContext): Result<Out<typeof Entity>> {
  const graph = clusterGraph(ctx);
  const found = lookUp(graph, input.id, ctx);
  if ('error' in found) return fail(found.error);
  const neighbors = (graph.adjacency.get(input.id) ?? []).flatMap((edge) => {
    const out = edge.from === input.id;
    const node = graph.nodes.get(out ? edge.to : edge.from);
    return node ? [{ edge, direction: out ? ('out' as const) : ('in' as const), node }] : [];
  });
  neighbors.sort((a, b) => Number(hasProblem(b.node)) - Number(hasProblem(a.node)) || rankOf(a.node.kind) - rankOf(b.node.kind) || a.node.id.localeCompare(b.node.id));
  return ok({ node: found.node, neighbors: neighbors.slice(0, NEIGHBOR_LIMIT), neighbors_total: neighbors.length, link: found.node.link });
}

export function searchEntities(input: Out<typeof SearchInput>, ctx: HandlerContext): Result<Out<typeof SearchResult>> {
  const needle = input.q?.toLowerCase() ?? '';
  const [labelKey, labelValue] = input.label === undefined ? [undefined, undefined] : input.label.split('=', 2);
  const matches = [...clusterGraph(ctx).nodes.values()].filter(
    (n) =>
      (input.kind === undefined || n.kind === input.kind) &&
      (input.namespace === undefined || n.namespace === input.namespace) &&
      (needle === '' || n.name.toLowerCase().includes(needle)) &&
      (labelKey === undefined || (n.labels !== undefined && labelKey in n.labels && (labelValue === undefined || n.labels[labelKey] === labelValue))),
  );
  matches.sort((a, b) => Number(hasProblem(b)) - Number(hasProblem(a)) || rankOf(a.kind) - rankOf(b.kind) || a.id.localeCompare(b.id));
  return ok({ results: matches.slice(0, input.limit), total: matches.length, truncated: matches.length > input.limit });
}
