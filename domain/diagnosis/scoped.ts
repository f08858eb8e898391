// The whole-cluster diagnosis as one caller may read it, the way domain/cluster/scoped.ts
// hands out the cluster: the runtime wraps its one whole-cluster diagnosis once per visible
// set, and every handler reads the answers here, already cut (the rules: ./visible.ts and
// docs/diagnosis.md "Visibility"). No handler sees the whole diagnosis or a visibility predicate.
import type { Diagnosis, DiagnosisDetail } from '../../schema/diagnosis.ts';
import { keptWhile, narrowings } from '../derived.ts';
import type { ClusterDiagnosis } from './engine.ts';
import { detailFor, diagnosisFor, isVisible, problemOf, problemsFor, type InScope, type ObjectProblem, type VisibleProblems } from './visible.ts';

export interface ScopedDiagnosis {
  /**
   * `GET /diagnosis`: visible roots with their visible effects, notes, and the visible effects
   * of hidden roots; `namespace` keeps those touching it. The whole answer (no namespace) is
   * the same object until the whole-cluster diagnosis changes.
   */
  answer(namespace: string | null): Diagnosis;
  /** `GET /diagnosis/{id}`; null when the diagnosis does not hold the object or the caller may not see it. */
  detail(id: string): DiagnosisDetail | null;
  /** What is wrong with one object now, with the root of its chain (problemOf): what an incident projects. */
  problem(objectId: string): ObjectProblem | null;
  /** The cluster model's problem nodes and their links; the same object until the whole-cluster diagnosis changes. */
  problems(): VisibleProblems;
  /** The same diagnosis cut to `tenantNamespaces` within what this caller may see (an AI run's namespace scope); the same object for the same list. */
  narrow(tenantNamespaces: readonly string[]): ScopedDiagnosis;
}

/** `source()`'s diagnosis cut with `inScope`; each whole answer kept while `source()` hands out the same diagnosis. */
export function scopeDiagnosis(source: () => ClusterDiagnosis, inScope: InScope): ScopedDiagnosis {
  const whole = keptWhile(source, (d) => diagnosisFor(d, inScope, null));
  const problems = keptWhile(source, (d) => problemsFor(d, inScope));
  return {
    answer: (namespace) => (namespace === null ? whole() : diagnosisFor(source(), inScope, namespace)),
    detail: (id) => {
      const d = source();
      // A volume bound to a hidden claim is not in the caller's model at all: absent, as in the graph.
      return d.objects.has(id) && isVisible(d, id, inScope) ? detailFor(d, inScope, id) : null;
    },
    problem: (objectId) => problemOf(source(), inScope, objectId),
    problems,
    narrow: narrowings(inScope, (narrower) => scopeDiagnosis(source, narrower)),
  };
}
