// Everything a handler reads about the cluster, cut to one caller's visible namespaces: the
// cluster itself (./cluster/scoped.ts) and the answers derived from it for the whole cluster
// (the diagnosis, the built-in security checks, trivy-operator's reports). The runtime builds
// this once per visible set and hands it to every handler, so no handler cuts anything.
import type { ClusterView } from './cluster/model.ts';
import { scopeClusterView, type ScopedClusterView } from './cluster/scoped.ts';
import type { ClusterDiagnosis } from './diagnosis/engine.ts';
import { scopeDiagnosis, type ScopedDiagnosis } from './diagnosis/scoped.ts';
import { isVisibleNamespace } from './namespaces/visibility.ts';
import type { Evaluation } from './security/posture.ts';
import { scopePosture, scopeScannerReports, type ScopedPosture, type ScopedScannerReports } from './security/scoped.ts';
import { scopeCustomResources, type CustomResourceCatalog } from './resources/custom.ts';
import type { ScannerReportStatus } from './security/trivy-reports.ts';
import type { VulnFinding } from '../schema/security.ts';
import { scopeHelmReleases, type HelmReleaseSource } from './helm/release.ts';

/** The whole-cluster sources, before any caller's visibility (the runtime's services). */
export interface WholeCluster {
  cluster: ClusterView;
  diagnosis: { current(): ClusterDiagnosis };
  posture: { current(): Evaluation };
  scannerReports: { current(): { vulns: readonly VulnFinding[]; status: ScannerReportStatus } };
  customResources: CustomResourceCatalog;
  helmReleases: HelmReleaseSource;
}

export interface ScopedAnswers {
  cluster: ScopedClusterView;
  diagnosis: ScopedDiagnosis;
  posture: ScopedPosture;
  scannerReports: ScopedScannerReports;
  customResources: CustomResourceCatalog;
  helmReleases: HelmReleaseSource;
}

/** `whole` cut to `tenantNamespaces` (empty: every non-system namespace; spec §1 "Namespace blocklist"). */
export function scopeAnswers(whole: WholeCluster, tenantNamespaces: readonly string[]): ScopedAnswers {
  const names = [...tenantNamespaces];
  const inScope = (namespace: string) => isVisibleNamespace(namespace, names);
  return {
    cluster: scopeClusterView(whole.cluster, names),
    diagnosis: scopeDiagnosis(() => whole.diagnosis.current(), inScope),
    posture: scopePosture(() => whole.posture.current(), inScope),
    scannerReports: scopeScannerReports(() => whole.scannerReports.current(), inScope),
    customResources: scopeCustomResources(whole.customResources, inScope),
    helmReleases: scopeHelmReleases(whole.helmReleases, inScope),
  };
}
