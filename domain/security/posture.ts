// The posture: every built-in check run over every workload, the failures as findings, and
// a score and grade per cluster and per namespace by Polaris' published formula.
//
// Source: FairwindsOps/polaris, pkg/validator/summary.go `CountSummary.GetScore` and
// pkg/dashboard/helpers.go `getGrade` (v10.2.x):
//   score = ⌊100 · 2P / (2P + W + 2D)⌋, and 100 when there is nothing to count,
// where P counts passed results, W failed results of warning severity, D failed results of
// danger severity; grades A+ ≥ 97, A ≥ 93, A- ≥ 90, B+ ≥ 87, B ≥ 83, B- ≥ 80, C+ ≥ 77,
// C ≥ 73, C- ≥ 70, D+ ≥ 67, D ≥ 63, D- ≥ 60, F below.
// Our severities map onto Polaris' two levels: CRITICAL and HIGH are danger, MEDIUM, LOW
// and UNKNOWN are warning. Polaris divides in floating point first and truncates, which
// now and then lands one below the exact quotient (P=29, W=42: 57.999… → 57); we divide
// integers exactly (58), which is the formula as written.
import type { CheckCounts, FailingCheck, Grade, MisconfigFinding, NamespacePosture, PodSecuritySpec, Posture, SecuritySeverity, SeverityCounts } from '../../schema/security.ts';
import { SEVERITY_RANK, zeroCounts } from '../../schema/security.ts';
import { CHECKS, CHECKS_BY_ID, type Check } from './checks/index.ts';
import { compareBySeverity } from './findings.ts';

export interface WorkloadInput {
  kind: string;
  namespace: string;
  name: string;
  spec: PodSecuritySpec;
}

/**
 * A result judged elsewhere (a scanner's report, domain/security/trivy-reports.ts) that counts
 * toward the score like a built-in check's: `failure` null is a pass; a failure counts at its
 * severity's level and, when it carries a finding, lists it with the built-in ones.
 */
export interface ExternalResult {
  namespace: string;
  failure: { severity: SecuritySeverity; finding: MisconfigFinding | null } | null;
}

export interface Evaluation {
  /** In the findings route's default order (compareBySeverity), which it relies on. */
  findings: MisconfigFinding[];
  posture: Posture;
}

/** Severities that count as Polaris' "danger" (weight 2); the rest count as "warning" (weight 1). */
export const DANGER_SEVERITIES: ReadonlySet<SecuritySeverity> = new Set(['CRITICAL', 'HIGH']);

/** How many failing checks the posture lists, cluster-wide and per namespace. */
export const TOP_FAILING_CHECKS = 10;

/** Polaris' score; 100 when nothing was checked (as Polaris answers: no failure seen). */
export function polarisScore(counts: CheckCounts): number {
  const total = 2 * counts.passed + counts.warnings + 2 * counts.dangers;
  return total === 0 ? 100 : Math.floor((200 * counts.passed) / total);
}

const GRADE_FLOORS: readonly (readonly [number, Grade])[] = [
  [97, 'A+'],
  [93, 'A'],
  [90, 'A-'],
  [87, 'B+'],
  [83, 'B'],
  [80, 'B-'],
  [77, 'C+'],
  [73, 'C'],
  [70, 'C-'],
  [67, 'D+'],
  [63, 'D'],
  [60, 'D-'],
];

export function polarisGrade(score: number): Grade {
  return GRADE_FLOORS.find(([floor]) => score >= floor)?.[1] ?? 'F';
}

/** What one scope (the cluster, or a namespace) accumulates while the checks run. */
interface Tally {
  counts: CheckCounts;
  bySeverity: SeverityCounts;
  workloads: number;
  /** The scope's findings, the failed results counted above. */
  findings: MisconfigFinding[];
}

function newTally(): Tally {
  return { counts: { passed: 0, warnings: 0, dangers: 0 }, bySeverity: zeroCounts(), workloads: 0, findings: [] };
}

