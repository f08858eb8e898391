// Which resource-history series exist (metric_series), and the in-memory state of each: its
// open blocks, its accumulating 10-minute slot, and where its counters stood.
import type { Db } from '../store/database.ts';
import { CounterTrack, type Weighted } from './points.ts';

export const RAW = 0;
export const TIER = 1;
export type Tier = typeof RAW | typeof TIER;

export type Kind = 'pod' | 'namespace' | 'cluster';

/** One block being filled (or sealed and waiting to be written). */
export interface Buf {
  tier: Tier;
  start: number;
  ts: number[];
  cols: (number | null)[][];
  /** The row holding an earlier, partial copy of this block (written by flush()), if any. */
  rowId: number | null;
}

export interface Series {
  id: number;
  kind: Kind;
  namespace: string;
  pod: string;
  raw: Buf | null;
  tier: Buf | null;
  /** The current 10-minute slot, accumulating. */
  slot: Weighted | null;
  rx: CounterTrack;
  tx: CounterTrack;
  /** The last tick with data, epoch s: when this is 7 days old, the series goes. */
  lastTs: number;
}

export function chunks<T>(items: readonly T[], size = 200): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class SeriesRegistry {
  readonly byId = new Map<number, Series>();
  private readonly pods = new Map<string, Map<string, Series>>();
  private readonly namespaces = new Map<string, Series>();
  private clusterSeries: Series | null = null;

  constructor(private readonly db: Db) {}

  async load(): Promise<void> {
    const rows = await this.db.selectFrom('metric_series').select(['id', 'kind', 'namespace', 'pod', 'last_seen']).execute();
    for (const row of rows) this.remember(row.id, row.kind, row.namespace, row.pod, Math.floor(row.last_seen / 1000));
  }

  get cluster(): Series | null {
    return this.clusterSeries;
  }

  pod(namespace: string, pod: string): Series | undefined {
    return this.pods.get(namespace)?.get(pod);
  }

  namespace(namespace: string): Series | undefined {
    return this.namespaces.get(namespace);
  }

  /** Makes the series of pods (and their namespaces, and the cluster) seen for the first time. */
  async createMissing(samples: readonly { namespace: string; pod: string }[], nowMs: number): Promise<void> {
    const missing = new Map<string, { kind: Kind; namespace: string; pod: string }>();
    for (const s of samples) {
      if (!this.pod(s.namespace, s.pod)) missing.set(`p/${s.namespace}/${s.pod}`, { kind: 'pod', namespace: s.namespace, pod: s.pod });
      if (!this.namespaces.has(s.namespace)) missing.set(`n/${s.namespace}`, { kind: 'namespace', namespace: s.namespace, pod: '' });
    }
    if (!this.clusterSeries && samples.length > 0) missing.set('c', { kind: 'cluster', namespace: '', pod: '' });
    if (missing.size === 0) return;
    const created = await this.db.transaction().execute(async (trx) => {
      const rows: { id: number; kind: Kind; namespace: string; pod: string }[] = [];
      for (const chunk of chunks([...missing.values()])) {
        const inserted = await trx
          .insertInto('metric_series')
          .values(chunk.map((m) => ({ ...m, first_seen: nowMs, last_seen: nowMs })))
          // Another writer of the same file may have made it: take its id.
          .onConflict((oc) => oc.columns(['kind', 'namespace', 'pod']).doUpdateSet({ last_seen: nowMs }))
          .returning(['id', 'kind', 'namespace', 'pod'])
          .execute();
        rows.push(...inserted);
      }
      return rows;
    });
    for (const row of created) this.remember(row.id, row.kind, row.namespace, row.pod, Math.floor(nowMs / 1000));
  }

  forget(series: Series): void {
    this.byId.delete(series.id);
    if (series.kind === 'cluster') this.clusterSeries = null;
    else if (series.kind === 'namespace') this.namespaces.delete(series.namespace);
    else this.pods.get(series.namespace)?.delete(series.pod);
  }

  private remember(id: number, kind: Kind, namespace: string, pod: string, lastTs: number): void {
    const series: Series = { id, kind, namespace, pod, raw: null, tier: null, slot: null, rx: new CounterTrack(), tx: new CounterTrack(), lastTs };
    this.byId.set(id, series);
    if (kind === 'cluster') this.clusterSeries = series;
    else if (kind === 'namespace') this.namespaces.set(namespace, series);
    else {
      let inNamespace = this.pods.get(namespace);
      if (!inNamespace) this.pods.set(namespace, (inNamespace = new Map<string, Series>()));
      inNamespace.set(pod, series);
    }
  }
}
