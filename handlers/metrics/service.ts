export interface HistoryPointValues {
  ts: number;
  cpuM: number | null;
  memBytes: number | null;
  rxBps: number | null;
  txBps: number | null;
}

/** The resource-history store as handlers read it (samples every 60 s, 7 days). */
export interface HistoryReader {
  query(q: { scope: 'cluster' | 'namespace' | 'pod'; namespace?: string; pod?: string; from: Date; to: Date; buckets: number }): Promise<{ bucketSecs: number; points: HistoryPointValues[] }>;
}

export interface NetworkRate {
  rxBps: number;
  txBps: number;
}

/** Pod network from each node's kubelet container metrics (METRICS_KUBELET_SCRAPE). */
export interface NetworkView {
  /** Whether the scrape is on and how its last round went. */
  status(): { enabled: boolean; lastScrapeOk: boolean; lastScrapeError: string | null };
  /** Rates between the last two scrapes, keyed `namespace/pod`; a pod whose counters went back (a restart) is absent. */
  podRates(): ReadonlyMap<string, NetworkRate>;
}
