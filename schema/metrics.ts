import * as v from 'valibot';
import { kubeName } from './common.ts';

/** Resource history takes one sample a minute (runtime/metrics/sampler.ts). */
export const HISTORY_SAMPLE_INTERVAL_SECS = 60 as const;
/** and keeps seven days of them (runtime/metrics/history-store.ts). */
export const HISTORY_RETENTION_DAYS = 7 as const;

export const HISTORY_WINDOWS = { '1h': 3600, '6h': 6 * 3600, '24h': 24 * 3600, '7d': 7 * 86400 } as const;
export const HistoryWindow = v.picklist(['1h', '6h', '24h', '7d'], 'window must be 1h, 6h, 24h or 7d');
export type HistoryWindow = v.InferOutput<typeof HistoryWindow>;


export const HistoryInput = v.object({
  scope: v.optional(v.picklist(['cluster', 'namespace', 'pod'], 'scope must be cluster, namespace or pod'), 'cluster'),
  namespace: v.optional(kubeName('namespace')),
  /** The pod, with scope=pod. */
  name: v.optional(kubeName('name')),
  window: v.optional(HistoryWindow, '1h'),
});

export const HistoryPoint = v.object({
  /** Bucket start, epoch seconds. */
  ts: v.number(),
  cpu_millicores: v.nullable(v.number()),
  mem_bytes: v.nullable(v.number()),
  net_rx_bps: v.nullable(v.number()),
  net_tx_bps: v.nullable(v.number()),
});

export const History = v.object({
  available: v.boolean(),
  /** Where the points come from: Capstan's own samples, or the configured Prometheus (PUT /metrics/source). */
  source: v.picklist(['builtin', 'prometheus']),
  /** Why there is nothing to show, when available is false. */
  reason: v.optional(v.string()),
  scope: v.picklist(['cluster', 'namespace', 'pod']),
  namespace: v.nullable(v.string()),
  name: v.nullable(v.string()),
  window: HistoryWindow,
  bucket_secs: v.number(),
  sample_interval_secs: v.literal(HISTORY_SAMPLE_INTERVAL_SECS),
  retention_days: v.literal(HISTORY_RETENTION_DAYS),
  network: v.object({ enabled: v.boolean(), available: v.boolean(), last_scrape_ok: v.boolean(), last_scrape_error: v.nullable(v.string()) }),
  series: v.array(HistoryPoint),
});
