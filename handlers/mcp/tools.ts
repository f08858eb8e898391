// The MCP tool surface: one table, served by the MCP protocol endpoint and the REST pair
// alike. Every tool reads; none writes, none execs, ever. Each reuses the handler behind the
// matching REST route, so visibility, redaction and errors are the same everywhere.
import * as v from 'valibot';
import { NamespaceName } from '../../schema/common.ts';
import { inNamespace } from '../../domain/cluster/by-namespace.ts';
import { GraphKind } from '../../schema/graph.ts';
import type { HandlerContext } from '../context.ts';
import { entity, searchEntities, subgraph } from '../graph/queries.ts';
import { nodeId } from '../graph/model.ts';
import { overview } from '../health/overview.ts';
import { listIncidents } from '../incidents/list.ts';
import { diagnosis, diagnosisDetail } from '../diagnosis/diagnose.ts';
import { listNamespaces } from '../namespaces/list.ts';
import { listPods } from '../namespaces/pods.ts';
import { namespaceRefusal } from '../namespaces/scope.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import { readContainerLog } from '../logs/read.ts';
import { fail, ok, type Result } from '../result.ts';
import { findingsSummary, FindingsToolInput, FINDINGS_TOOL_MAX_LIMIT } from '../security/findings-summary.ts';

export interface McpTool {
  name: string;
  description: string;
  input: v.GenericSchema;
  /** The argument naming the namespace the tool reads: callTool refuses a hidden one before the tool runs. */
  namespaceArg: 'namespace' | null;
  run(input: unknown, ctx: HandlerContext): Result<unknown> | Promise<Result<unknown>>;
}

type Run<S extends v.GenericSchema> = (input: v.InferOutput<S>, ctx: HandlerContext) => Result<unknown> | Promise<Result<unknown>>;

function tool<S extends v.GenericSchema>(name: string, description: string, input: S, run: Run<S>): McpTool {
  // The caller (callTool) has parsed `raw` with `input` first.
  return { name, description, input, namespaceArg: null, run: (raw, ctx) => run(raw, ctx) };
}

/** A tool whose `namespace` argument (required or optional) is checked against what the caller may see, as a route's namespace parameter is. */
function namespacedTool<S extends v.GenericSchema<unknown, { namespace?: string }>>(
  name: string,
  description: string,
  input: S,
  run: Run<S>,
): McpTool {
  return { ...tool(name, description, input, run), namespaceArg: 'namespace' };
}

