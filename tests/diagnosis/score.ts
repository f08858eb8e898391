// Scoring one scenario's answer: pure, so tests/unit/diagnosis-harness.test.ts pins it.
import type { Diagnosis, Finding, RootCause } from '../../schema/diagnosis.ts';
import { idMatches, type ExpectedFinding, type ScenarioSpec } from './scenario.ts';

export interface FalseAlarm {
  object: string;
  code: string;
  severity: Finding['severity'];
  /** `quiet`: a critical/warning finding on an object that must stay quiet; `unexpected_root`: a root cause nobody expected. */
  why: 'quiet' | 'unexpected_root';
}

export interface Score {
  /** The first root cause of the scenario's answer, or null when it has none. */
  got: { code: string; object: string } | null;
  /** The first root cause is the expected one; for a history-only scenario: no root cause at all. */
  top1: boolean;
  effects: { expected: number; found: number; missing: string[] };
  notes: { expected: number; found: number; missing: string[] };
  falseAlarms: FalseAlarm[];
  /** top1, every effect and note found, no false alarm. */
  pass: boolean;
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

/** The documented order of root causes (schema/diagnosis.ts): severity, then more effects, then id. */
function rootOrder(a: RootCause, b: RootCause): number {
  return (
    SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity] ||
    b.effects.length - a.effects.length ||
    (a.finding.id < b.finding.id ? -1 : a.finding.id > b.finding.id ? 1 : 0)
  );
}

/**
 * What an operator looking at the scenario sees: the namespace's answer, plus the root causes on
 * the cluster-scoped objects the scenario made (its unmanaged nodes, volumes, classes) from the
 * cluster-wide answer. Such a root reaches a namespace's answer only through an effect there,
 * and a cordoned node or a Released volume may have none. In the documented order.
 */
export function scenarioRoots(namespaceAnswer: Diagnosis, clusterAnswer: Diagnosis | null, ownedIds: readonly string[]): RootCause[] {
  const roots = [...namespaceAnswer.root_causes];
  if (clusterAnswer === null || ownedIds.length === 0) return roots;
  const present = new Set(roots.map((r) => r.finding.id));
  const extra = clusterAnswer.root_causes.filter((r) => ownedIds.includes(r.finding.object) && !present.has(r.finding.id));
  return extra.length === 0 ? roots : [...roots, ...extra].sort(rootOrder);
}

export function findingMatches(expected: ExpectedFinding, finding: Finding): boolean {
  if (finding.code !== expected.code || !idMatches(expected.object, finding.object)) return false;
  return Object.entries(expected.attributes ?? {}).every(([k, value]) => finding.attributes[k] === value);
}

export function scoreAnswer(expect: ScenarioSpec['expect'], roots: readonly RootCause[], notes: readonly Finding[]): Score {
  const first = roots[0];
  const expectedRoot = expect.rootCause;
  const matches = (r: RootCause) => expectedRoot !== undefined && findingMatches(expectedRoot, r.finding);
  const top1 = expectedRoot === undefined ? roots.length === 0 : first !== undefined && matches(first);

  // Effects are measured on the expected root wherever it ranks (several matching roots: their union).
  const attributed = roots.filter(matches).flatMap((r) => [...r.effects.map((e) => e.object), ...r.also]);
  const missingEffects = expect.effects.filter((pattern) => !attributed.some((id) => idMatches(pattern, id)));
  const missingNotes = expect.notes.filter((n) => !notes.some((f) => findingMatches(n, f))).map((n) => `${n.code} on ${n.object}`);

  const falseAlarms: FalseAlarm[] = [];
  for (const r of roots) {
    if (!matches(r)) falseAlarms.push({ object: r.finding.object, code: r.finding.code, severity: r.finding.severity, why: 'unexpected_root' });
  }
  const loud = roots.flatMap((r) => [
    ...[r.finding, ...r.effects].map((f) => ({ object: f.object, code: f.code, severity: f.severity })),
    ...r.also.map((object) => ({ object, code: r.finding.code, severity: r.finding.severity })),
  ]);
  for (const f of loud) {
    if (f.severity === 'info' || !expect.quiet.some((q) => idMatches(q, f.object))) continue;
    if (!falseAlarms.some((a) => a.object === f.object && a.code === f.code)) falseAlarms.push({ ...f, why: 'quiet' });
  }

  return {
    got: first ? { code: first.finding.code, object: first.finding.object } : null,
    top1,
    effects: { expected: expect.effects.length, found: expect.effects.length - missingEffects.length, missing: missingEffects },
    notes: { expected: expect.notes.length, found: expect.notes.length - missingNotes.length, missing: missingNotes },
    falseAlarms,
    pass: top1 && missingEffects.length === 0 && missingNotes.length === 0 && falseAlarms.length === 0,
  };
}
