// The whole-cluster security answers the handlers read scoped (domain/security/scoped.ts): the
// built-in checks' posture, trivy-operator's reports mapped, and what a scan stores.
import type { ClusterView } from '../../domain/cluster/model.ts';
import { evaluate } from '../../domain/security/posture.ts';
import { operatorReportsCount } from '../../domain/security/scan-mode.ts';
import { controllerOwners, scannerResults, vulnFindings } from '../../domain/security/trivy-reports.ts';
import { judgedWorkloads } from '../../domain/security/visible.ts';
import type { Memo } from '../../handlers/context.ts';
import { POSTURE_MIN_AGE_MS, type PostureService, type ScannerReports, type ScannerReportsService } from '../../handlers/security/service.ts';
import type { ScanMode } from '../../schema/security-scan.ts';
import type { SettingsStore } from '../store/settings.ts';
import type { ScanCollector } from './scan-runner.ts';
import type { SelfScanCollector } from './self-scan-collector.ts';

/**
 * The built-in checks over the raw (unscoped) cluster view, evaluated again only when the
 * workload, controller or pod array the informers hand out has changed, and at most every
 * POSTURE_MIN_AGE_MS while they churn (a replica's status change gives a new pod array).
 */
export function createPostureService(cluster: ClusterView, memo: Memo, scanner: ScannerReportsService = createScannerReportsService(cluster, memo)): PostureService {
  return {
    current: () => {
      const reports = scanner.current();
      return memo.derive('security-posture', [cluster.workloads(), cluster.controllers(), cluster.pods(), reports], POSTURE_MIN_AGE_MS, () => evaluate(judgedWorkloads(cluster), undefined, reports.results));
    },
  };
}

/**
 * Whether trivy-operator's reports count (findings and posture): not while the mode in force
 * (`scanner_source`, else the chart's mode) is `self` (operatorReportsCount). Read synchronously
 * from the setting as this process last read or wrote it (assembleServices reads it once at
 * start; PUT /admin/settings/scanning writes it here). While false, the reports are still
 * watched, only not shown.
 */
export function operatorReportsInUse(mode: ScanMode, settings: Pick<SettingsStore, 'peek'>): () => boolean {
  return () => operatorReportsCount({ mode, scannerSource: settings.peek('scanning').scanner_source });
}

/** trivy-operator's reports mapped to findings and posture results, again only when a report or controller array changed. */
export function createScannerReportsService(cluster: ClusterView, memo: Memo, inUse: () => boolean = () => true): ScannerReportsService {
  return {
    current: () =>
      memo.derive('scanner-reports', [cluster.vulnerabilityReports(), cluster.configAuditReports(), cluster.controllers(), inUse()], POSTURE_MIN_AGE_MS, (): ScannerReports => {
        const status = cluster.scannerReportStatus();
        if (!inUse()) return { vulns: [], results: [], status };
        const owners = controllerOwners(cluster.controllers());
        return { vulns: vulnFindings(cluster.vulnerabilityReports(), owners), results: scannerResults(cluster.vulnerabilityReports(), cluster.configAuditReports(), owners), status };
      }),
  };
}

/**
 * What a scan stores (runtime/security/scan-runner.ts): the built-in checks' whole-cluster
 * evaluation now (trivy-operator's reports folded in) and the scanner's vulnerabilities. The
 * one place a scanner's findings join a scan: a run whose source is `operator` keeps
 * trivy-operator's VulnerabilityReports' findings; a `self` run, the expert pod's scan of the
 * images (runtime/security/self-scan-collector.ts); `none` has none.
 */
export function scanCollector(posture: PostureService, scanner: ScannerReportsService, selfScan: SelfScanCollector | null = null): ScanCollector {
  return (run) => {
    if (run.source === 'self') {
      // POST /security/scan refuses a self-scan without expert mode; a run left from before a restart without it fails here.
      if (selfScan === null) throw new Error('a self-scan needs the expert pod (expertMode.enabled), which this agent has not');
      return selfScan(run.job_name);
    }
    return { evaluation: posture.current(), vulns: run.source === 'operator' ? scanner.current().vulns : [] };
  };
}

/** Whether trivy-operator's VulnerabilityReports can be used: served by the API server and readable. */
export function operatorReportsServed(cluster: ClusterView): boolean {
  return cluster.scannerReportStatus().vulnerabilityreports === 'read';
}
