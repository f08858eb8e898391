import type { ConfigAuditReportObject, ScannerReportStatus, VulnerabilityReportObject } from '../../domain/security/trivy-reports.ts';
import type { CacheSyncStatus, ClusterView, ControllerObject, EndpointSliceObject, EventObject, HpaObject, IngressClassObject, IngressObject, LeaseObject, LimitRangeObject, MetricsSnapshot, NamespacedName, NamespaceObject, NodeObject, PdbObject, PodObject, PvcObject, PvObject, ResourceQuotaObject, SecretObject, ServiceObject, StorageClassObject, WorkloadObject } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { MetricsPoller } from './metrics-poller.ts';
import { joined, PerNamespaceInformer, type CacheSource } from './namespaced-informers.ts';
import { slimPod } from './slim-pod.ts';
import { REPORTS_API, ReportSource, slimConfigAuditReport, slimVulnerabilityReport } from './slim-reports.ts';
import { slimEndpointSlice, slimHpa, slimIngressClass, slimLease, slimLimitRange, slimPdb, slimResourceQuota, slimStorageClass } from './slim-policy.ts';
import { slimConfigMap, slimController, slimDaemonSet, slimDeployment, slimEvent, slimIngress, slimNamespace, slimNode, slimPv, slimPvc, slimSecret, slimService } from './slim.ts';
import { namespacedPath } from './watch-scope.ts';

/** Kept by identity, so what is derived from the reports is not derived again when none are read. */
const NO_VULN_REPORTS: readonly VulnerabilityReportObject[] = [];
const NO_AUDIT_REPORTS: readonly ConfigAuditReportObject[] = [];

/** The informers behind ClusterView. Handlers read these maps; no request ever LISTs the API server. */
export class ClusterCache implements ClusterView {
  private readonly namespaceInformer: CacheSource<NamespaceObject>;
  private readonly podInformer: CacheSource<PodObject>;
  private readonly nodeInformer: CacheSource<NodeObject>;
  private readonly eventInformer: CacheSource<EventObject>;
  private readonly deploymentInformer: CacheSource<WorkloadObject>;
  private readonly daemonSetInformer: CacheSource<WorkloadObject>;
  private readonly serviceInformer: CacheSource<ServiceObject>;
  private readonly pvcInformer: CacheSource<PvcObject>;
  private readonly controllerInformers: CacheSource<ControllerObject>[];
  private readonly ingressInformer: CacheSource<IngressObject>;
  private readonly configMapInformer: CacheSource<NamespacedName>;
  private readonly secretInformer: CacheSource<SecretObject>;
  private readonly pvInformer: CacheSource<PvObject>;
  private readonly endpointSliceInformer: CacheSource<EndpointSliceObject>;
  private readonly ingressClassInformer: CacheSource<IngressClassObject>;
  private readonly storageClassInformer: CacheSource<StorageClassObject>;
  private readonly leaseInformer: CacheSource<LeaseObject>;
  private readonly quotaInformer: CacheSource<ResourceQuotaObject>;
  private readonly limitRangeInformer: CacheSource<LimitRangeObject>;
  private readonly hpaInformer: CacheSource<HpaObject>;
  private readonly pdbInformer: CacheSource<PdbObject>;
  private readonly metricsPoller: MetricsPoller;
  /** trivy-operator's reports; null when the agent does not read them (readScannerReports false). */
  private readonly vulnReportSource: ReportSource<VulnerabilityReportObject> | null;
  private readonly auditReportSource: ReportSource<ConfigAuditReportObject> | null;

