// MCP `get_findings`: the visible findings as an agent can use them in one call, bounded. The
// same findings as GET /security/findings (visibleFindingsFor), the worst `limit` of them with
// their remediation, every matching finding counted per kind and severity, and the posture
// they come with. docs/mcp.md.
import * as v from 'valibot';
import { findingsFor } from '../../domain/security/findings.ts';
import { FindingsInput, SecuritySeverity, zeroCounts, type FindingRow, type Grade, type SeverityCounts } from '../../schema/security.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import { visibleFindingsFor } from './visible-findings.ts';

/** The most findings one call lists; the counts cover everything that matched. */
export const FINDINGS_TOOL_MAX_LIMIT = 200;

export const FindingsToolInput = v.object({
  namespace: FindingsInput.entries.namespace,
  severity: v.optional(SecuritySeverity),
  kind: v.optional(v.picklist(['vuln', 'misconfig'])),
  /** How many findings to list, worst first (default 20). */
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(FINDINGS_TOOL_MAX_LIMIT)), 20),
});
export type FindingsToolInput = v.InferOutput<typeof FindingsToolInput>;

export interface FindingsSummary {
  /** The namespace asked about, or null for every visible one. */
  namespace: string | null;
  posture: { grade: Grade; score: number; workloads_covered: number };
  /** Every finding matching the arguments, per kind and severity. */
  counts: { vulns: SeverityCounts; misconfigs: SeverityCounts };
  total: number;
  /** The worst `limit` matching findings (severity first, then namespace, workload), each tagged `kind`. */
  findings: FindingRow[];
  /** More matched than are listed: narrow by namespace, severity or kind, or raise `limit`. */
  truncated: boolean;
}

export function findingsSummary(input: FindingsToolInput, ctx: HandlerContext): Result<FindingsSummary> {
  const { vulns, misconfigs } = visibleFindingsFor(ctx);
  const page = findingsFor(vulns, misconfigs, { namespace: input.namespace, severity: input.severity, kind: input.kind, sort: 'severity', page: 1, page_size: input.limit });
  const counts = { vulns: zeroCounts(), misconfigs: zeroCounts() };
  const matches = (f: { namespace: string; severity: SecuritySeverity }) => (input.namespace === undefined || f.namespace === input.namespace) && (input.severity === undefined || f.severity === input.severity);
  if (input.kind !== 'misconfig') for (const f of vulns) if (matches(f)) counts.vulns[f.severity]++;
  if (input.kind !== 'vuln') for (const f of misconfigs) if (matches(f)) counts.misconfigs[f.severity]++;
  const p = ctx.posture.answer(input.namespace ?? null);
  const total = page.total ?? 0;
  const rows = page.rows ?? [];
  return ok({
    namespace: input.namespace ?? null,
    posture: { grade: p.grade, score: p.score, workloads_covered: p.workloads_covered },
    counts,
    total,
    findings: rows,
    truncated: rows.length < total,
  });
}
