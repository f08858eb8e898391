// The resource-history store on a real embedded database: what goes in comes back, rates
// skip counter resets, buckets, sums over pods, the 10-minute tier and retention.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HistoryStore, type HistoryQuery, type PodSample } from '../../runtime/metrics/history-store.ts';
import { openDatabase, type Db } from '../../runtime/store/database.ts';

/** Midnight UTC: aligned to every bucket and block size below. */
const T0 = Date.UTC(2026, 10, 21);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const MiB = 1024 * 1024;

class TestClock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

async function setup(): Promise<{ db: Db; clock: TestClock; store: HistoryStore }> {
  const clock = new TestClock(T0);
  const db = await openDatabase(mkdtempSync(join(tmpdir(), 'capstan-history-')), clock);
  return { db, clock, store: new HistoryStore(db, clock) };
}

const pod = (namespace: string, name: string, cpuM: number | null, memBytes: number | null, rxBytes: number | null, txBytes: number | null = null): PodSample => ({
  namespace,
  pod: name,
  cpuM,
  memBytes,
  rxBytes,
  txBytes,
  // The tick's own time: as rows written before the reading time was kept.
  netAtMs: null,
});

/** Records one tick per minute from `startMs`, `ticks` times; the clock follows. */
async function run(store: HistoryStore, clock: TestClock, startMs: number, ticks: number, samplesAt: (i: number) => PodSample[]): Promise<void> {
  for (let i = 0; i < ticks; i++) {
    clock.t = startMs + i * MIN;
    await store.record(clock.now(), samplesAt(i));
  }
}

const window = (scope: HistoryQuery['scope'], fromMs: number, toMs: number, buckets: number, namespace?: string, name?: string): HistoryQuery => ({
  scope,
  namespace,
  pod: name,
  from: new Date(fromMs),
  to: new Date(toMs),
  buckets,
});

