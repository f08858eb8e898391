import type { Evaluation, ExternalResult } from '../../domain/security/posture.ts';
import type { ScannerReportStatus } from '../../domain/security/trivy-reports.ts';
import type { VulnFinding } from '../../schema/security.ts';

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

/** trivy-operator's reports, mapped (domain/security/trivy-reports.ts), for the whole cluster before any caller's visibility. */
export interface ScannerReports {
  /** Every vulnerability finding (`source: trivy`). */
  vulns: VulnFinding[];
  /** What the reports add to the posture: ConfigAuditReport checks and one result per scanned image. */
  results: ExternalResult[];
  /** Whether each kind of report is read, and if not why (the CRDs not installed, RBAC). */
  status: ScannerReportStatus;
}

/**
 * The reports mapped again only when the informers hand out a new report or controller array
 * (and at most every POSTURE_MIN_AGE_MS). The posture folds `results` in; handlers cut
 * `vulns` to what their caller may see (handlers/security/visible-findings.ts).
 */
export interface ScannerReportsService {
  current(): ScannerReports;
}
