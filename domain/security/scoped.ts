// The security answers as one caller may read them, the way domain/cluster/scoped.ts hands
// out the cluster: the runtime wraps its one whole-cluster evaluation of the built-in checks
// and its one mapping of trivy-operator's reports once per visible set, and every handler
// reads the answers here, already cut to the visible namespaces (the rules: ./visible.ts,
// ./scan-summary.ts). No handler sees the whole evaluation or a visibility predicate.
import type { InScope } from '../diagnosis/visible.ts';
import { keptWhile, narrowings } from '../derived.ts';
import type { MisconfigFinding, PostureAnswer, VulnFinding } from '../../schema/security.ts';
import type { NamespaceScanCounts, ScanSummary } from '../../schema/security-scan.ts';
import type { Evaluation } from './posture.ts';
import { summarize } from './scan-summary.ts';
import type { ScannerReportStatus } from './trivy-reports.ts';
import { postureFor, visibleFindings } from './visible.ts';

export interface ScopedPosture {
  /**
   * `GET /security/posture`: the visible namespaces' posture, or `namespace`'s (already checked
   * visible). The whole answer (no namespace) is the same object until the evaluation changes,
   * so the runtime serialises it once.
   */
  answer(namespace: string | null): PostureAnswer;
  /** The built-in checks' and ConfigAuditReports' findings in the visible namespaces, in the default (severity) order; the same array until the evaluation changes. */
  findings(): readonly MisconfigFinding[];
  /** A stored scan's per-namespace counts added up over the visible namespaces (and, given `namespace`, that one alone). */
  scanSummary(counts: readonly NamespaceScanCounts[], namespace: string | null): ScanSummary;
  /** The same posture cut to `tenantNamespaces` within what this caller may see (an AI run's namespace scope); the same object for the same list. */
  narrow(tenantNamespaces: readonly string[]): ScopedPosture;
}

/** trivy-operator's reports, as far as a caller reads them directly (the posture already folds their results in). */
export interface ScopedScannerReports {
  /** The vulnerability findings in the visible namespaces, unsorted; the same array until the reports change. */
  vulns(): readonly VulnFinding[];
  /** Whether each kind of report is read, and if not why (cluster-wide: it names no namespace). */
  status(): ScannerReportStatus;
  /** The same reports cut to `tenantNamespaces` within what this caller may see; the same object for the same list. */
  narrow(tenantNamespaces: readonly string[]): ScopedScannerReports;
}

export function scopePosture(source: () => Evaluation, inScope: InScope): ScopedPosture {
  const whole = keptWhile(source, (e) => postureFor(e, inScope, null));
  const findings = keptWhile(source, (e) => visibleFindings(e, inScope));
  return {
    answer: (namespace) => (namespace === null ? whole() : postureFor(source(), inScope, namespace)),
    findings,
    scanSummary: (counts, namespace) => summarize(counts, inScope, namespace),
    narrow: narrowings(inScope, (narrower) => scopePosture(source, narrower)),
  };
}

export function scopeScannerReports(source: () => { vulns: readonly VulnFinding[]; status: ScannerReportStatus }, inScope: InScope): ScopedScannerReports {
  return {
    vulns: keptWhile(() => source().vulns, (vulns) => vulns.filter((f) => inScope(f.namespace))),
    status: () => source().status,
    narrow: narrowings(inScope, (narrower) => scopeScannerReports(source, narrower)),
  };
}
