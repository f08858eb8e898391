// A stored scan's numbers as one caller may see them. A run keeps its counts per namespace
// (scan_namespace_counts); a summary or a trend point is added up again from the visible
// namespaces with the same formula as the live posture (posture.ts), so a hidden namespace's
// numbers never reach a caller. Counted over every namespace, the sums equal the run's own
// cluster-wide posture, because evaluate() adds every result to both.
import type { InScope } from '../diagnosis/visible.ts';
import type { NamespaceScanCounts, ScanSummary } from '../../schema/security-scan.ts';
import type { Evaluation } from './posture.ts';
import type { VulnFinding } from '../../schema/security.ts';
import { SEVERITIES, zeroCounts } from '../../schema/security.ts';
import { polarisGrade, polarisScore } from './posture.ts';

/** The per-namespace counts of one collection: the posture's namespaces, plus those with only vulnerabilities. */
export function namespaceCounts(evaluation: Evaluation, vulns: readonly VulnFinding[]): NamespaceScanCounts[] {
  const by = new Map<string, NamespaceScanCounts>();
  const entry = (namespace: string): NamespaceScanCounts => {
    let e = by.get(namespace);
    if (!e) by.set(namespace, (e = { namespace, checks: { passed: 0, warnings: 0, dangers: 0 }, by_severity: zeroCounts(), workloads: 0, misconfigs: 0, vulns: 0 }));
    return e;
  };
  for (const ns of evaluation.posture.namespaces) {
    const e = entry(ns.namespace);
    e.checks = { ...ns.checks };
    e.by_severity = { ...ns.by_severity };
    e.workloads = ns.workloads_covered;
  }
  for (const f of evaluation.findings) entry(f.namespace).misconfigs++;
  for (const f of vulns) entry(f.namespace).vulns++;
  return [...by.values()].sort((a, b) => a.namespace.localeCompare(b.namespace));
}

/**
 * The summary over the namespaces `inScope` admits (and, given `namespace`, that one alone).
 * Nothing counted scores 100 (A+), as the live posture does.
 */
export function summarize(counts: readonly NamespaceScanCounts[], inScope: InScope, namespace: string | null = null): ScanSummary {
  const checks = { passed: 0, warnings: 0, dangers: 0 };
  const by_severity = zeroCounts();
  let vulns = 0;
  let misconfigs = 0;
  let workloads_covered = 0;
  for (const c of counts) {
    if (!inScope(c.namespace) || (namespace !== null && c.namespace !== namespace)) continue;
    checks.passed += c.checks.passed;
    checks.warnings += c.checks.warnings;
    checks.dangers += c.checks.dangers;
    for (const s of SEVERITIES) by_severity[s] += c.by_severity[s];
    vulns += c.vulns;
    misconfigs += c.misconfigs;
    workloads_covered += c.workloads;
  }
  const score = polarisScore(checks);
  return { score, grade: polarisGrade(score), by_severity, checks, vulns, misconfigs, workloads_covered };
}
