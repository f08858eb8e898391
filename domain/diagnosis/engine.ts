// The diagnosis engine: every analyzer over one snapshot, then findings chained to root
// causes. Pure; computed once on the whole cluster and cut per caller (visible.ts).
// How chains form, the tie order and folding are written down in docs/diagnosis.md.
import type { ClusterView } from '../cluster/model.ts';
import { linkOf, nodeId, parseNodeId } from '../cluster/node-id.ts';
import type { Finding, RootCause } from '../../schema/diagnosis.ts';
import { ANALYZERS } from './analyzers/index.ts';
import { CODES } from './codes.ts';
import { diagnosisInput, type Analyzer, type DiagnosisInput, type DraftFinding } from './input.ts';
import { existingNodeIds } from './objects.ts';

export interface AnalyzerEntry {
  name: string;
  /** The informer resources it reads (`syncStatus()` names): a forbidden one leaves it silent. */
  reads: readonly string[];
  analyze: Analyzer;
}

export interface SilentAnalyzer {
  resource: string;
  reason: string;
}

/** One diagnosis of the whole cluster, before any caller's visibility is applied. */
export interface ClusterDiagnosis {
  generatedAt: string;
  /** Every finding by id, chained (`caused_by`) and with its evidence links filled. */
  findings: ReadonlyMap<string, Finding>;
  /** Each object's findings, in the tie order (severity, code rank, id). */
  byObject: ReadonlyMap<string, readonly Finding[]>;
  /** Root causes, folded and ordered: critical first, then more effects, then id. */
  roots: readonly RootCause[];
  /** Info findings (history), by id. */
  notes: readonly Finding[];
  silent: readonly SilentAnalyzer[];
  /** Findings each finding explains directly (`caused_by` reversed), in the tie order. */
  explains: ReadonlyMap<string, readonly Finding[]>;
  /** Node ids of every object that exists in the snapshot. */
  objects: ReadonlySet<string>;
  /** PersistentVolumes bound to a claim, with the claim's namespace: a volume is as visible as its claim. */
  volumeClaimNamespace: ReadonlyMap<string, string>;
}

