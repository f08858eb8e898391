// What every stored form of the resource history reduces to, and how points become buckets.
//
// Three stored forms exist (see history-store.ts): raw pod samples (exact gauges and the raw
// cumulative counters), raw aggregate ticks (namespace and cluster sums), and 10-minute
// points. All three turn into a `Point`: gauge sums with the number of samples behind them,
// and network bytes with the seconds they cover. Keeping weights instead of averages lets a
// bucket combine any mix of them exactly: a mean is sum/count, a rate is bytes/seconds (the
// time-weighted mean of the per-interval rates), whether the bucket holds raw samples,
// 10-minute points, or the two halves of a point split by a restart.
import type { Block } from './codec.ts';

/** A counter interval longer than this is not turned into a rate: the gap hides too much. */
export const MAX_COUNTER_GAP_SECS = 600;

export interface Weighted {
  cpuSum: number;
  cpuN: number;
  memSum: number;
  memN: number;
  rxBytes: number;
  rxSecs: number;
  txBytes: number;
  txSecs: number;
}

export interface Point extends Weighted {
  /** Epoch seconds: the sample's time, or the start of its 10-minute slot. */
  ts: number;
}

export interface HistoryPoint {
  /** Epoch seconds, the bucket's start. */
  ts: number;
  cpuM: number | null;
  memBytes: number | null;
  rxBps: number | null;
  txBps: number | null;
}

export const emptyWeighted = (): Weighted => ({ cpuSum: 0, cpuN: 0, memSum: 0, memN: 0, rxBytes: 0, rxSecs: 0, txBytes: 0, txSecs: 0 });

export function addInto(acc: Weighted, p: Weighted): void {
  acc.cpuSum += p.cpuSum;
  acc.cpuN += p.cpuN;
  acc.memSum += p.memSum;
  acc.memN += p.memN;
  acc.rxBytes += p.rxBytes;
  acc.rxSecs += p.rxSecs;
  acc.txBytes += p.txBytes;
  acc.txSecs += p.txSecs;
}

export const isEmpty = (w: Weighted): boolean => w.cpuN === 0 && w.memN === 0 && w.rxSecs === 0 && w.txSecs === 0;

/**
 * The bytes a cumulative counter moved between two readings (times in epoch ms), or null: no
 * earlier value, a gap too long to trust, or a reset (the counter went down because the pod
 * restarted, and the bytes counted before the reset are unknowable).
 */
export function counterInterval(prevMs: number, prev: number | null, atMs: number, cur: number | null): { bytes: number; secs: number } | null {
  if (prev === null || cur === null) return null;
  const secs = (atMs - prevMs) / 1000;
  if (secs <= 0 || secs > MAX_COUNTER_GAP_SECS || cur < prev) return null;
  return { bytes: cur - prev, secs };
}

/**
 * Follows one pod's counters reading by reading; the write path and the read path share it.
 * The interval is the time between the readings themselves (`atMs`, to the millisecond), never
 * between the whole-second ticks that record them: ticks a few ms either side of a second
 * boundary are 1 s apart on paper for 2 s of bytes (issue 11, item 16).
 */
export class CounterTrack {
  private prevMs = 0;
  private prev: number | null = null;

  next(atMs: number, value: number | null): { bytes: number; secs: number } | null {
    if (value === null) return null;
    const interval = counterInterval(this.prevMs, this.prev, atMs, value);
    this.prevMs = atMs;
    this.prev = value;
    return interval;
  }
}

/** One pod sample as a point: the interval rates end at this sample. */
export function podPoint(
  ts: number,
  cpu: number | null,
  mem: number | null,
  rx: { bytes: number; secs: number } | null,
  tx: { bytes: number; secs: number } | null,
): Point {
  return {
    ts,
    cpuSum: cpu ?? 0,
    cpuN: cpu === null ? 0 : 1,
    memSum: mem ?? 0,
    memN: mem === null ? 0 : 1,
    rxBytes: rx?.bytes ?? 0,
    rxSecs: rx?.secs ?? 0,
    txBytes: tx?.bytes ?? 0,
    txSecs: tx?.secs ?? 0,
  };
}

/**
 * When a raw pod row's counters were read, epoch ms: its `netAt` column, or for rows written
 * before that column existed (four columns), the tick itself.
 */
export const readingMs = (ts: number, netAt: number | null): number => netAt ?? ts * 1000;

/** Raw pod samples (columns cpu, mem, rx, tx, netAt), in time order, as points: rates come from the counters. */
function podPoints(rows: readonly Row[]): Point[] {
  const rxTrack = new CounterTrack();
  const txTrack = new CounterTrack();
  const points: Point[] = [];
  let last = -Infinity;
  for (const { ts, row } of rows) {
    // The same tick twice (two rows of one block after a restart) counts once.
    if (ts === last) continue;
    last = ts;
    const [cpu = null, mem = null, rx = null, tx = null, netAt = null] = row;
    const atMs = readingMs(ts, netAt);
    points.push(podPoint(ts, cpu, mem, rxTrack.next(atMs, rx), txTrack.next(atMs, tx)));
  }
  return points;
}

