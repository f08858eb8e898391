// Capstan's built-in resource history: per-pod CPU, memory and network counters sampled
// every 60 s, kept 7 days, read back as ~120 buckets per chart.
//
// Storage (runtime/store/migrations.ts, migration 5). Budget: 5000 pods x 7 days in 200 MiB, so no row per sample:
// - a series is a pod, a namespace (sum over its pods) or the cluster (sum over all pods).
//   The two sums are kept at write time, so a cluster or namespace chart reads one series,
//   not 5000;
// - each series' samples are buffered in memory and written as one row per block
//   (codec.ts), in one transaction per block boundary for all series;
// - tier 0 holds raw samples in one-hour blocks for ~26 h: exact values, and for pods the raw
//   cumulative counters with the time they were read (to the ms: a tick's whole second is no
//   measure of a counter's interval), from which rates are derived when read;
// - tier 1 holds 10-minute points in six-hour blocks for 7 days: a 7-day chart reads ~1008
//   points of one series instead of 10080. A window reaching back past 25 h reads tier 1.
// What each form means, and how buckets combine them, is in points.ts.
// Measured by scripts/bench-history.ts (5000 pods x 7 days of noisy synthetic samples):
// 122 MiB on disk; raw blocks ~7 bytes a sample (all four values), 10-minute blocks ~9 bytes
// a point, the rest row, page and index overhead.
// Buffered samples answer queries alongside the stored rows; every operation runs in turn
// (one queue), so a query never sees a block both in memory and in its row, nor in neither.
import type { Clock } from '../../domain/clock.ts';
import { RAW_HORIZON_SECS, TEN_MINUTE_SECS as SLOT_SECS, planBuckets } from '../../domain/history/buckets.ts';
import { HISTORY_RETENTION_DAYS } from '../../schema/metrics.ts';
import type { Db } from '../store/database.ts';
import { MAX_ABS, decodeBlock, encodeBlock } from './codec.ts';
import {
  TickSum,
  addInto,
  aggregateWeighted,
  blockPoints,
  bucketize,
  emptyWeighted,
  isEmpty,
  podPoint,
  readingMs,
  tierColumns,
  type HistoryPoint,
  type Point,
  type Weighted,
} from './points.ts';
import { RAW, SeriesRegistry, TIER, chunks, type Buf, type Series, type Tier } from './series-registry.ts';

export type { HistoryPoint } from './points.ts';

export interface PodSample {
  namespace: string;
  pod: string;
  cpuM: number | null;
  memBytes: number | null;
  /** Raw cumulative counters; lower than the previous value after a restart. */
  rxBytes: number | null;
  txBytes: number | null;
  /** When the counters were read, epoch ms (PodCounters.atMs); null without counters. */
  netAtMs: number | null;
}

export interface HistoryQuery {
  scope: 'cluster' | 'namespace' | 'pod';
  namespace?: string;
  pod?: string;
  from: Date;
  to: Date;
  buckets: number;
}

export interface HistoryResult {
  bucketSecs: number;
  points: HistoryPoint[];
}

const BLOCK_SECS: Record<Tier, number> = { [RAW]: 3600, [TIER]: 6 * 3600 };
const RETENTION_SECS = HISTORY_RETENTION_DAYS * 86400;
// Windows starting within RAW_HORIZON_SECS read raw samples; the raw tier is kept one block longer.
const KEEP_SECS: Record<Tier, number> = { [RAW]: RAW_HORIZON_SECS, [TIER]: RETENTION_SECS };
const PRUNE_EVERY_SECS = 60;

const gauge = (v: number | null): number | null => (v === null || !Number.isFinite(v) || v < 0 || v > MAX_ABS ? null : Math.round(v));
/** Counters past 2^50 bytes wrap, which reads as one reset: the codec is exact only below. */
const counter = (v: number | null): number | null => (v === null || !Number.isFinite(v) || v < 0 ? null : Math.round(v) % MAX_ABS);
const instant = (ms: number | null): number | null => (ms === null || !Number.isFinite(ms) || ms <= 0 || ms > MAX_ABS ? null : Math.round(ms));
const alignDown = (ts: number, secs: number): number => Math.floor(ts / secs) * secs;
const toBlob = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function addTo(sums: Map<Series, TickSum>, series: Series, point: Weighted): void {
  let sum = sums.get(series);
  if (!sum) sums.set(series, (sum = new TickSum()));
  sum.add(point);
}