export interface EngineOptions {
  analyzers?: readonly AnalyzerEntry[];
  /** Codes in rank order (the tie order's second key); unknown codes rank after all of them. */
  codeOrder?: readonly string[];
  /** Hosts crashed containers named in their last log lines (DiagnosisInput.crashLogHosts); none when omitted. */
  crashLogHosts?: DiagnosisInput['crashLogHosts'];
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;
/** Owners whose pods are interchangeable replicas: the same failure on several is one root. */
const FOLDING_OWNERS: ReadonlySet<string> = new Set(['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']);

/** Code-point order: the same on every machine, whatever the locale. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The tie order: critical before warning before info, then the code's rank in CODES, then id. */
export function tieOrder(codeOrder: readonly string[]): (a: Pick<Finding, 'severity' | 'code' | 'id'>, b: Pick<Finding, 'severity' | 'code' | 'id'>) => number {
  const rank = new Map(codeOrder.map((code, i) => [code, i]));
  const rankOf = (code: string) => rank.get(code) ?? codeOrder.length;
  return (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || rankOf(a.code) - rankOf(b.code) || compareStrings(a.id, b.id);
}

function runAnalyzers(input: DiagnosisInput, analyzers: readonly AnalyzerEntry[]): { drafts: DraftFinding[]; silent: SilentAnalyzer[] } {
  const view = input.view;
  const forbidden = new Map(view.syncStatus().filter((s) => s.forbidden).map((s) => [s.resource, s.forbidden_namespaces]));
  const blind = new Map<string, string[]>();
  const failed: SilentAnalyzer[] = [];
  const drafts: DraftFinding[] = [];
  const seen = new Set<string>();
  for (const analyzer of analyzers) {
    // A forbidden resource is served empty: the analyzer still runs on what it can read.
    for (const resource of analyzer.reads) if (forbidden.has(resource)) blind.set(resource, [...(blind.get(resource) ?? []), analyzer.name]);
    let found: DraftFinding[];
    try {
      found = analyzer.analyze(input);
    } catch (err) {
      // One analyzer's defect must not take the whole diagnosis down; it is reported instead.
      failed.push({ resource: analyzer.name, reason: `the ${analyzer.name} analyzer failed: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    // One finding per object and code: a second with the same id (a defect) is dropped.
    for (const draft of found) {
      if (seen.has(draft.id)) continue;
      seen.add(draft.id);
      drafts.push(draft);
    }
  }
  const silent = [...blind]
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([resource, names]) => ({ resource, reason: `RBAC forbids reading ${resource}${where(forbidden.get(resource) ?? [])}: the ${names.join(', ')} analyzer${names.length > 1 ? 's' : ''} cannot see it and say${names.length > 1 ? '' : 's'} nothing about it` }));
  return { drafts, silent: [...silent, ...failed] };
}

/** Where a refusal applies: nothing for the cluster-wide LIST, else the namespaces refused. */
function where(namespaces: readonly string[]): string {
  return namespaces.length === 0 ? '' : ` in namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.join(', ')}`;
}

/**
 * Sets `caused_by`: each finding, in the tie order, links to the first finding (tie order)
 * on its first suspect that has one, skipping itself, history (info) and any finding whose
 * chain already leads back to it (the link would close a cycle: refused, the next candidate
 * is tried). Info findings never link and are never linked to.
 */
function chain(drafts: readonly DraftFinding[], order: ReturnType<typeof tieOrder>): Map<string, string | null> {
  const byObject = new Map<string, DraftFinding[]>();
  for (const d of drafts) if (d.severity !== 'info') append(byObject, d.object, d);
  for (const list of byObject.values()) list.sort(order);
  const causedBy = new Map<string, string | null>();
  const reaches = (from: string, target: string): boolean => {
    for (let at: string | null | undefined = from; at; at = causedBy.get(at)) if (at === target) return true;
    return false;
  };
  for (const d of [...drafts].sort(order)) {
    let cause: string | null = null;
    if (d.severity !== 'info') {
      search: for (const suspect of d.suspects) {
        for (const candidate of byObject.get(suspect) ?? []) {
          if (candidate.id === d.id || reaches(candidate.id, d.id)) continue;
          cause = candidate.id;
          break search;
        }
      }
    }
    causedBy.set(d.id, cause);
  }
  return causedBy;
}

function append<T>(index: Map<string, T[]>, key: string, item: T): void {
  const list = index.get(key);
  if (list) list.push(item);
  else index.set(key, [item]);
}

/** Every finding a root explains, directly or not, nearest first (then the tie order), with its distance. */
function effectsOf(rootId: string, explains: ReadonlyMap<string, readonly Finding[]>): { finding: Finding; distance: number }[] {
  const out: { finding: Finding; distance: number }[] = [];
  let frontier = [rootId];
  for (let distance = 1; frontier.length > 0; distance++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const child of explains.get(id) ?? []) {
        out.push({ finding: child, distance });
        next.push(child.id);
      }
    }
    frontier = next;
  }
  return out;
}

export function diagnose(view: ClusterView, now: Date, options: EngineOptions = {}): ClusterDiagnosis {
  const order = tieOrder(options.codeOrder ?? CODES.map((c) => c.code));
  const { drafts, silent } = runAnalyzers(diagnosisInput(view, now, options.crashLogHosts), options.analyzers ?? ANALYZERS);
  const causedBy = chain(drafts, order);
  const objects = existingNodeIds(view);
  const link = (id: string) => (objects.has(id) ? linkOf(id) : null);

  const findings = new Map<string, Finding>();
  for (const d of drafts) {
    findings.set(d.id, {
      id: d.id,
      code: d.code,
      severity: d.severity,
      object: d.object,
      namespace: d.namespace,
      summary: d.summary,
      evidence: d.evidence.map((e) => ({ ...e, link: link(e.node_id) })),
      since: d.since,
      caused_by: causedBy.get(d.id) ?? null,
      attributes: d.attributes,
    });
  }
  const sorted = [...findings.values()].sort(order);
  const byObject = new Map<string, Finding[]>();
  const explains = new Map<string, Finding[]>();
  for (const f of sorted) {
    append(byObject, f.object, f);
    if (f.caused_by !== null) append(explains, f.caused_by, f);
  }

  // Pods of one ReplicaSet/StatefulSet/DaemonSet/Job failing the same way are one root.
  const podOwner = new Map<string, string>();
  for (const pod of view.pods()) {
    if (pod.owner && FOLDING_OWNERS.has(pod.owner.kind)) podOwner.set(nodeId('Pod', pod.namespace, pod.name), `${pod.namespace}/${pod.owner.kind}/${pod.owner.name}`);
  }
  const groups = new Map<string, Finding[]>();
  for (const f of sorted) {
    if (f.severity === 'info' || f.caused_by !== null) continue;
    const owner = podOwner.get(f.object);
    const key = owner === undefined ? `#${f.id}` : `${f.code}|${owner}`;
    append(groups, key, f);
  }
  const roots: RootCause[] = [...groups.values()].flatMap((members) => {
    const [first, ...others] = [...members].sort((a, b) => compareStrings(parseNodeId(a.object)?.name ?? a.object, parseNodeId(b.object)?.name ?? b.object) || compareStrings(a.id, b.id));
    const effects = members
      .flatMap((m) => effectsOf(m.id, explains))
      .sort((a, b) => a.distance - b.distance || order(a.finding, b.finding))
      .map((e) => e.finding);
    return first === undefined ? [] : [{ finding: first, effects, also: others.map((o) => o.object) }];
  });
  roots.sort((a, b) => SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity] || b.effects.length - a.effects.length || compareStrings(a.finding.id, b.finding.id));

  const volumeClaimNamespace = new Map<string, string>();
  for (const pv of view.pvs()) if (pv.claim) volumeClaimNamespace.set(nodeId('PersistentVolume', null, pv.name), pv.claim.namespace);

  return {
    generatedAt: now.toISOString(),
    findings,
    byObject,
    roots,
    notes: sorted.filter((f) => f.severity === 'info').sort((a, b) => compareStrings(a.id, b.id)),
    silent,
    explains,
    objects,
    volumeClaimNamespace,
  };
}
