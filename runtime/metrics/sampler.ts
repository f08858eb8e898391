// The built-in resource-history sampler: every 60 s, the latest metrics.k8s.io snapshot of
// every visible pod goes into the history store. Namespaces Capstan may not show are never
// recorded, so cluster totals are totals of what Capstan shows.
import type { AgentSettings } from '../../handlers/context.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { isVisibleNamespace } from '../../domain/namespaces/visibility.ts';
import { HISTORY_SAMPLE_INTERVAL_SECS } from '../../schema/metrics.ts';
import type { Logger } from '../log.ts';
import type { PodCounters } from './container-network.ts';
import type { HistoryStore, PodSample } from './history-store.ts';

/** The kubelet network scrape as the sampler drives it (absent when METRICS_KUBELET_SCRAPE is off). */
export interface NetworkCounterSource {
  scrape(): Promise<ReadonlyMap<string, PodCounters>>;
}

export const SAMPLE_INTERVAL_MS = HISTORY_SAMPLE_INTERVAL_SECS * 1000;

export class HistorySampler {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: HistoryStore,
    private readonly cluster: ClusterView,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly intervalMs = SAMPLE_INTERVAL_MS,
    private readonly network: NetworkCounterSource | null = null,
  ) {}

  start(): void {
    let running = false;
    // A slow scrape must not stack ticks up behind it: the next one waits for the next interval.
    this.timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.tick().finally(() => (running = false));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Records one sample per visible pod from the latest usage snapshot (metrics-server refreshes it every 30 s) and a fresh network scrape. */
  async tick(): Promise<void> {
    const metrics = this.cluster.metrics();
    const usage = metrics.available ? metrics.pods : new Map<string, never>();
    const network = this.network ? await this.network.scrape() : new Map<string, PodCounters>();
    const samples: PodSample[] = [];
    for (const key of new Set([...usage.keys(), ...network.keys()])) {
      const slash = key.indexOf('/');
      const namespace = key.slice(0, slash);
      if (!isVisibleNamespace(namespace, this.settings.tenantNamespaces)) continue;
      const u = usage.get(key);
      const n = network.get(key);
      samples.push({ namespace, pod: key.slice(slash + 1), cpuM: u?.cpuM ?? null, memBytes: u?.memBytes ?? null, rxBytes: n?.rxBytes ?? null, txBytes: n?.txBytes ?? null, netAtMs: n?.atMs ?? null });
    }
    if (samples.length === 0) return;
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
