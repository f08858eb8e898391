import type { Evaluation } from '../../domain/security/posture.ts';

/** A changed cache is evaluated again at most this often (pod status churns; templates rarely do). */
export const POSTURE_MIN_AGE_MS = 5000;

/**
 * The built-in checks over every judged workload of the whole cluster, before any caller's
 * visibility: the runtime evaluates the unscoped cache, again only once its workload,
 * controller or pod array has changed (and at most every POSTURE_MIN_AGE_MS). Handlers cut it
 * to what their caller may see (domain/security/visible.ts) and never hand it out whole.
 */
export interface PostureService {
  current(): Evaluation;
}