const Name = v.pipe(v.string(), v.regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes name'), v.maxLength(253));
const NodeRef = v.pipe(v.string(), v.regex(/^[a-z]+:\S+$/, 'id must be a node id such as pod:shop/checkout-1'), v.maxLength(600));
const NamespaceOnly = v.object({ namespace: NamespaceName });

export const MCP_TOOLS: readonly McpTool[] = [
  tool('list_namespaces', 'Namespaces Capstan may show (system namespaces and those outside tenantNamespaces are never listed).', v.object({}), (_i, ctx) => listNamespaces({}, ctx)),
  namespacedTool('list_pods', "A namespace's pods: phase, readiness, restarts, node, owner workload, requests and limits.", NamespaceOnly, (i, ctx) => listPods(i, ctx)),
  namespacedTool('list_workloads', "A namespace's Deployments, DaemonSets, StatefulSets, ReplicaSets, Jobs and CronJobs.", NamespaceOnly, (i, ctx) => {
    const rollouts = inNamespace(ctx.cluster.workloads(), i.namespace).map((w) => ({ kind: w.kind, name: w.name, desired: w.desired, available: w.available, owner: null }));
    const controllers = inNamespace(ctx.cluster.controllers(), i.namespace).map((c) => ({ kind: c.kind, name: c.name, owner: c.owner }));
    return ok({ namespace: i.namespace, workloads: [...rollouts, ...controllers].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)) });
  }),
  namespacedTool('list_services', "A namespace's Services and the pod labels they select.", NamespaceOnly, (i, ctx) => {
    return ok({ namespace: i.namespace, services: inNamespace(ctx.cluster.services(), i.namespace).map((s) => ({ name: s.name, selector: s.selector })).sort((a, b) => a.name.localeCompare(b.name)) });
  }),
  tool('list_nodes', 'The cluster nodes, ready or not, with their labels.', v.object({}), (_i, ctx) =>
    ok({ nodes: ctx.cluster.nodes().map((n) => ({ name: n.name, ready: n.ready, created_at: n.createdAt, labels: n.labels })).sort((a, b) => a.name.localeCompare(b.name)) }),
  ),
  namespacedTool(
    'get_object',
    'One object by kind, namespace and name, with its neighbours in the cluster model (Secrets: name and type only, never data).',
    v.object({ kind: GraphKind, namespace: v.optional(NamespaceName), name: v.pipe(v.string(), v.minLength(1), v.maxLength(500)) }),
    (i, ctx) => entity({ id: nodeId(i.kind, i.namespace ?? null, i.name) }, ctx),
  ),
  namespacedTool('get_events', "A namespace's recent events, newest first (messages redacted); optionally only those about one object.", v.object({ namespace: NamespaceName, name: v.optional(Name), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200)), 50) }), (i, ctx) => {
    const events = ctx.cluster
      .events()
      .filter((e) => e.namespace === i.namespace && (i.name === undefined || e.involvedName === i.name))
      .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
      .slice(0, i.limit)
      .map((e) => ({ object: `${e.involvedKind}/${e.involvedName}`, type: e.type, reason: e.reason, message: redactText(e.message), count: e.count, last_seen: e.lastSeen }));
    return ok({ namespace: i.namespace, events });
  }),
  namespacedTool(
    'get_logs',
    "The tail of a container's log, redacted (bearer tokens, passwords, keys...); `previous` reads the instance before the last restart.",
    v.object({ namespace: NamespaceName, pod: Name, container: v.optional(Name), previous: v.optional(v.boolean(), false), lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 100) }),
    async (i, ctx) => {
      // The logs route's own read: the same container checks, byte cap and redaction.
      const read = await readContainerLog({ namespace: i.namespace, pod: i.pod, container: i.container, previous: i.previous, tail_lines: i.lines }, ctx);
      if (!read.ok) return read;
      const { namespace, pod, container, previous, lines } = read.value;
      return ok({ namespace, pod, container, previous, log: lines.join('\n') });
    },
  ),
  namespacedTool(
    'diagnose',
    'Root causes, not symptoms: each broken thing chained to what causes it, with evidence (deep links) and the effects it explains, critical first; history as notes. With `namespace`, the root causes touching it; with `id` (a node id such as pod:shop/checkout-1), why that object is unhealthy: its findings, the chain to the root, what it causes.',
    v.object({ namespace: v.optional(NamespaceName), id: v.optional(NodeRef) }),
    (i, ctx) => {
      if (i.id !== undefined && i.namespace !== undefined) return fail({ code: 'invalid_input', field: 'arguments.id', message: 'give namespace or id, not both' });
      return i.id === undefined ? diagnosis(i.namespace === undefined ? {} : { namespace: i.namespace }, ctx) : diagnosisDetail({ id: i.id }, ctx);
    },
  ),
  namespacedTool(
    'get_health',
    "Health verdicts with their reasons and counts, and the root causes behind them (from the diagnosis); with `namespace`, that namespace's verdict, its root causes and its current incidents.",
    v.object({ namespace: v.optional(NamespaceName) }),
    (i, ctx) => {
      const all = overview({}, ctx);
      if (!all.ok) return all;
      const diagnosed = diagnosis(i.namespace === undefined ? {} : { namespace: i.namespace }, ctx);
      if (!diagnosed.ok) return diagnosed;
      const { root_causes, hidden_causes, generated_at } = diagnosed.value;
      if (i.namespace === undefined) return ok({ namespaces: all.value.namespaces, root_causes, hidden_causes, cached_at: all.value.cached_at, generated_at });
      const health = all.value.namespaces.find((n) => n.namespace === i.namespace);
      if (!health) return fail({ code: 'not_found', message: `no namespace ${i.namespace}` });
      const incidents = listIncidents({ namespace: i.namespace }, ctx);
      return ok({ health, root_causes, hidden_causes, incidents: incidents.ok ? incidents.value.incidents : [], cached_at: all.value.cached_at, generated_at });
    },
  ),
  namespacedTool(
    'search_entities',
    'Find nodes of the cluster model by name substring, kind, namespace or label (key or key=value); problems first.',
    v.object({ query: v.optional(v.pipe(v.string(), v.maxLength(200))), kind: v.optional(GraphKind), namespace: v.optional(NamespaceName), label: v.optional(v.pipe(v.string(), v.maxLength(400))), limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200)), 50) }),
    (i, ctx) => searchEntities({ ...(i.query !== undefined ? { q: i.query } : {}), ...(i.kind ? { kind: i.kind } : {}), ...(i.namespace ? { namespace: i.namespace } : {}), ...(i.label ? { label: i.label } : {}), limit: i.limit }, ctx),
  ),
  tool('get_entity', 'One node of the cluster model by id (e.g. pod:shop/checkout-1), its neighbours and its dashboard link.', v.object({ id: NodeRef }), (i, ctx) => entity(i, ctx)),
  tool('get_neighbors', 'The nodes directly connected to one node, with the edge types (owns, selects, mounts, scheduled-on, has-problem...).', v.object({ id: NodeRef }), (i, ctx) => {
    const found = entity(i, ctx);
    return found.ok ? ok({ id: i.id, neighbors: found.value.neighbors, neighbors_total: found.value.neighbors_total }) : found;
  }),
  tool(
    'get_subgraph',
    'The cluster model around a node within `hops`, cut to a token budget (JSON characters / 4): problems and nearer nodes first, with what was dropped.',
    v.object({ focus: NodeRef, hops: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4)), 2), budget: v.optional(v.pipe(v.number(), v.integer(), v.minValue(200), v.maxValue(100_000)), 4000) }),
    (i, ctx) => subgraph(i, ctx),
  ),
  namespacedTool(
    'get_findings',
    `Security findings, as GET /security/findings answers them: misconfigurations from Capstan's built-in checks (Pod Security Standards, workload hygiene) and trivy-operator's reports, and vulnerabilities from its VulnerabilityReports. The worst \`limit\` (default 20, at most ${FINDINGS_TOOL_MAX_LIMIT}) matching findings with their remediation, every match counted per kind and severity, and the posture grade; \`namespace\`, \`severity\`, \`kind\` (vuln or misconfig) narrow it.`,
    FindingsToolInput,
    (i, ctx) => findingsSummary(i, ctx),
  ),
];

