// The context a copilot run starts from, assembled within a token budget: the administrators'
// standing instructions (AI Context documents marked include-in-AI), the diagnosis of the focus
// (its chain to the root cause, with evidence), the root causes touching the focus's namespace,
// then the cluster model around the focus, nearest and unhealthy first. Tokens are estimated as
// the graph does (characters / 4). What is included is also the set of node ids the model was
// given, against which its citations are checked. The standing instructions are kept apart from
// the rest: they are the administrators' instructions, the rest is data (domain/copilot/fence.ts).
// Pure: the caller has already cut every input to what the caller may see and redacted it.
import type { Diagnosis, DiagnosisDetail, Finding, RootCause } from '../../schema/diagnosis.ts';
import type { Subgraph } from '../../schema/graph.ts';
import { collectNodeIds } from './citations.ts';

export interface StandingDocument {
  title: string;
  body: string;
}

export interface ContextInput {
  /** The node the question is about (`namespace:shop`, `pod:shop/web-1`), or null for the whole visible cluster. */
  focus: string | null;
  /** Namespace-wide (or cluster-wide) diagnosis, already cut to what the caller may see. */
  diagnosis: Diagnosis;
  /** The focus's own diagnosis, when the focus is an object. */
  detail: DiagnosisDetail | null;
  subgraph: Subgraph | null;
  documents: readonly StandingDocument[];
  budgetTokens: number;
}

export interface AssembledContext {
  /** The whole context as assembled (what the prompt audit keeps and the grounding benchmark reads). */
  text: string;
  /** Its standing instructions (the administrators' documents), '' when none: instructions, sent in the system message. */
  standing: string;
  /** The rest: cluster facts, much of it text whoever runs workloads wrote; sent as data, never as instructions. */
  data: string;
  tokens: number;
  /** Every node id the text names: what a citation may verify against. */
  nodeIds: Set<string>;
  /** What did not fit, by section. */
  dropped: { documents: number; root_causes: number; nodes: number };
}

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** At most this share of the budget goes to standing instructions, so cluster facts always fit. */
export const DOCUMENTS_SHARE = 0.25;

/** A finding as the model sees it: one line of JSON, evidence facts with the node each is about. */
function compactFinding(f: Finding): Record<string, unknown> {
  return { id: f.id, code: f.code, severity: f.severity, object: f.object, summary: f.summary, since: f.since, evidence: f.evidence.map((e) => ({ node: e.node_id, fact: e.fact })) };
}

function compactRoot(r: RootCause): Record<string, unknown> {
  return { root: compactFinding(r.finding), also: r.also, effects: r.effects.map((e) => ({ object: e.object, code: e.code, summary: e.summary })) };
}

/** Roots about the focus first (its object, an effect or an evidence line names it), then as the diagnosis ordered them. */
function rootsByRelevance(roots: readonly RootCause[], focus: string | null): RootCause[] {
  if (focus === null) return [...roots];
  const touches = (r: RootCause) => r.finding.object === focus || r.effects.some((e) => e.object === focus) || r.also.includes(focus) || r.finding.evidence.some((e) => e.node_id === focus);
  return [...roots.filter(touches), ...roots.filter((r) => !touches(r))];
}

class Budget {
  readonly lines: string[] = [];
  /** The standing instructions' lines (also in `lines`). */
  readonly standing: string[] = [];
  readonly data: string[] = [];
  used = 0;
  constructor(readonly limit: number) {}
  /** Adds the line when it fits; says whether it did. */
  add(line: string, cap = this.limit, section: 'standing' | 'data' = 'data'): boolean {
    const cost = estimateTokens(line) + 1;
    if (this.used + cost > Math.min(cap, this.limit)) return false;
    this.lines.push(line);
    this[section].push(line);
    this.used += cost;
    return true;
  }
}

export function assembleContext(input: ContextInput): AssembledContext {
  const budget = new Budget(input.budgetTokens);
  const nodeIds = new Set<string>();
  const dropped = { documents: 0, root_causes: 0, nodes: 0 };
  const shown = (value: unknown) => collectNodeIds(value, nodeIds);

  budget.add(`Scope: ${input.focus === null ? 'the whole cluster you may see' : input.focus}. Diagnosis as of ${input.diagnosis.generated_at}.`);

  if (input.documents.length > 0) {
    const cap = budget.used + Math.floor(input.budgetTokens * DOCUMENTS_SHARE);
    budget.add('## Standing instructions from your administrators (AI Context documents)', cap, 'standing');
    for (const doc of input.documents) if (!budget.add(`### ${doc.title}\n${doc.body}`, cap, 'standing')) dropped.documents++;
  }

  if (input.detail !== null && !input.detail.healthy) {
    const d = input.detail;
    const facts = { object: d.object, findings: d.findings.map(compactFinding), chain_to_root: d.chain.slice(1).map(compactFinding), root_cause: d.root_cause?.id ?? null, cause_hidden: d.cause_hidden, causes_elsewhere: d.effects.map((e) => e.object) };
    const line = `## Diagnosis of ${d.object}\n${JSON.stringify(facts)}`;
    if (budget.add(line)) shown(facts);
  } else if (input.detail !== null) {
    const line = `## Diagnosis of ${input.detail.object}\nNo finding: healthy as far as the diagnosis reads.`;
    if (budget.add(line)) nodeIds.add(input.detail.object);
  }

  const roots = rootsByRelevance(input.diagnosis.root_causes, input.focus);
  if (roots.length > 0) budget.add('## Root causes (severity first), each with its evidence and effects');
  for (const root of roots) {
    const compact = compactRoot(root);
    if (budget.add(JSON.stringify(compact))) shown(compact);
    else dropped.root_causes++;
  }
  if (input.diagnosis.hidden_causes.length > 0) budget.add(`${input.diagnosis.hidden_causes.length} problems have causes in namespaces outside your scope; they are not named.`);

  const graph = input.subgraph;
  if (graph !== null && graph.nodes.length > 0) {
    budget.add(`## Cluster model around ${graph.focus} (within ${graph.hops} hops; nearest and unhealthy first)`);
    // The subgraph is already ordered problems and nearer nodes first.
    for (const n of graph.nodes) {
      const compact = { id: n.id, status: n.status, ...(n.problem ? { problem: n.problem.reason } : {}) };
      if (budget.add(JSON.stringify(compact))) nodeIds.add(n.id);
      else dropped.nodes++;
    }
    const edges = graph.edges.filter((e) => nodeIds.has(e.from) && nodeIds.has(e.to)).map((e) => `${e.from} ${e.type} ${e.to}`);
    for (const e of edges) if (!budget.add(e)) break;
    dropped.nodes += graph.dropped.nodes;
  }

  return { text: budget.lines.join('\n'), standing: budget.standing.join('\n'), data: budget.data.join('\n'), tokens: budget.used, nodeIds, dropped };
}