describe('resource history store', () => {
  it('returns what was recorded, from memory before a flush and from the database after', async () => {
    const { db, clock, store } = await setup();
    await run(store, clock, T0, 30, (i) => [pod('shop', 'web-1', 100 + i, 300 * MiB + i * 1024, i * 60_000, i * 30_000)]);
    const q = window('pod', T0, T0 + 30 * MIN, 30, 'shop', 'web-1');
    const buffered = await store.query(q);
    assert.equal(buffered.bucketSecs, 60);
    assert.equal(buffered.points.length, 30);
    buffered.points.forEach((p, i) => {
      assert.equal(p.ts, T0 / 1000 + 60 * i);
      assert.equal(p.cpuM, 100 + i);
      assert.equal(p.memBytes, 300 * MiB + i * 1024);
      // A rate needs two samples: the first minute has none.
      assert.equal(p.rxBps, i === 0 ? null : 1000);
      assert.equal(p.txBps, i === 0 ? null : 500);
    });
    assert.equal(Number((await db.selectFrom('metric_blocks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), 0);

    await store.flush();
    assert.ok(Number((await db.selectFrom('metric_blocks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) > 0);
    assert.deepEqual(await new HistoryStore(db, clock).query(q), buffered);
    assert.deepEqual(await store.query(q), buffered);
    const unknown = await store.query(window('pod', T0, T0 + 30 * MIN, 30, 'shop', 'nope'));
    assert.ok(unknown.points.every((p) => p.cpuM === null && p.rxBps === null));
    await db.destroy();
  });

  it('skips the interval in which a counter went down instead of reporting a negative or huge rate', async () => {
    const { db, clock, store } = await setup();
    const rx = [0, 60_000, 120_000, 300, 60_300, 120_300];
    await run(store, clock, T0, rx.length, (i) => [pod('shop', 'web-1', 10, MiB, rx[i] ?? null, 5_000_000 - i)]);
    const perMinute = await store.query(window('pod', T0, T0 + 6 * MIN, 6, 'shop', 'web-1'));
    assert.deepEqual(
      perMinute.points.map((p) => p.rxBps),
      [null, 1000, 1000, null, 1000, 1000],
    );
    // tx only ever goes down: every interval is a reset.
    assert.ok(perMinute.points.every((p) => p.txBps === null));
    const whole = await store.query(window('pod', T0, T0 + 6 * MIN, 1, 'shop', 'web-1'));
    assert.deepEqual(whole.points.map((p) => p.rxBps), [1000]);
    const cluster = await store.query(window('cluster', T0, T0 + 6 * MIN, 6));
    assert.deepEqual(cluster.points.map((p) => p.rxBps), [null, 1000, 1000, null, 1000, 1000]);
    await db.destroy();
  });

  it("measures a counter's interval between the times it was read, not between the whole-second ticks", async () => {
    // A sampler every 2 s whose scrapes vary in length: counters read at 1018.000 s, 1019.980 s
    // and 1021.990 s after T0 are recorded at whole seconds 1018, 1019 and 1022. Taken between
    // whole-second ticks, the 1.98 s interval read as 1 s (twice the rate: issue 11, item 16) and
    // the 2.01 s one as 3 s. Each falls in its own one-minute bucket, so nothing averages out.
    const { db, clock, store } = await setup();
    const RATE = 250_000;
    const reads = [
      { readMs: 1_018_000, recordMs: 1_018_010 },
      { readMs: 1_019_980, recordMs: 1_019_990 },
      { readMs: 1_021_990, recordMs: 1_022_020 },
    ];
    for (const { readMs, recordMs } of reads) {
      clock.t = T0 + recordMs;
      await store.record(clock.now(), [{ ...pod('shop', 'web-1', 10, MiB, readMs * (RATE / 1000), readMs * (RATE / 2000)), netAtMs: T0 + readMs }]);
    }
    const q = window('pod', T0 + 960_000, T0 + 1_080_000, 2, 'shop', 'web-1');
    const expected = [
      { ts: (T0 + 960_000) / 1000, cpuM: 10, memBytes: MiB, rxBps: RATE, txBps: RATE / 2 },
      { ts: (T0 + 1_020_000) / 1000, cpuM: 10, memBytes: MiB, rxBps: RATE, txBps: RATE / 2 },
    ];
    assert.deepEqual((await store.query(q)).points, expected);
    await store.flush();
    assert.deepEqual((await new HistoryStore(db, clock).query(q)).points, expected, 'the same once read back from the database');
    await db.destroy();
  });

  it('answers with about the requested number of buckets, each averaging its samples', async () => {
    const { db, clock, store } = await setup();
    await run(store, clock, T0, 6 * 60, (i) => [pod('shop', 'web-1', (i % 3) * 10, MiB, null)]);
    const now = clock.t;
    for (const [span, bucketSecs] of [
      [6 * HOUR, 180],
      [24 * HOUR, 720],
      [7 * DAY, 5400],
    ] as const) {
      const result = await store.query(window('pod', now - span, now, 120, 'shop', 'web-1'));
      assert.equal(result.bucketSecs, bucketSecs);
      assert.ok(Math.abs(result.points.length - 120) <= 10, `${span}: ${result.points.length} buckets`);
      assert.ok(result.points.every((p, i) => p.ts === (result.points[0]?.ts ?? 0) + i * bucketSecs && p.ts % bucketSecs === 0));
    }
    // Never finer than the samples: an hour is 60 one-minute buckets, not 120 half-empty ones.
    assert.equal((await store.query(window('pod', now - HOUR, now, 120, 'shop', 'web-1'))).bucketSecs, 60);
    await assert.rejects(store.query(window('pod', now, now - HOUR, 120, 'shop', 'web-1')), RangeError);
    await assert.rejects(store.query(window('pod', now - HOUR, now, 0, 'shop', 'web-1')), RangeError);
    assert.ok((await store.query(window('cluster', 0, now, 10 ** 9))).points.length <= 2001, 'a silly bucket count is capped');
    const sixHours = await store.query(window('pod', T0, T0 + 6 * HOUR, 120, 'shop', 'web-1'));
    assert.equal(sixHours.points.length, 120);
    assert.ok(sixHours.points.every((p) => p.cpuM === 10 && p.memBytes === MiB && p.rxBps === null));
    await db.destroy();
  });

  it('sums pods per tick for namespace and cluster scope, and averages those sums over the bucket', async () => {
    const { db, clock, store } = await setup();
    await run(store, clock, T0, 10, (i) => [
      pod('shop', 'web-1', 100, 1 * MiB, i * 60_000, i * 6_000),
      pod('shop', 'web-2', 200, 2 * MiB, i * 120_000, null),
      pod('batch', 'job-1', 50, 4 * MiB, null, null),
      // Present for half the bucket: half its usage counts toward the average sum.
      ...(i % 2 === 0 ? [pod('batch', 'job-2', 100, 8 * MiB, null, null)] : []),
    ]);
    const span = [T0, T0 + 10 * MIN] as const;
    const [cluster] = (await store.query(window('cluster', ...span, 1))).points;
    assert.deepEqual(cluster, { ts: T0 / 1000, cpuM: 400, memBytes: 11 * MiB, rxBps: 3000, txBps: 100 });
    const [shop] = (await store.query(window('namespace', ...span, 1, 'shop'))).points;
    assert.deepEqual(shop, { ts: T0 / 1000, cpuM: 300, memBytes: 3 * MiB, rxBps: 3000, txBps: 100 });
    const [batch] = (await store.query(window('namespace', ...span, 1, 'batch'))).points;
    assert.deepEqual(batch, { ts: T0 / 1000, cpuM: 100, memBytes: 8 * MiB, rxBps: null, txBps: null });
    const perTick = await store.query(window('namespace', ...span, 10, 'batch'));
    assert.deepEqual(perTick.points.map((p) => p.cpuM), [150, 50, 150, 50, 150, 50, 150, 50, 150, 50]);
    await db.destroy();
  });

  it('answers 7-day windows from the 10-minute tier and drops what is older than 7 days', async () => {
    const { db, clock, store } = await setup();
    const days = 8;
    await run(store, clock, T0, days * 1440, (i) => [
      // CPU alternates 100/200, so every slot and bucket averages 150; rx resets daily.
      pod('shop', 'web-1', i % 2 === 0 ? 100 : 200, 64 * MiB, (i % 1440) * 60_000 + 7, 0),
      ...(i < 720 ? [pod('shop', 'gone-1', 5, MiB, null)] : []),
    ]);
    const now = clock.t;
    const nowSecs = now / 1000;
    const raw = await db.selectFrom('metric_blocks').select(['tier', 'block_start_ts']).where('tier', '=', 0).execute();
    assert.ok(raw.length > 0 && raw.every((r) => r.block_start_ts + 3600 > nowSecs - 26 * 3600), 'raw blocks are kept about a day');
    const tier = await db.selectFrom('metric_blocks').select(['tier', 'block_start_ts']).where('tier', '=', 1).execute();
    assert.ok(tier.every((r) => r.block_start_ts + 6 * 3600 > nowSecs - 7 * 86400), 'no 10-minute block is wholly older than 7 days');
    assert.ok(tier.some((r) => r.block_start_ts < nowSecs - 6 * 86400));
    // The pod last seen 7.5 days ago is gone, blocks and all.
    const names = (await db.selectFrom('metric_series').select('pod').execute()).map((r) => r.pod).sort();
    assert.deepEqual(names, ['', '', 'web-1']);

    const week = await store.query(window('pod', now - 7 * DAY, now, 120, 'shop', 'web-1'));
    assert.equal(week.bucketSecs, 5400);
    const filled = week.points.filter((p) => p.cpuM !== null);
    assert.ok(filled.length >= week.points.length - 1, `${filled.length} of ${week.points.length} buckets have data`);
    for (const p of filled) {
      assert.equal(p.cpuM, 150);
      assert.equal(p.memBytes, 64 * MiB);
      assert.equal(p.rxBps, 1000);
      assert.equal(p.txBps, 0);
    }
    // Six days ago exists only in the 10-minute tier.
    const old = await store.query(window('pod', T0 + 2 * DAY, T0 + 2 * DAY + HOUR, 120, 'shop', 'web-1'));
    assert.equal(old.bucketSecs, 600);
    assert.deepEqual(old.points.map((p) => p.cpuM), [150, 150, 150, 150, 150, 150]);
    const cluster = await store.query(window('cluster', now - 7 * DAY, now, 120));
    assert.ok(cluster.points.filter((p) => p.cpuM !== null).every((p) => p.cpuM === 150 && p.rxBps === 1000));
    // Older than 7 days: nothing, even where a block straddles the edge.
    const expired = await store.query(window('pod', now - 8 * DAY, now - 7 * DAY - 1000, 24, 'shop', 'web-1'));
    assert.ok(expired.points.every((p) => p.cpuM === null && p.rxBps === null));
    await db.destroy();
  });

  it('survives a restart mid-block: flushed partial blocks merge with what follows', async () => {
    const { db, clock, store } = await setup();
    const samples = (i: number): PodSample[] => [pod('shop', 'web-1', i, MiB, i * 60_000)];
    await run(store, clock, T0, 95, samples);
    await store.flush();
    const restarted = new HistoryStore(db, clock);
    await run(restarted, clock, T0 + 95 * MIN, 25, (i) => samples(95 + i));
    const recent = await restarted.query(window('pod', T0, T0 + 2 * HOUR, 120, 'shop', 'web-1'));
    assert.deepEqual(recent.points.map((p) => p.cpuM), Array.from({ length: 120 }, (_, i) => i));
    assert.ok(recent.points.slice(1).every((p) => p.rxBps === 1000), 'the rate spans the restart');
    // Two days on, the same window comes from 10-minute points; the slot cut by the
    // restart (ticks 90-99) is the weighted merge of its two halves.
    clock.t = T0 + 2 * DAY;
    const later = await restarted.query(window('pod', T0, T0 + 2 * HOUR, 120, 'shop', 'web-1'));
    assert.equal(later.bucketSecs, 600);
    assert.deepEqual(later.points.map((p) => p.cpuM), Array.from({ length: 12 }, (_, i) => i * 10 + 4.5));
    await db.destroy();
  });
});
