// Every built-in check, in the order the docs list them: Pod Security Standards Baseline,
// then Restricted (each in the order of the PSS page), then workload hygiene.
import { HYGIENE_CHECKS } from './hygiene.ts';
import { BASELINE_CHECKS } from './pss-baseline.ts';
import { RESTRICTED_CHECKS } from './pss-restricted.ts';
import type { Check } from './types.ts';

export const CHECKS: readonly Check[] = [...BASELINE_CHECKS, ...RESTRICTED_CHECKS, ...HYGIENE_CHECKS];

export const CHECKS_BY_ID: ReadonlyMap<string, Check> = new Map(CHECKS.map((c) => [c.id, c]));

export type { Check, CheckResult, WorkloadRef } from './types.ts';
