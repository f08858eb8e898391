import type { CacheSyncStatus, Clock, ClusterView, EventObject, MetricsSnapshot, NamespacedName, NamespaceObject, NodeObject, PodObject, PvcObject, WorkloadObject } from '../../handlers/context.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { MetricsPoller } from './metrics-poller.ts';
import { slimPod } from './slim-pod.ts';
import { slimDaemonSet, slimDeployment, slimEvent, slimNamespace, slimNode, slimPvc, slimService } from './slim.ts';

/** The informers behind ClusterView. Handlers read these maps; no request ever LISTs the API server. */
export class ClusterCache implements ClusterView {
  private readonly namespaceInformer: Informer<NamespaceObject>;
  private readonly podInformer: Informer<PodObject>;
  private readonly nodeInformer: Informer<NodeObject>;
  private readonly eventInformer: Informer<EventObject>;
  private readonly deploymentInformer: Informer<WorkloadObject>;
  private readonly daemonSetInformer: Informer<WorkloadObject>;
  private readonly serviceInformer: Informer<NamespacedName>;
  private readonly pvcInformer: Informer<PvcObject>;
  private readonly metricsPoller: MetricsPoller;

  constructor(transport: KubeTransport, clock: Clock, log: Logger) {
    const informerLog = log.child('informer');
    const informer = <T>(resource: string, path: string, slim: (raw: unknown) => T | null) => new Informer<T>({ resource, path, transport, slim, log: informerLog });
    this.namespaceInformer = informer('namespaces', '/api/v1/namespaces', slimNamespace);
    this.podInformer = informer('pods', '/api/v1/pods', slimPod);
    this.nodeInformer = informer('nodes', '/api/v1/nodes', slimNode);
    this.eventInformer = informer('events', '/api/v1/events', slimEvent);
    this.deploymentInformer = informer('deployments', '/apis/apps/v1/deployments', slimDeployment);
    this.daemonSetInformer = informer('daemonsets', '/apis/apps/v1/daemonsets', slimDaemonSet);
    this.serviceInformer = informer('services', '/api/v1/services', slimService);
    this.pvcInformer = informer('persistentvolumeclaims', '/api/v1/persistentvolumeclaims', slimPvc);
    this.metricsPoller = new MetricsPoller(transport, clock, log.child('metrics'));
  }

  private get informers(): Informer<unknown>[] {
    return [this.namespaceInformer, this.podInformer, this.nodeInformer, this.eventInformer, this.deploymentInformer, this.daemonSetInformer, this.serviceInformer, this.pvcInformer];
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

  workloads(): readonly WorkloadObject[] {
    return [...this.deploymentInformer.values(), ...this.daemonSetInformer.values()];
  }

  services(): readonly NamespacedName[] {
    return this.serviceInformer.values();
  }

  pvcs(): readonly PvcObject[] {
    return this.pvcInformer.values();
  }

  metrics(): MetricsSnapshot {
    return this.metricsPoller.current();
  }

  syncStatus(): readonly CacheSyncStatus[] {
    return this.informers.map((i) => ({ resource: i.resource, synced: i.hasSynced(), failing_since: i.failingSince()?.toISOString() ?? null }));
  }

  staleSince(): string | null {
    const times = this.informers.map((i) => i.failingSince()?.getTime()).filter((t): t is number => t !== undefined);
    return times.length === 0 ? null : new Date(Math.min(...times)).toISOString();
  }
}