export class HistoryStore {
  private readonly registry: SeriesRegistry;
  /** Blocks sealed but not yet committed (kept across a failed write, retried on the next). */
  private pending: { series: Series; buf: Buf }[] = [];
  private slotStart: number | null = null;
  private lastTick: number | null = null;
  private lastPrune: number | null = null;
  private readonly prunedThrough = new Map<Tier, number>();
  private loaded = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.registry = new SeriesRegistry(db);
  }

  /** One sampler tick for all pods. Writes the blocks the tick completes; prunes at most once a minute. */
  record(at: Date, samples: readonly PodSample[]): Promise<void> {
    return this.serial(async () => {
      const ts = Math.floor(at.getTime() / 1000);
      // A tick at or before the last one (clock stepped back) would break the time order.
      if (this.lastTick !== null && ts <= this.lastTick) return;
      this.rollOver(ts);
      await this.write(false);
      if (this.lastPrune === null || this.nowSecs() - this.lastPrune >= PRUNE_EVERY_SECS) await this.pruneNow(false);
      await this.registry.createMissing(samples, this.clock.now().getTime());
      this.ingest(ts, samples);
    });
  }

  /** Persists everything buffered, partial blocks included (shutdown); the buffers stay open. */
  flush(): Promise<void> {
    return this.serial(() => this.write(true));
  }

  prune(): Promise<void> {
    return this.serial(() => this.pruneNow(true));
  }

  query(q: HistoryQuery): Promise<HistoryResult> {
    return this.serial(async () => {
      // The tier and bucket size are the domain's one rule (handlers report the same size).
      const { tier: tierName, bucketSecs, startSecs: start, toSecs: to, count } = planBuckets(q.from, q.to, this.clock.now(), q.buckets);
      const now = this.nowSecs();
      const tier: Tier = tierName === 'raw' ? RAW : TIER;
      const series = this.lookup(q);
      const points = series ? await this.readPoints(series, tier, start, to) : [];
      const kept = points.filter((p) => p.ts >= now - RETENTION_SECS && p.ts < to);
      return { bucketSecs, points: bucketize(kept, start, bucketSecs, count) };
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      await this.load();
      return fn();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private nowSecs(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    await this.registry.load();
    this.loaded = true;
  }

  private lookup(q: HistoryQuery): Series | undefined {
    if (q.scope === 'cluster') return this.registry.cluster ?? undefined;
    if (q.scope === 'namespace') return this.registry.namespace(q.namespace ?? '');
    return this.registry.pod(q.namespace ?? '', q.pod ?? '');
  }

  private ingest(ts: number, samples: readonly PodSample[]): void {
    const tickSecs = this.lastTick === null ? null : ts - this.lastTick;
    this.lastTick = ts;
    const sums = new Map<Series, TickSum>();
    for (const s of samples) {
      const series = this.registry.pod(s.namespace, s.pod);
      const nsSeries = this.registry.namespace(s.namespace);
      const cluster = this.registry.cluster;
      // A pod listed twice in one tick counts once.
      if (!series || !nsSeries || !cluster || series.raw?.ts[series.raw.ts.length - 1] === ts) continue;
      series.lastTs = ts;
      const cpu = gauge(s.cpuM);
      const mem = gauge(s.memBytes);
      const rx = counter(s.rxBytes);
      const tx = counter(s.txBytes);
      const netAt = rx === null && tx === null ? null : instant(s.netAtMs);
      this.append(series, RAW, ts, [cpu, mem, rx, tx, netAt]);
      const atMs = readingMs(ts, netAt);
      const point = podPoint(ts, cpu, mem, series.rx.next(atMs, rx), series.tx.next(atMs, tx));
      this.accumulate(series, point);
      addTo(sums, nsSeries, point);
      addTo(sums, cluster, point);
    }
    for (const [series, sum] of sums) {
      series.lastTs = ts;
      const cols = sum.columns(tickSecs);
      this.append(series, RAW, ts, cols);
      this.accumulate(series, aggregateWeighted(cols));
    }
  }

  private accumulate(series: Series, point: Weighted): void {
    series.slot ??= emptyWeighted();
    addInto(series.slot, point);
  }

  private append(series: Series, tier: Tier, ts: number, values: readonly (number | null)[]): void {
    const start = alignDown(ts, BLOCK_SECS[tier]);
    let buf = tier === RAW ? series.raw : series.tier;
    if (buf && buf.start !== start) {
      this.seal(series, buf);
      buf = null;
    }
    if (!buf) {
      buf = { tier, start, ts: [], cols: values.map(() => []), rowId: null };
      if (tier === RAW) series.raw = buf;
      else series.tier = buf;
    }
    buf.ts.push(ts);
    for (let i = 0; i < values.length; i++) buf.cols[i]?.push(values[i] ?? null);
  }

  private seal(series: Series, buf: Buf): void {
    if (buf.ts.length > 0 || buf.rowId !== null) this.pending.push({ series, buf });
    if (series.raw === buf) series.raw = null;
    if (series.tier === buf) series.tier = null;
  }

  /** Closes the 10-minute slot and seals the blocks that end before `ts`. */
  private rollOver(ts: number): void {
    const slot = alignDown(ts, SLOT_SECS);
    const closing = this.slotStart;
    this.slotStart = slot;
    for (const series of this.registry.byId.values()) {
      if (closing !== null && closing !== slot && series.slot) {
        if (!isEmpty(series.slot)) this.append(series, TIER, closing, tierColumns(series.slot));
        series.slot = null;
      }
      if (series.raw && series.raw.start !== alignDown(ts, BLOCK_SECS[RAW])) this.seal(series, series.raw);
      if (series.tier && series.tier.start !== alignDown(ts, BLOCK_SECS[TIER])) this.seal(series, series.tier);
    }
  }

  /** The open tier-1 block with the current slot's partial point, as a flush writes it. */
  private tierWithSlot(series: Series): Buf | null {
    if (!series.slot || isEmpty(series.slot) || this.slotStart === null) return series.tier;
    series.tier ??= { tier: TIER, start: alignDown(this.slotStart, BLOCK_SECS[TIER]), ts: [], cols: tierColumns(series.slot).map(() => []), rowId: null };
    const point = tierColumns(series.slot);
    return { ...series.tier, ts: [...series.tier.ts, this.slotStart], cols: series.tier.cols.map((col, i) => [...col, point[i] ?? null]) };
  }

  private async write(includeOpen: boolean): Promise<void> {
    const sealed = this.pending;
    const open: { series: Series; buf: Buf; owner: Buf }[] = [];
    if (includeOpen) {
      for (const series of this.registry.byId.values()) {
        if (series.raw) open.push({ series, buf: series.raw, owner: series.raw });
        const tier = this.tierWithSlot(series);
        if (tier && series.tier) open.push({ series, buf: tier, owner: series.tier });
      }
    }
    // Rows are laid out in rowid (write) order. Each tier's rows go in one run, so the pages
    // that raw blocks free after a day hold no 10-minute rows that would keep them half full.
    const items = [...sealed.map((s) => ({ ...s, owner: s.buf })), ...open].sort((a, b) => a.buf.tier - b.buf.tier);
    if (items.length === 0) return;
    const ids = new Map<Buf, number>();
    await this.db.transaction().execute(async (trx) => {
      for (const chunk of chunks(items.filter((i) => i.buf.rowId === null))) {
        const rows = await trx
          .insertInto('metric_blocks')
          .values(chunk.map((i) => ({ series_id: i.series.id, tier: i.buf.tier, block_start_ts: i.buf.start, payload: toBlob(encodeBlock(i.buf, i.buf.start)) })))
          .returning(['id', 'series_id', 'tier', 'block_start_ts'])
          .execute();
        // RETURNING order is unspecified; (series, tier, start) is unique within one write.
        const byKey = new Map(chunk.map((i) => [`${i.series.id}/${i.buf.tier}/${i.buf.start}`, i.owner]));
        for (const row of rows) {
          const owner = byKey.get(`${row.series_id}/${row.tier}/${row.block_start_ts}`);
          if (owner) ids.set(owner, row.id);
        }
      }
      for (const i of items) {
        if (i.buf.rowId === null) continue;
        await trx.updateTable('metric_blocks').set({ payload: toBlob(encodeBlock(i.buf, i.buf.start)) }).where('id', '=', i.buf.rowId).execute();
      }
      const lastSeen = new Map<number, number[]>();
      for (const i of items) {
        const last = i.buf.ts[i.buf.ts.length - 1];
        if (i.buf.tier !== RAW || last === undefined) continue;
        const group = lastSeen.get(last * 1000);
        if (group) group.push(i.series.id);
        else lastSeen.set(last * 1000, [i.series.id]);
      }
      for (const [at, seriesIds] of lastSeen) {
        for (const chunk of chunks(seriesIds, 500)) {
          await trx.updateTable('metric_series').set({ last_seen: at }).where('id', 'in', chunk).where('last_seen', '<', at).execute();
        }
      }
    });
    this.pending = [];
    for (const { owner } of open) owner.rowId = ids.get(owner) ?? owner.rowId;
  }

  private async pruneNow(force: boolean): Promise<void> {
    const now = this.nowSecs();
    this.lastPrune = now;
    for (const tier of [RAW, TIER] as const) {
      // A block may go once its end is older than what its tier keeps.
      const through = alignDown(now - KEEP_SECS[tier] - BLOCK_SECS[tier], BLOCK_SECS[tier]);
      if (!force && this.prunedThrough.get(tier) === through) continue;
      await this.db
        .deleteFrom('metric_blocks')
        .where('series_id', 'in', this.db.selectFrom('metric_series').select('id'))
        .where('tier', '=', tier)
        .where('block_start_ts', '<=', through)
        .execute();
      this.prunedThrough.set(tier, through);
    }
    const horizon = now - RETENTION_SECS;
    const stale = [...this.registry.byId.values()].filter((s) => s.lastTs < horizon && !s.raw && !s.tier);
    for (const chunk of chunks(stale, 500)) {
      // The series' blocks go with it (ON DELETE CASCADE).
      const gone = await this.db
        .deleteFrom('metric_series')
        .where('id', 'in', chunk.map((s) => s.id))
        .where('last_seen', '<', horizon * 1000)
        .returning('id')
        .execute();
      for (const { id } of gone) {
        const series = this.registry.byId.get(id);
        if (!series) continue;
        this.registry.forget(series);
        this.pending = this.pending.filter((p) => p.series !== series);
      }
    }
  }

  private async readPoints(series: Series, tier: Tier, start: number, to: number): Promise<Point[]> {
    const blockSecs = BLOCK_SECS[tier];
    // Raw pod rates need the sample before the window, possibly one block further back.
    const lookback = tier === RAW && series.kind === 'pod' ? 2 * blockSecs : blockSecs;
    const memory = this.pending.filter((p) => p.series === series && p.buf.tier === tier).map((p) => p.buf);
    const open = tier === RAW ? series.raw : series.tier;
    if (open) memory.push(open);
    const owned = new Set(memory.map((b) => b.rowId));
    const rows = await this.db
      .selectFrom('metric_blocks')
      .select(['id', 'block_start_ts', 'payload'])
      .where('series_id', '=', series.id)
      .where('tier', '=', tier)
      .where('block_start_ts', '>=', start - lookback)
      .where('block_start_ts', '<', to)
      .orderBy('block_start_ts')
      .orderBy('id')
      .execute();
    const blocks = [...rows.filter((r) => !owned.has(r.id)).map((r) => decodeBlock(new Uint8Array(r.payload), r.block_start_ts)), ...memory];
    const points = blockPoints(tier === TIER ? 'tier' : series.kind === 'pod' ? 'pod' : 'aggregate', blocks);
    if (tier === TIER && series.slot && this.slotStart !== null) points.push({ ts: this.slotStart, ...series.slot });
    return points;
  }
}
