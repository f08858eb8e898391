// The built-in resource-history sampler: every 60 s, the latest metrics.k8s.io snapshot of
// every visible pod goes into the history store. Namespaces Capstan may not show are never
// recorded, so cluster totals are totals of what Capstan shows.
import type { AgentSettings, Clock, ClusterView } from '../../handlers/context.ts';
import { isVisibleNamespace } from '../../handlers/namespaces/visibility.ts';
import type { Logger } from '../log.ts';
import type { HistoryStore } from './history-store.ts';

export const SAMPLE_INTERVAL_MS = 60_000;

export class HistorySampler {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: HistoryStore,
    private readonly cluster: ClusterView,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly intervalMs = SAMPLE_INTERVAL_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Records one sample per visible pod from the latest snapshot (metrics-server refreshes it every 30 s). */
  async tick(): Promise<void> {
    const metrics = this.cluster.metrics();
    if (!metrics.available) return;
    const samples = [];
    for (const [key, usage] of metrics.pods) {
      const slash = key.indexOf('/');
      const namespace = key.slice(0, slash);
      if (!isVisibleNamespace(namespace, this.settings.tenantNamespaces)) continue;
      samples.push({ namespace, pod: key.slice(slash + 1), cpuM: usage.cpuM, memBytes: usage.memBytes, rxBytes: null, txBytes: null });
    }
    try {
      await this.store.record(this.clock.now(), samples);
    } catch (err) {
      this.log.error('history sample failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.store.flush();
  }
}
