// `GET /security/posture` and `GET /security/findings`: the one whole-cluster evaluation of
// the built-in checks, as the runtime hands it out already cut to what the caller may see.
// The rules: docs/security-posture.md.
import { findingsFor } from '../../domain/security/findings.ts';
import type { FindingsAnswer, FindingsInput, PostureAnswer, PostureInput } from '../../schema/security.ts';
import type * as v from 'valibot';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import { visibleFindingsFor } from './visible-findings.ts';

/** Grade, score, counts and top failing checks of the visible namespaces (or of one; a hidden one is refused before this runs). */
export function posture(input: v.InferOutput<typeof PostureInput>, ctx: HandlerContext): Result<PostureAnswer> {
  // The whole answer is one object per evaluation and visible set (ScopedPosture keeps it), so
  // the runtime's per-value JSON cache serialises it once: at scale-5000 it is 616 KB, about
  // 1.8 ms a request.
  return ok(ctx.posture.answer(input.namespace ?? null));
}

/**
 * `{vulns, misconfigs}` the caller may see (the built-in checks' and trivy-operator's reports'),
 * filtered, sorted and paged per spec §4, and whether the reports could be read.
 */
export function findings(input: FindingsInput, ctx: HandlerContext): Result<FindingsAnswer> {
  const { vulns, misconfigs } = visibleFindingsFor(ctx);
  return ok({ ...findingsFor(vulns, misconfigs, input), scanner_reports: ctx.scannerReports.status() });
}
