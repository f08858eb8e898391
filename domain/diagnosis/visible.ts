// The whole-cluster diagnosis cut to what one caller may see (docs/diagnosis.md
// "Visibility"): a root cause in a hidden namespace is not shown, and an effect the caller may
// see whose root is hidden says only that its cause lies outside what they may see.
import { parseNodeId } from '../cluster/node-id.ts';
import type { ProblemSeverity } from '../../schema/common.ts';
import type { Diagnosis, DiagnosisDetail, Finding, RootCause } from '../../schema/diagnosis.ts';
import type { ClusterDiagnosis } from './engine.ts';

/** Whether the caller may see a namespace (ScopedClusterView.inScope). */
export type InScope = (namespace: string) => boolean;

/** The namespace that decides whether an object is visible: its own, a bound volume's claim's, or null (visible to all). */
export function visibilityNamespace(d: ClusterDiagnosis, id: string): string | null {
  const parsed = parseNodeId(id);
  // An id of a kind the model does not know is read the safe way: `kind:namespace/name`.
  if (parsed === null) return /^[a-z]+:([^/]+)\//.exec(id)?.[1] ?? null;
  return parsed.namespace ?? d.volumeClaimNamespace.get(id) ?? null;
}

export function isVisible(d: ClusterDiagnosis, id: string, inScope: InScope): boolean {
  const namespace = visibilityNamespace(d, id);
  return namespace === null || inScope(namespace);
}

/** A finding as this caller may read it: no evidence about hidden objects, no link to a hidden cause. */
function shown(d: ClusterDiagnosis, f: Finding, inScope: InScope): Finding {
  const evidence = f.evidence.filter((e) => isVisible(d, e.node_id, inScope));
  const cause = f.caused_by === null ? null : d.findings.get(f.caused_by);
  const causeVisible = cause !== undefined && cause !== null && isVisible(d, cause.object, inScope);
  if (evidence.length === f.evidence.length && (f.caused_by === null || causeVisible)) return f;
  return { ...f, evidence, caused_by: causeVisible ? f.caused_by : null };
}

/**
 * `GET /diagnosis`: visible roots (with their visible effects), notes, and the visible effects
 * of hidden roots. `namespace` keeps roots whose object or some visible effect lies in it.
 */
export function diagnosisFor(d: ClusterDiagnosis, inScope: InScope, namespace: string | null): Diagnosis {
  // A volume bound to a claim belongs, for this filter as for visibility, to its claim's namespace.
  const inNamespace = (f: Finding) => namespace === null || (f.namespace ?? visibilityNamespace(d, f.object)) === namespace;
  const counted = new Set<string>();
  const root_causes: RootCause[] = [];
  const hidden_causes: Diagnosis['hidden_causes'] = [];
  for (const root of d.roots) {
    const effects = root.effects.filter((e) => isVisible(d, e.object, inScope));
    if (!isVisible(d, root.finding.object, inScope)) {
      for (const effect of effects.filter(inNamespace)) {
        hidden_causes.push({ effect: shown(d, effect, inScope), reason: 'cause_outside_visible_namespaces' });
        counted.add(effect.id);
      }
      continue;
    }
    if (!inNamespace(root.finding) && !effects.some(inNamespace)) continue;
    const also = root.also.filter((id) => isVisible(d, id, inScope));
    root_causes.push({ finding: shown(d, root.finding, inScope), effects: effects.map((e) => shown(d, e, inScope)), also });
    for (const f of [root.finding, ...effects]) counted.add(f.id);
    for (const id of also) counted.add(`${id}#${root.finding.code}`);
  }
  const notes = d.notes.filter((f) => isVisible(d, f.object, inScope) && inNamespace(f)).map((f) => shown(d, f, inScope));
  for (const f of notes) counted.add(f.id);
  return { namespace, root_causes, notes, hidden_causes, silent: [...d.silent], total_findings: counted.size, generated_at: d.generatedAt };
}

/**
 * `GET /diagnosis/{id}` for an object the caller may see (the handler refuses others): its
 * findings, the chain from its first finding up to its root (cut where it leaves what the
 * caller may see: `cause_hidden`), and what its problems cause elsewhere.
 */