/** An aggregate tick's columns (cpu, mem, rxBytes, rxSecs, txBytes, txSecs: sums over pods) as one weight-1 point. */
export function aggregateWeighted(row: readonly (number | null)[]): Weighted {
  const [cpu = null, mem = null, rxBytes = null, rxSecs = null, txBytes = null, txSecs = null] = row;
  return {
    cpuSum: cpu ?? 0,
    cpuN: cpu === null ? 0 : 1,
    memSum: mem ?? 0,
    memN: mem === null ? 0 : 1,
    rxBytes: rxBytes ?? 0,
    rxSecs: rxSecs ?? 0,
    txBytes: txBytes ?? 0,
    txSecs: txSecs ?? 0,
  };
}

/** A 10-minute point's columns (see tierColumns) back into weights. */
function tierWeighted(row: readonly (number | null)[]): Weighted {
  const [cpuSum, cpuN, memMean, memN, rxBytes, rxSecs, txBytes, txSecs] = Array.from({ length: 8 }, (_, i) => row[i] ?? 0) as [number, number, number, number, number, number, number, number];
  return { cpuSum, cpuN, memSum: memMean * memN, memN, rxBytes, rxSecs, txBytes, txSecs };
}

/** What a block's columns hold: raw pod samples, raw aggregate ticks, or 10-minute points. */
export type Form = 'pod' | 'aggregate' | 'tier';

interface Row {
  ts: number;
  row: (number | null)[];
}

/** Decoded blocks of one series and tier, in any order (rows of one block may be split by a restart), as points in time order. */
export function blockPoints(form: Form, blocks: readonly Block[]): Point[] {
  const rows: Row[] = blocks.flatMap((b) => b.ts.map((ts, i) => ({ ts, row: b.cols.map((c) => c[i] ?? null) })));
  rows.sort((a, b) => a.ts - b.ts);
  if (form === 'pod') return podPoints(rows);
  return rows.map(({ ts, row }) => ({ ts, ...(form === 'tier' ? tierWeighted(row) : aggregateWeighted(row)) }));
}

/** One tick's sum over a namespace's (or the cluster's) pods. */
export class TickSum {
  private readonly sum = emptyWeighted();
  private rxRate = 0;
  private txRate = 0;

  add(p: Weighted): void {
    addInto(this.sum, p);
    if (p.rxSecs > 0) this.rxRate += p.rxBytes / p.rxSecs;
    if (p.txSecs > 0) this.txRate += p.txBytes / p.txSecs;
  }

  /**
   * The stored columns (see aggregateWeighted). Network is the sum of the pods' rates, kept as
   * bytes over the tick's seconds so that every form reads a rate as bytes / seconds.
   */
  columns(tickSecs: number | null): (number | null)[] {
    const { cpuSum, cpuN, memSum, memN, rxSecs, txSecs } = this.sum;
    const net = (secs: number, rate: number): (number | null)[] => (secs > 0 && tickSecs !== null ? [Math.round(rate * tickSecs), tickSecs] : [null, null]);
    return [cpuN > 0 ? cpuSum : null, memN > 0 ? memSum : null, ...net(rxSecs, this.rxRate), ...net(txSecs, this.txRate)];
  }
}

/**
 * A 10-minute point's stored columns and the weights behind them. CPU keeps its exact sum (a
 * small pod's 4.5m must not become 5m); memory, gigabytes moving by kilobytes, keeps its mean
 * to the KiB, which saves more than three bits a point over a sum. Network seconds (measured
 * to the ms) are kept whole: within 0.5 s of a slot's up to 600.
 */
export function tierColumns(w: Weighted): (number | null)[] {
  const nz = (v: number, n: number): number | null => (n > 0 ? v : null);
  const rxSecs = Math.round(w.rxSecs);
  const txSecs = Math.round(w.txSecs);
  return [
    nz(w.cpuSum, w.cpuN),
    nz(w.cpuN, w.cpuN),
    w.memN > 0 ? Math.round(w.memSum / w.memN / 1024) * 1024 : null,
    nz(w.memN, w.memN),
    nz(w.rxBytes, rxSecs),
    nz(rxSecs, rxSecs),
    nz(w.txBytes, txSecs),
    nz(txSecs, txSecs),
  ];
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/** Points into `count` buckets of `bucketSecs` from `start`; points outside are ignored. */
export function bucketize(points: Iterable<Point>, start: number, bucketSecs: number, count: number): HistoryPoint[] {
  const buckets = Array.from({ length: count }, emptyWeighted);
  for (const p of points) {
    const bucket = buckets[Math.floor((p.ts - start) / bucketSecs)];
    if (p.ts >= start && bucket) addInto(bucket, p);
  }
  return buckets.map((b, i) => ({
    ts: start + i * bucketSecs,
    cpuM: b.cpuN > 0 ? round3(b.cpuSum / b.cpuN) : null,
    memBytes: b.memN > 0 ? Math.round(b.memSum / b.memN) : null,
    rxBps: b.rxSecs > 0 ? round3(b.rxBytes / b.rxSecs) : null,
    txBps: b.txSecs > 0 ? round3(b.txBytes / b.txSecs) : null,
  }));
}
