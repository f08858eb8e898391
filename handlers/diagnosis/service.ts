import type { ClusterDiagnosis } from '../../domain/diagnosis/engine.ts';

/** The whole-cluster diagnosis is shared for this long (`generated_at` says when it was made). */
export const DIAGNOSIS_TTL_MS = 5000;

/**
 * The diagnosis of the whole cluster, every namespace, before any caller's visibility: the
 * runtime computes it from the unscoped cluster view with the injectable clock, at most once
 * per DIAGNOSIS_TTL_MS. Handlers cut it to what their caller may see
 * (domain/diagnosis/visible.ts) and never hand it out whole.
 */
export interface DiagnosisService {
  current(): ClusterDiagnosis;
}