export function detailFor(d: ClusterDiagnosis, inScope: InScope, id: string): DiagnosisDetail {
  const own = d.byObject.get(id) ?? [];
  const findings = own.filter((f) => f.severity !== 'info');
  const notes = own.filter((f) => f.severity === 'info').map((f) => shown(d, f, inScope));
  const chain: Finding[] = [];
  let causeHidden = false;
  let complete = false;
  for (let at: Finding | undefined = findings[0]; at; ) {
    chain.push(at);
    if (at.caused_by === null) {
      complete = true;
      break;
    }
    const next = d.findings.get(at.caused_by);
    if (next === undefined || !isVisible(d, next.object, inScope)) {
      causeHidden = next !== undefined;
      break;
    }
    at = next;
  }
  const ownIds = new Set(findings.map((f) => f.id));
  const seen = new Set<string>();
  const effects: Finding[] = [];
  // Breadth first over every own finding at once: nearest first across all of them.
  let frontier = findings.map((f) => f.id);
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const fid of frontier) {
      for (const child of d.explains.get(fid) ?? []) {
        if (ownIds.has(child.id) || seen.has(child.id)) continue;
        seen.add(child.id);
        next.push(child.id);
        if (isVisible(d, child.object, inScope)) effects.push(child);
      }
    }
    frontier = next;
  }
  const root = complete ? chain.at(-1) : undefined;
  return {
    object: id,
    healthy: findings.length === 0,
    findings: findings.map((f) => shown(d, f, inScope)),
    chain: chain.map((f) => shown(d, f, inScope)),
    root_cause: root === undefined ? null : shown(d, root, inScope),
    cause_hidden: causeHidden,
    effects: effects.map((f) => shown(d, f, inScope)),
    notes,
    generated_at: d.generatedAt,
  };
}

/** A finding named by reference: an incident's `root_cause`. */
export interface FindingRef {
  code: string;
  summary: string;
  node_id: string;
}

/** What is wrong with one object now, as an incident projects it (domain/incidents/detect.ts). */
export interface ObjectProblem {
  /** Its own first critical or warning finding in the tie order, as the caller may read it. */
  finding: Finding & { severity: ProblemSeverity };
  /**
   * The root of that finding's chain: another object's finding, or the finding itself when it
   * is the root; null when the chain leaves what the caller may see (the cause is never named).
   */
  root: FindingRef | null;
}

/** The object's problem now, or null when it has no critical or warning finding (history is not a problem). */
export function problemOf(d: ClusterDiagnosis, inScope: InScope, objectId: string): ObjectProblem | null {
  const first = (d.byObject.get(objectId) ?? []).find((f): f is Finding & { severity: ProblemSeverity } => f.severity !== 'info');
  if (first === undefined) return null;
  let at: Finding = first;
  let root: FindingRef | null = null;
  for (;;) {
    if (at.caused_by === null) {
      root = { code: at.code, summary: at.summary, node_id: at.object };
      break;
    }
    const next = d.findings.get(at.caused_by);
    if (next === undefined || !isVisible(d, next.object, inScope)) break;
    at = next;
  }
  return { finding: { ...shown(d, first, inScope), severity: first.severity }, root };
}

/** The diagnosis' problems as the cluster model shows them: visible findings that are not history (each as the caller may read it), and the links between them. */
export interface VisibleProblems {
  /** Each object's visible critical and warning findings, in the tie order (objects in the diagnosis' order). */
  byObject: ReadonlyMap<string, readonly (Finding & { severity: ProblemSeverity })[]>;
  /** `caused_by` links whose both ends are shown, in the diagnosis' finding order. */
  causes: readonly { from: string; to: string }[];
}

export function problemsFor(d: ClusterDiagnosis, inScope: InScope): VisibleProblems {
  const problem = (f: Finding | undefined): f is Finding & { severity: ProblemSeverity } => f !== undefined && f.severity !== 'info' && isVisible(d, f.object, inScope);
  const byObject = new Map<string, (Finding & { severity: ProblemSeverity })[]>();
  for (const [object, findings] of d.byObject) {
    // As the caller may read each: no evidence about a hidden object, no link to a hidden cause.
    const visible = findings.filter(problem).map((f) => ({ ...shown(d, f, inScope), severity: f.severity }));
    if (visible.length > 0) byObject.set(object, visible);
  }
  const causes: { from: string; to: string }[] = [];
  for (const f of d.findings.values()) {
    if (f.caused_by !== null && problem(f) && problem(d.findings.get(f.caused_by))) causes.push({ from: f.id, to: f.caused_by });
  }
  return { byObject, causes };
}
