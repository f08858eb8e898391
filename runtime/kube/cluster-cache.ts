import type { CacheSyncStatus, ClusterView, ControllerObject, EndpointSliceObject, EventObject, HpaObject, IngressClassObject, IngressObject, LeaseObject, LimitRangeObject, MetricsSnapshot, NamespacedName, NamespaceObject, NodeObject, PdbObject, PodObject, PvcObject, PvObject, ResourceQuotaObject, SecretObject, ServiceObject, StorageClassObject, WorkloadObject } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { MetricsPoller } from './metrics-poller.ts';
import { slimPod } from './slim-pod.ts';
import { slimEndpointSlice, slimHpa, slimIngressClass, slimLease, slimLimitRange, slimPdb, slimResourceQuota, slimStorageClass } from './slim-policy.ts';
import { slimConfigMap, slimController, slimDaemonSet, slimDeployment, slimEvent, slimIngress, slimNamespace, slimNode, slimPv, slimPvc, slimSecret, slimService } from './slim.ts';

/** The informers behind ClusterView. Handlers read these maps; no request ever LISTs the API server. */
export class ClusterCache implements ClusterView {
  private readonly namespaceInformer: Informer<NamespaceObject>;
  private readonly podInformer: Informer<PodObject>;
  private readonly nodeInformer: Informer<NodeObject>;
  private readonly eventInformer: Informer<EventObject>;
  private readonly deploymentInformer: Informer<WorkloadObject>;
  private readonly daemonSetInformer: Informer<WorkloadObject>;
  private readonly serviceInformer: Informer<ServiceObject>;
  private readonly pvcInformer: Informer<PvcObject>;
  private readonly controllerInformers: Informer<ControllerObject>[];
  private readonly ingressInformer: Informer<IngressObject>;
  private readonly configMapInformer: Informer<NamespacedName>;
  private readonly secretInformer: Informer<SecretObject>;
  private readonly pvInformer: Informer<PvObject>;
  private readonly endpointSliceInformer: Informer<EndpointSliceObject>;
  private readonly ingressClassInformer: Informer<IngressClassObject>;
  private readonly storageClassInformer: Informer<StorageClassObject>;
  private readonly leaseInformer: Informer<LeaseObject>;
  private readonly quotaInformer: Informer<ResourceQuotaObject>;
  private readonly limitRangeInformer: Informer<LimitRangeObject>;
  private readonly hpaInformer: Informer<HpaObject>;
  private readonly pdbInformer: Informer<PdbObject>;
  private readonly metricsPoller: MetricsPoller;

  // Nodes and the cluster model's kinds are optional: an agent whose RBAC leaves them out
  // (rbac.readSecrets off, namespaced install) still serves everything else.
  constructor(transport: KubeTransport, clock: Clock, log: Logger) {
    const informerLog = log.child('informer');
    const informer = <T>(resource: string, path: string, slim: (raw: unknown) => T | null, optional = false) => new Informer<T>({ resource, path, transport, slim, log: informerLog, optional });
    this.namespaceInformer = informer('namespaces', '/api/v1/namespaces', slimNamespace);
    this.podInformer = informer('pods', '/api/v1/pods', slimPod);
    this.nodeInformer = informer('nodes', '/api/v1/nodes', slimNode, true);
    this.eventInformer = informer('events', '/api/v1/events', slimEvent);
    this.deploymentInformer = informer('deployments', '/apis/apps/v1/deployments', slimDeployment);
    this.daemonSetInformer = informer('daemonsets', '/apis/apps/v1/daemonsets', slimDaemonSet);
    this.serviceInformer = informer('services', '/api/v1/services', slimService);
    this.pvcInformer = informer('persistentvolumeclaims', '/api/v1/persistentvolumeclaims', slimPvc);
    this.controllerInformers = [
      informer('replicasets', '/apis/apps/v1/replicasets', slimController('ReplicaSet'), true),
      informer('statefulsets', '/apis/apps/v1/statefulsets', slimController('StatefulSet'), true),
      informer('jobs', '/apis/batch/v1/jobs', slimController('Job'), true),
      informer('cronjobs', '/apis/batch/v1/cronjobs', slimController('CronJob'), true),
    ];
    this.ingressInformer = informer('ingresses', '/apis/networking.k8s.io/v1/ingresses', slimIngress, true);
    this.configMapInformer = informer('configmaps', '/api/v1/configmaps', slimConfigMap, true);
    this.secretInformer = informer('secrets', '/api/v1/secrets', slimSecret, true);
    this.pvInformer = informer('persistentvolumes', '/api/v1/persistentvolumes', slimPv, true);
    // What the diagnosis reads to explain failures (docs/diagnosis.md): each optional, so a
    // narrower RBAC leaves the analyzer that needs it silent (and says so) instead of unready.
    this.endpointSliceInformer = informer('endpointslices', '/apis/discovery.k8s.io/v1/endpointslices', slimEndpointSlice, true);
    this.ingressClassInformer = informer('ingressclasses', '/apis/networking.k8s.io/v1/ingressclasses', slimIngressClass, true);
    this.storageClassInformer = informer('storageclasses', '/apis/storage.k8s.io/v1/storageclasses', slimStorageClass, true);
    this.leaseInformer = informer('leases', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', slimLease, true);
    this.quotaInformer = informer('resourcequotas', '/api/v1/resourcequotas', slimResourceQuota, true);
    this.limitRangeInformer = informer('limitranges', '/api/v1/limitranges', slimLimitRange, true);
    this.hpaInformer = informer('horizontalpodautoscalers', '/apis/autoscaling/v2/horizontalpodautoscalers', slimHpa, true);
    this.pdbInformer = informer('poddisruptionbudgets', '/apis/policy/v1/poddisruptionbudgets', slimPdb, true);
    this.metricsPoller = new MetricsPoller(transport, clock, log.child('metrics'));
  }

  private get informers(): Informer<unknown>[] {
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
    await Promise.all([...this.informers.map((i) => i.start()), this.metricsPoller.start()]);
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
    this.metricsPoller.stop();
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

  syncStatus(): readonly CacheSyncStatus[] {
    return this.informers.map((i) => ({ resource: i.resource, synced: i.hasSynced(), failing_since: i.failingSince()?.toISOString() ?? null, forbidden: i.isForbidden() }));
  }

  staleSince(): string | null {
    const times = this.informers.map((i) => i.failingSince()?.getTime()).filter((t): t is number => t !== undefined);
    return times.length === 0 ? null : new Date(Math.min(...times)).toISOString();
  }
}

/**
 * Several informers' arrays as one, rebuilt only when one of them changed: like each
 * informer's values(), the result keeps its identity between changes.
 */
function joined<T>(parts: () => readonly (readonly T[])[]): () => readonly T[] {
  let last: readonly (readonly T[])[] = [];
  let all: readonly T[] = [];
  return () => {
    const now = parts();
    if (now.length !== last.length || now.some((part, i) => part !== last[i])) {
      last = now;
      all = now.flat();
    }
    return all;
  };
}
