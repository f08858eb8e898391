import type { CacheSyncStatus, ClusterView, NamespaceObject } from '../../handlers/context.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { slimNamespace } from './slim.ts';

/** The informers behind ClusterView. Handlers read these maps; no request ever LISTs the API server. */
export class ClusterCache implements ClusterView {
  private readonly namespaceInformer: Informer<NamespaceObject>;

  constructor(transport: KubeTransport, log: Logger) {
    const informerLog = log.child('informer');
    this.namespaceInformer = new Informer({
      resource: 'namespaces',
      path: '/api/v1/namespaces',
      transport,
      slim: slimNamespace,
      log: informerLog,
    });
  }

  private get informers(): Informer<unknown>[] {
    return [this.namespaceInformer];
  }

  /** Resolves when every informer has synced once. */
  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }

  namespaces(): readonly NamespaceObject[] {
    return this.namespaceInformer.values();
  }

  syncStatus(): readonly CacheSyncStatus[] {
    return this.informers.map((i) => ({ resource: i.resource, synced: i.hasSynced() }));
  }
}
