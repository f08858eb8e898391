// What a self-scan stores (docs/security-posture.md, "Self-scan"): the expert pod scans the
// images of the workloads the built-in checks judge, and their results join the scan like
// trivy-operator's reports do, through the same mapping (vulnFindings, scannerResults). The
// workloads are read once, before the Job, so the findings name what was scanned.
import type { ClusterView } from '../../domain/cluster/model.ts';
import { evaluate } from '../../domain/security/posture.ts';
import { selfScanImages, selfScanOutcome, selfScanReports } from '../../domain/security/self-scan.ts';
import { scannerResults, vulnFindings } from '../../domain/security/trivy-reports.ts';
import { judgedWorkloads } from '../../domain/security/visible.ts';
import type { ExpertHop } from '../helm/expert-client.ts';
import type { ScanCollection } from './scan-runner.ts';

export type SelfScanCollector = (jobName: string) => Promise<ScanCollection>;

export function selfScanCollector(cluster: Pick<ClusterView, 'workloads' | 'controllers' | 'pods'>, hop: Pick<ExpertHop, 'selfScan'>): SelfScanCollector {
  return async (jobName) => {
    const workloads = judgedWorkloads(cluster);
    const { images, skipped } = selfScanImages(workloads);
    if (images.length === 0) return { evaluation: evaluate(workloads), vulns: [], detail: 'No workload names an image to scan.' };
    const answer = await hop.selfScan({ job_name: jobName, images });
    if (!answer.ok) throw new Error(answer.message);
    const reports = selfScanReports(workloads, answer.results);
    // The reports name the workloads themselves: no ReplicaSet or Job to trace to its owner.
    const owners = new Map<string, never>();
    return { evaluation: evaluate(workloads, undefined, scannerResults(reports, [], owners)), vulns: vulnFindings(reports, owners), detail: selfScanOutcome(answer.results, skipped) };
  };
}
