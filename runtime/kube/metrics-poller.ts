// Pod usage from metrics.k8s.io, refreshed in the background (one cluster-wide LIST per
// interval, or one per watched namespace, never per HTTP request). When metrics-server is
// absent or RBAC refuses it, the snapshot says why.
import type { Clock } from '../../domain/clock.ts';
import type { MetricsSnapshot, PodUsage } from '../../domain/cluster/model.ts';
import { bytes, millicores } from '../../domain/resources/quantity.ts';
import type { Logger } from '../log.ts';
import { KubeApiError, type KubeTransport } from './client.ts';
import { namespacedPath } from './watch-scope.ts';

const PATH = '/apis/metrics.k8s.io/v1beta1/pods';

interface RawPodMetrics {
  metadata?: { name?: string; namespace?: string };
  containers?: { usage?: { cpu?: string; memory?: string } }[];
}

export class MetricsPoller {
  private snapshot: MetricsSnapshot = { available: false, reason: 'pod metrics have not been read yet' };
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly transport: KubeTransport,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** Null: one cluster-wide LIST; else one LIST per namespace (CAPSTAN_WATCH_SCOPE=namespaces). */
    private readonly watched: readonly string[] | null = null,
    private readonly intervalMs = 30_000,
  ) {}

  current(): MetricsSnapshot {
    return this.snapshot;
  }

  /** Resolves after the first attempt, successful or not. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async poll(): Promise<void> {
    const sources = this.watched === null ? [{ path: PATH, where: '' }] : this.watched.map((ns) => ({ path: namespacedPath(PATH, ns), where: ` in namespace ${ns}` }));
    const pods = new Map<string, PodUsage>();
    for (const { path, where } of sources) {
      try {
        await this.read(path, pods);
      } catch (err) {
        // One unreadable namespace makes the usage incomplete: unavailable, with the reason, rather than silently partial.
        const reason =
          err instanceof KubeApiError && err.status === 404
            ? 'metrics-server is not installed: the API server does not serve metrics.k8s.io'
            : `metrics.k8s.io could not be read${where}: ${err instanceof Error ? err.message : String(err)}`;
        if (this.snapshot.available || this.snapshot.reason !== reason) this.log.warn('pod metrics unavailable', { reason });
        this.snapshot = { available: false, reason };
        return;
      }
    }
    this.snapshot = { available: true, at: this.clock.now().toISOString(), pods };
  }

  private async read(path: string, into: Map<string, PodUsage>): Promise<void> {
    let continueToken: string | undefined;
    do {
      const page = await this.transport.list(path, continueToken ? { limit: '1000', continue: continueToken } : { limit: '1000' });
      for (const item of page.items as RawPodMetrics[]) {
        const { name, namespace } = item.metadata ?? {};
        if (!name || !namespace) continue;
        let cpuM = 0;
        let memBytes = 0;
        for (const c of item.containers ?? []) {
          cpuM += millicores(c.usage?.cpu) ?? 0;
          memBytes += bytes(c.usage?.memory) ?? 0;
        }
        into.set(`${namespace}/${name}`, { cpuM, memBytes });
      }
      continueToken = page.continueToken;
    } while (continueToken);
  }
}
