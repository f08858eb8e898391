// The one bucket rule (domain/history/buckets.ts), row by row: tier choice at the raw
// horizon, sizes as whole multiples of the resolution, alignment, the bucket cap, bad input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_BUCKETS, RAW_HORIZON_SECS, planBuckets, type BucketPlan } from '../../domain/history/buckets.ts';

const NOW = Date.UTC(2026, 10, 21, 12); // a whole hour: aligned to every size below
const H = 3600;
const at = (secsBeforeNow: number, extraMs = 0) => new Date(NOW - secsBeforeNow * 1000 + extraMs);

describe('planBuckets', () => {
  const rows: { name: string; from: Date; to: Date; requested: number; want: Partial<BucketPlan> }[] = [
    { name: '1 h in 120: raw, never finer than a sample', from: at(H), to: at(0), requested: 120, want: { tier: 'raw', resolutionSecs: 60, bucketSecs: 60, count: 60 } },
    { name: '6 h in 120', from: at(6 * H), to: at(0), requested: 120, want: { tier: 'raw', bucketSecs: 180, count: 120 } },
    { name: '24 h in 120', from: at(24 * H), to: at(0), requested: 120, want: { tier: 'raw', bucketSecs: 720, count: 120 } },
    { name: '24 h half a second past a whole second: the same size', from: at(24 * H, 500), to: at(0, 500), requested: 120, want: { bucketSecs: 720, count: 121 } },
    { name: '7 d in 120: 10-minute tier, 9 points a bucket', from: at(7 * 24 * H), to: at(0), requested: 120, want: { tier: 'ten_minute', resolutionSecs: 600, bucketSecs: 5400 } },
    { name: 'starting exactly at the raw horizon: raw', from: at(RAW_HORIZON_SECS), to: at(0), requested: 120, want: { tier: 'raw' } },
    { name: 'starting one second before the raw horizon: 10-minute', from: at(RAW_HORIZON_SECS + 1), to: at(0), requested: 120, want: { tier: 'ten_minute' } },
    { name: 'an old window ending long ago: 10-minute tier', from: at(3 * 24 * H), to: at(2 * 24 * H), requested: 120, want: { tier: 'ten_minute', bucketSecs: 1200 } },
    { name: 'more buckets than the cap widens them', from: at(24 * H), to: at(0), requested: MAX_BUCKETS * 10, want: { bucketSecs: 60, count: 1440 } },
    { name: 'an unaligned start aligns down to the bucket', from: at(H - 30), to: at(0), requested: 60, want: { startSecs: NOW / 1000 - H, count: 60 } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const plan = planBuckets(row.from, row.to, new Date(NOW), row.requested);
      const picked = Object.fromEntries(Object.keys(row.want).map((k) => [k, plan[k as keyof BucketPlan]]));
      assert.deepEqual(picked, row.want);
      assert.equal(plan.bucketSecs % plan.resolutionSecs, 0, 'a whole multiple of the resolution');
      assert.equal(plan.startSecs % plan.bucketSecs, 0, 'aligned');
      assert.ok(plan.startSecs + plan.count * plan.bucketSecs >= plan.toSecs, 'the buckets cover the window');
    });
  }

  const invalid: { name: string; from: Date; to: Date; requested: number }[] = [
    { name: 'from equal to to', from: at(0), to: at(0), requested: 120 },
    { name: 'from after to', from: at(0), to: at(H), requested: 120 },
    { name: 'zero buckets', from: at(H), to: at(0), requested: 0 },
    { name: 'a fractional count', from: at(H), to: at(0), requested: 1.5 },
  ];
  for (const row of invalid) {
    it(`refuses ${row.name}`, () => assert.throws(() => planBuckets(row.from, row.to, new Date(NOW), row.requested), RangeError));
  }
});