  /**
   * `watched`: null lists every namespaced kind cluster-wide; a list of namespaces lists each
   * of them on its own (CAPSTAN_WATCH_SCOPE=namespaces, for an install whose RBAC grants the
   * namespaced reads only as Roles there). Cluster-scoped kinds are listed cluster-wide either
   * way. Any LIST RBAC refuses is served empty and reported forbidden, never left unready.
   */
  constructor(transport: KubeTransport, clock: Clock, log: Logger, watched: readonly string[] | null = null, readScannerReports = true) {
    const informerLog = log.child('informer');
    const clusterWide = <T>(resource: string, path: string, slim: (raw: unknown) => T | null): CacheSource<T> => new Informer<T>({ resource, path, transport, slim, log: informerLog });
    const informer = <T>(resource: string, path: string, slim: (raw: unknown) => T | null, metadataOnly = false): CacheSource<T> =>
      watched === null
        ? new Informer<T>({ resource, path, transport, slim, log: informerLog, metadataOnly })
        : new PerNamespaceInformer(
            resource,
            watched.map((namespace) => new Informer<T>({ resource, namespace, path: namespacedPath(path, namespace), transport, slim, log: informerLog, metadataOnly })),
          );
    this.namespaceInformer = clusterWide('namespaces', '/api/v1/namespaces', slimNamespace);
    this.podInformer = informer('pods', '/api/v1/pods', slimPod);
    this.nodeInformer = clusterWide('nodes', '/api/v1/nodes', slimNode);
    this.eventInformer = informer('events', '/api/v1/events', slimEvent);
    this.deploymentInformer = informer('deployments', '/apis/apps/v1/deployments', slimDeployment);
    this.daemonSetInformer = informer('daemonsets', '/apis/apps/v1/daemonsets', slimDaemonSet);
    this.serviceInformer = informer('services', '/api/v1/services', slimService);
    this.pvcInformer = informer('persistentvolumeclaims', '/api/v1/persistentvolumeclaims', slimPvc);
    this.controllerInformers = [
      informer('replicasets', '/apis/apps/v1/replicasets', slimController('ReplicaSet')),
      informer('statefulsets', '/apis/apps/v1/statefulsets', slimController('StatefulSet')),
      informer('jobs', '/apis/batch/v1/jobs', slimController('Job')),
      informer('cronjobs', '/apis/batch/v1/cronjobs', slimController('CronJob')),
    ];
    this.ingressInformer = informer('ingresses', '/apis/networking.k8s.io/v1/ingresses', slimIngress);
    this.configMapInformer = informer('configmaps', '/api/v1/configmaps', slimConfigMap);
    // Metadata only: a Secret's data (and its type) is never sent to the agent (docs/install.md).
    this.secretInformer = informer('secrets', '/api/v1/secrets', slimSecret, true);
    this.pvInformer = clusterWide('persistentvolumes', '/api/v1/persistentvolumes', slimPv);
    // What the diagnosis reads to explain failures (docs/diagnosis.md): a narrower RBAC leaves
    // the analyzer that needs it silent (and says so) instead of unready.
    this.endpointSliceInformer = informer('endpointslices', '/apis/discovery.k8s.io/v1/endpointslices', slimEndpointSlice);
    this.ingressClassInformer = clusterWide('ingressclasses', '/apis/networking.k8s.io/v1/ingressclasses', slimIngressClass);
    this.storageClassInformer = clusterWide('storageclasses', '/apis/storage.k8s.io/v1/storageclasses', slimStorageClass);
    // Node heartbeats live in one system namespace whatever the scope.
    this.leaseInformer = clusterWide('leases', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', slimLease);
    this.quotaInformer = informer('resourcequotas', '/api/v1/resourcequotas', slimResourceQuota);
    this.limitRangeInformer = informer('limitranges', '/api/v1/limitranges', slimLimitRange);
    this.hpaInformer = informer('horizontalpodautoscalers', '/apis/autoscaling/v2/horizontalpodautoscalers', slimHpa);
    this.pdbInformer = informer('poddisruptionbudgets', '/apis/policy/v1/poddisruptionbudgets', slimPdb);
    this.metricsPoller = new MetricsPoller(transport, clock, log.child('metrics'), watched);
    // Scanner reports sit outside `informers`: an absent CRD or a refused list never holds
    // readiness back nor shows in /readyz; GET /security/findings says how they stand.
    const reports = <T>(resource: string, slim: (raw: unknown) => T | null): ReportSource<T> => {
      const path = `${REPORTS_API}/${resource}`;
      const probePath = watched === null || watched[0] === undefined ? path : namespacedPath(path, watched[0]);
      return new ReportSource(resource, probePath, transport, () => informer(resource, path, slim), informerLog);
    };
    this.vulnReportSource = readScannerReports ? reports('vulnerabilityreports', slimVulnerabilityReport) : null;
    this.auditReportSource = readScannerReports ? reports('configauditreports', slimConfigAuditReport) : null;
  }

  private get informers(): CacheSource<unknown>[] {
    return [
      this.namespaceInformer,
      this.podInformer,
      this.nodeInformer,
      this.eventInformer,
      this.deploymentInformer,
      this.daemonSetInformer,
      this.serviceInformer,
      this.pvcInformer,
      ...this.controllerInformers,
      this.ingressInformer,
      this.configMapInformer,
      this.secretInformer,
      this.pvInformer,
      this.endpointSliceInformer,
      this.ingressClassInformer,
      this.storageClassInformer,
      this.leaseInformer,
      this.quotaInformer,
      this.limitRangeInformer,
      this.hpaInformer,
      this.pdbInformer,
    ];
  }

  /** Resolves when every informer has synced once and pod metrics were tried once. */
  async start(): Promise<void> {
    this.vulnReportSource?.start();
    this.auditReportSource?.start();
    await Promise.all([...this.informers.map((i) => i.start()), this.metricsPoller.start()]);
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
    this.metricsPoller.stop();
    this.vulnReportSource?.stop();
    this.auditReportSource?.stop();
  }

  namespaces(): readonly NamespaceObject[] {
    return this.namespaceInformer.values();
  }

  pods(): readonly PodObject[] {
    return this.podInformer.values();
  }

  nodes(): readonly NodeObject[] {
    return this.nodeInformer.values();
  }

  events(): readonly EventObject[] {
    return this.eventInformer.values();
  }

  private readonly allWorkloads = joined(() => [this.deploymentInformer.values(), this.daemonSetInformer.values()]);
  workloads(): readonly WorkloadObject[] {
    return this.allWorkloads();
  }

  services(): readonly ServiceObject[] {
    return this.serviceInformer.values();
  }

  private readonly allControllers = joined(() => this.controllerInformers.map((i) => i.values()));
  controllers(): readonly ControllerObject[] {
    return this.allControllers();
  }

  ingresses(): readonly IngressObject[] {
    return this.ingressInformer.values();
  }

  configMaps(): readonly NamespacedName[] {
    return this.configMapInformer.values();
  }

  secrets(): readonly SecretObject[] {
    return this.secretInformer.values();
  }

  pvs(): readonly PvObject[] {
    return this.pvInformer.values();
  }

  pvcs(): readonly PvcObject[] {
    return this.pvcInformer.values();
  }

  endpointSlices(): readonly EndpointSliceObject[] {
    return this.endpointSliceInformer.values();
  }

  ingressClasses(): readonly IngressClassObject[] {
    return this.ingressClassInformer.values();
  }

  storageClasses(): readonly StorageClassObject[] {
    return this.storageClassInformer.values();
  }

  nodeLeases(): readonly LeaseObject[] {
    return this.leaseInformer.values();
  }

  resourceQuotas(): readonly ResourceQuotaObject[] {
    return this.quotaInformer.values();
  }

  limitRanges(): readonly LimitRangeObject[] {
    return this.limitRangeInformer.values();
  }

  hpas(): readonly HpaObject[] {
    return this.hpaInformer.values();
  }

  pdbs(): readonly PdbObject[] {
    return this.pdbInformer.values();
  }

  metrics(): MetricsSnapshot {
    return this.metricsPoller.current();
  }

  vulnerabilityReports(): readonly VulnerabilityReportObject[] {
    return this.vulnReportSource?.values() ?? NO_VULN_REPORTS;
  }

  configAuditReports(): readonly ConfigAuditReportObject[] {
    return this.auditReportSource?.values() ?? NO_AUDIT_REPORTS;
  }

  scannerReportStatus(): ScannerReportStatus {
    return { vulnerabilityreports: this.vulnReportSource?.state() ?? 'off', configauditreports: this.auditReportSource?.state() ?? 'off' };
  }

  syncStatus(): readonly CacheSyncStatus[] {
    return this.informers.map((i) => i.status());
  }

  /** Asked on every response (the stale-cache header): reads each source's failure time, builds no status. */
  staleSince(): string | null {
    let earliest: Date | null = null;
    for (const source of this.informers) {
      const since = source.failingSince();
      if (since !== null && (earliest === null || since < earliest)) earliest = since;
    }
    return earliest?.toISOString() ?? null;
  }
}