function recordFailure(t: Tally, severity: SecuritySeverity): void {
  if (DANGER_SEVERITIES.has(severity)) t.counts.dangers++;
  else t.counts.warnings++;
  t.bySeverity[severity]++;
}

/**
 * The checks failing in `findings`: on the most workloads first; then the worse severity,
 * more failures, and the id. One ranking for evaluate() (the cluster and each namespace) and
 * for the visible part of the cluster a caller sees (visible.ts).
 */
export function topFailing(findings: readonly MisconfigFinding[]): FailingCheck[] {
  const by = new Map<string, { f: MisconfigFinding; failures: number; workloads: Set<string> }>();
  for (const f of findings) {
    const entry = by.get(f.check_id) ?? { f, failures: 0, workloads: new Set<string>() };
    entry.failures++;
    entry.workloads.add(`${f.namespace}/${f.resource}`);
    by.set(f.check_id, entry);
  }
  return [...by.values()]
    .map(({ f, failures, workloads }) => ({ check_id: f.check_id, severity: f.severity, title: CHECKS_BY_ID.get(f.check_id)?.title ?? f.check_id, failures, workloads: workloads.size }))
    .sort((a, b) => b.workloads - a.workloads || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.failures - a.failures || a.check_id.localeCompare(b.check_id))
    .slice(0, TOP_FAILING_CHECKS);
}

function summary(t: Tally) {
  const score = polarisScore(t.counts);
  return { grade: polarisGrade(score), score, by_severity: { ...t.bySeverity }, workloads_covered: t.workloads, checks: { ...t.counts }, top_failing_checks: topFailing(t.findings) };
}

function findingOf(w: WorkloadInput, check: Check, container: string | null, message: string): MisconfigFinding {
  const resource = `${w.kind}/${w.name}`;
  return {
    id: `${w.namespace}/${resource}#${check.id}${container === null ? '' : `:${container}`}`,
    namespace: w.namespace,
    workload: w.name,
    workload_kind: w.kind,
    check_id: check.id,
    severity: check.severity,
    message,
    remediation: check.remediation,
    resource,
    container,
    source: 'capstan',
  };
}

/**
 * Runs `checks` (all built-in ones by default) over every workload: each failed result is a
 * finding, each result counts toward the score of the cluster and of its namespace. `external`
 * results (a scanner's) count the same way; they add no workload to `workloads_covered`.
 */
export function evaluate(workloads: readonly WorkloadInput[], checks: readonly Check[] = CHECKS, external: readonly ExternalResult[] = []): Evaluation {
  const cluster = newTally();
  const namespaces = new Map<string, Tally>();
  for (const w of workloads) {
    let ns = namespaces.get(w.namespace);
    if (!ns) namespaces.set(w.namespace, (ns = newTally()));
    cluster.workloads++;
    ns.workloads++;
    for (const check of checks) {
      for (const result of check.run(w.spec, w)) {
        if (result.passed) {
          cluster.counts.passed++;
          ns.counts.passed++;
          continue;
        }
        recordFailure(cluster, check.severity);
        recordFailure(ns, check.severity);
        const finding = findingOf(w, check, result.container, result.message);
        cluster.findings.push(finding);
        ns.findings.push(finding);
      }
    }
  }
  for (const r of external) {
    let ns = namespaces.get(r.namespace);
    if (!ns) namespaces.set(r.namespace, (ns = newTally()));
    if (r.failure === null) {
      cluster.counts.passed++;
      ns.counts.passed++;
      continue;
    }
    recordFailure(cluster, r.failure.severity);
    recordFailure(ns, r.failure.severity);
    if (r.failure.finding) {
      cluster.findings.push(r.failure.finding);
      ns.findings.push(r.failure.finding);
    }
  }
  const perNamespace: NamespacePosture[] = [...namespaces.entries()]
    .map(([namespace, t]) => ({ namespace, ...summary(t) }))
    .sort((a, b) => a.score - b.score || a.namespace.localeCompare(b.namespace));
  return { findings: cluster.findings.sort(compareBySeverity), posture: { ...summary(cluster), namespaces: perNamespace } };
}