export const MCP_TOOL_NAMES: ReadonlySet<string> = new Set(MCP_TOOLS.map((t) => t.name));

/** The tools AI Guardrails deny right now: gone from every list, refused if called. */
export async function deniedTools(ctx: HandlerContext): Promise<ReadonlySet<string>> {
  return new Set((await ctx.runtimeSettings.get('ai_guardrails')).denied_tools);
}

/** The tools a caller may be offered now (the deny list applied). */
export async function offeredTools(ctx: HandlerContext): Promise<readonly McpTool[]> {
  const denied = await deniedTools(ctx);
  return denied.size === 0 ? MCP_TOOLS : MCP_TOOLS.filter((t) => !denied.has(t.name));
}

/** Validates the arguments against the tool's schema, refuses a hidden namespace argument, then runs it; every failure is a typed error. */
export async function callTool(name: string, args: unknown, ctx: HandlerContext): Promise<Result<unknown>> {
  const found = MCP_TOOLS.find((t) => t.name === name);
  if (!found) return fail({ code: 'not_found', message: `no tool ${name}` });
  // A tool denied in AI Guardrails is refused wherever it is called: the protocol, the REST pair, the copilot.
  if ((await deniedTools(ctx)).has(name)) return fail({ code: 'forbidden', message: `tool ${name} is denied by AI Guardrails` });
  const parsed = v.safeParse(found.input, args ?? {});
  if (!parsed.success) {
    const field = v.getDotPath(parsed.issues[0]) ?? 'arguments';
    return fail({ code: 'invalid_input', field: `arguments.${field}`, message: `${field}: ${parsed.issues[0].message}` });
  }
  if (found.namespaceArg !== null) {
    const named: unknown = (parsed.output as Record<string, unknown>)[found.namespaceArg];
    const refused = namespaceRefusal(ctx.cluster, typeof named === 'string' ? named : null);
    if (refused) return fail(refused);
  }
  try {
    return await found.run(parsed.output, ctx);
  } catch (err) {
    // A panic inside a tool is that call's error, never the server's.
    return fail({ code: 'internal', message: `tool ${name} failed: ${err instanceof Error ? err.message : String(err)}` });
  }
}
