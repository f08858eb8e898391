// METRICS_KUBELET_SCRAPE: each node's kubelet container metrics (directly or through the API
// server's node proxy: runtime/kube/kubelet.ts), once per history sample. The sampler stores
// the raw counters; rates are derived when read. The latest two scrapes also give each pod's
// current rate for /apps/{id}/metrics.
//
// Each pod's counters carry when they were current (container-network.ts): what the endpoint
// says (a sample timestamp, container_last_seen), else the time its node answered, taken as
// each node answers. One time for the whole scrape, taken once the slowest node had answered,
// would put a fast node's counters late by that wait, and a rate over a short interval is off
// by the same fraction (issue 11, item 16).
import type { Clock } from '../../domain/clock.ts';
import type { NetworkRate, NetworkView } from '../../handlers/metrics/service.ts';
import type { NodeObject } from '../../domain/cluster/model.ts';
import type { KubeletReader } from '../kube/kubelet.ts';
import type { Logger } from '../log.ts';
import { podNetworkCounters, type PodCounters } from './container-network.ts';
import { MAX_COUNTER_GAP_SECS } from './points.ts';

/** Nodes read at once: enough to finish 50 nodes in a few seconds, few enough not to flood the API server. */
const PARALLEL = 8;

interface Scrape {
  counters: ReadonlyMap<string, PodCounters>;
}

/**
 * Rates between two scrapes, each pod over the time between its own two readings; a pod whose
 * counters went back (a restart), that is in only one, or whose readings are not in order or too
 * far apart has none.
 */
export function ratesBetween(previous: Scrape, latest: Scrape): Map<string, NetworkRate> {
  const rates = new Map<string, NetworkRate>();
  for (const [pod, now] of latest.counters) {
    const before = previous.counters.get(pod);
    if (!before || now.rxBytes < before.rxBytes || now.txBytes < before.txBytes) continue;
    const secs = (now.atMs - before.atMs) / 1000;
    if (secs <= 0 || secs > MAX_COUNTER_GAP_SECS) continue;
    rates.set(pod, { rxBps: (now.rxBytes - before.rxBytes) / secs, txBps: (now.txBytes - before.txBytes) / secs });
  }
  return rates;
}

export class KubeletNetworkScraper implements NetworkView {
  private latest: Scrape | null = null;
  private rates: ReadonlyMap<string, NetworkRate> = new Map();
  private lastScrapeOk = false;
  private lastScrapeError: string | null = null;

  constructor(
    private readonly readKubelet: KubeletReader,
    private readonly nodes: () => readonly NodeObject[],
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  status() {
    return { enabled: true, lastScrapeOk: this.lastScrapeOk, lastScrapeError: this.lastScrapeError };
  }

  podRates(): ReadonlyMap<string, NetworkRate> {
    return this.rates;
  }

  /** Reads every node once; returns the counters of every pod on the nodes that answered. */
  async scrape(): Promise<ReadonlyMap<string, PodCounters>> {
    const nodes = [...this.nodes()];
    const counters = new Map<string, PodCounters>();
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < nodes.length) {
        const node = nodes[next++];
        if (!node) break;
        try {
          const text = await this.readKubelet(node);
          for (const [pod, c] of podNetworkCounters(text, this.clock.now().getTime())) counters.set(pod, c);
        } catch (err) {
          failures.push(`${node.name}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, nodes.length) }, worker));
    const scrape = { counters };
    if (this.latest) this.rates = ratesBetween(this.latest, scrape);
    this.latest = scrape;
    const error = nodes.length === 0 ? 'no nodes to scrape' : failures.length > 0 ? `${failures.length} of ${nodes.length} nodes failed; ${failures[0]}` : null;
    if (error !== null && error !== this.lastScrapeError) this.log.warn('kubelet network scrape failed', { error });
    this.lastScrapeOk = error === null;
    this.lastScrapeError = error;
    return counters;
  }
}

/** METRICS_KUBELET_SCRAPE off: no network anywhere, and every answer says so. */
export const networkOff: NetworkView = {
  status: () => ({ enabled: false, lastScrapeOk: false, lastScrapeError: null }),
  podRates: () => new Map(),
};
