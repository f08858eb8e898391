// The cluster model (`/graph/*`): nodes, edges, a token-budgeted subgraph, one entity.
import * as v from 'valibot';
import { ProblemSeverity, Timestamp } from './common.ts';

export const GRAPH_KINDS = [
  'Namespace', 'Deployment', 'DaemonSet', 'ReplicaSet', 'StatefulSet', 'Job', 'CronJob', 'Pod', 'Image',
  'Service', 'Ingress', 'ConfigMap', 'Secret', 'PersistentVolumeClaim', 'PersistentVolume', 'Node', 'Problem',
  'StorageClass', 'IngressClass', 'ResourceQuota', 'LimitRange', 'HorizontalPodAutoscaler', 'PodDisruptionBudget',
] as const;
export const GraphKind = v.picklist(GRAPH_KINDS);

export const EDGE_TYPES = ['contains', 'owns', 'selects', 'routes-to', 'mounts', 'bound-to', 'uses-config', 'uses-secret', 'scheduled-on', 'runs-image', 'has-problem', 'caused-by', 'uses-class', 'scales'] as const;

/** A workload's (or bare pod's) CRITICAL and HIGH security findings (GET /security/findings has them all). */
export const WorkloadSecurity = v.object({
  critical: v.number(),
  high: v.number(),
  /** Up to five check ids and CVEs among them, the CRITICAL ones first. */
  top: v.array(v.string()),
});
export type WorkloadSecurity = v.InferOutput<typeof WorkloadSecurity>;

export const GraphNode = v.object({
  /** `kind:namespace/name` or `kind:name` (docs/cluster-model.md). */
  id: v.string(),
  kind: GraphKind,
  name: v.string(),
  namespace: v.nullable(v.string()),
  /** A short state: a pod's phase, a Deployment's `2/3 available`, a Secret's type. */
  status: v.string(),
  /** The dashboard view of this node. */
  link: v.string(),
  labels: v.optional(v.record(v.string(), v.string())),
  /** Set on problem nodes and on the pods that have one. */
  problem: v.optional(v.object({ reason: v.string(), severity: ProblemSeverity })),
  /** Set on a workload or bare pod with CRITICAL or HIGH security findings. */
  security: v.optional(WorkloadSecurity),
});
export type GraphNode = v.InferOutput<typeof GraphNode>;

export const GraphEdge = v.object({ from: v.string(), to: v.string(), type: v.picklist(EDGE_TYPES) });
export type GraphEdge = v.InferOutput<typeof GraphEdge>;

const NodeIdParam = v.pipe(v.string(), v.minLength(3), v.maxLength(600), v.regex(/^[a-z]+:\S+$/, 'must be a node id such as pod:shop/checkout-1'));

const wholeNumber = (field: string, min: number, max: number, fallback: string) =>
  v.optional(v.pipe(v.string(), v.regex(/^\d+$/, `${field} must be a whole number`), v.transform(Number), v.minValue(min, `${field} must be at least ${min}`), v.maxValue(max, `${field} must be at most ${max}`)), fallback);

export const SubgraphInput = v.object({
  focus: NodeIdParam,
  hops: wholeNumber('hops', 0, 4, '2'),
  budget: wholeNumber('budget', 200, 100_000, '4000'),
});

export const Subgraph = v.object({
  focus: v.string(),
  hops: v.number(),
  budget: v.number(),
  /** The estimate of what `nodes` and `edges` cost: JSON characters / 4, rounded up. */
  tokens_used: v.number(),
  token_estimate: v.literal('json_chars_div_4'),
  nodes: v.array(v.intersect([GraphNode, v.object({ distance: v.number() })])),
  edges: v.array(GraphEdge),
  truncated: v.boolean(),
  /** What the budget left out: nodes within `hops` not returned, by kind, and the edges that went with them. */
  dropped: v.object({ nodes: v.number(), edges: v.number(), by_kind: v.record(v.string(), v.number()) }),
});

export type Subgraph = v.InferOutput<typeof Subgraph>;

export const EntityInput = v.object({ id: NodeIdParam });

export const Entity = v.object({
  node: GraphNode,
  /** Problems first, then by kind and name; at most 200 (`neighbors_total` counts them all). */
  neighbors: v.array(v.object({ edge: GraphEdge, direction: v.picklist(['out', 'in']), node: GraphNode })),
  neighbors_total: v.number(),
  link: v.string(),
});

export const SearchInput = v.object({
  /** Case-insensitive substring of the name. */
  q: v.optional(v.pipe(v.string(), v.maxLength(200))),
  kind: v.optional(GraphKind),
  /** `key` or `key=value`. */
  label: v.optional(v.pipe(v.string(), v.maxLength(400))),
  namespace: v.optional(v.pipe(v.string(), v.maxLength(63))),
  limit: wholeNumber('limit', 1, 200, '50'),
});

export const SearchResult = v.object({ results: v.array(GraphNode), total: v.number(), truncated: v.boolean() });

/** Layouts one user may keep; saving one more past it is refused (delete one first). */
export const MAX_LAYOUTS_PER_USER = 200;
/** Positions one layout may hold (a subgraph is cut to its token budget long before). */
export const MAX_LAYOUT_NODES = 2000;

const Coordinate = v.pipe(v.number('a coordinate must be a number'), v.minValue(-1_000_000, 'a coordinate is at least -1000000'), v.maxValue(1_000_000, 'a coordinate is at most 1000000'));
export const Positions = v.pipe(
  v.record(v.pipe(v.string(), v.maxLength(600)), v.object({ x: Coordinate, y: Coordinate })),
  v.check((p) => Object.keys(p).length <= MAX_LAYOUT_NODES, `a layout holds at most ${MAX_LAYOUT_NODES} positions`),
);
export const LayoutFocusInput = v.object({ focus: NodeIdParam });
export const LayoutInput = v.object({ focus: NodeIdParam, positions: Positions });
export const Layout = v.object({ focus: v.string(), positions: Positions, updated_at: Timestamp });
export const LayoutDeleted = v.object({ deleted: v.boolean() });
