// The resource-history block codec: exact round trips (property-based, over arbitrary and
// realistic columns), and the sizes the storage budget depends on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_ABS, decodeBlock, encodeBlock, type Block } from '../../runtime/metrics/codec.ts';

const BASE = 1_790_000_000;

const anyValue = fc.oneof(
  fc.integer({ min: -MAX_ABS, max: MAX_ABS }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(-MAX_ABS, MAX_ABS, 0, 1, -1),
);

/** Arbitrary columns: any values, any nulls, any timestamps (not even ordered). */
const arbitraryBlock = fc.integer({ min: 0, max: 130 }).chain((n) =>
  fc.record({
    ts: fc.array(fc.integer({ min: BASE - 10 ** 6, max: BASE + 10 ** 6 }), { minLength: n, maxLength: n }),
    cols: fc.array(fc.array(fc.option(anyValue, { nil: null, freq: 3 }), { minLength: n, maxLength: n }), { maxLength: 9 }),
  }).map(({ ts, cols }): Block => ({ ts, cols })),
);

/** Sampler-shaped blocks: regular ticks with jitter, random walks, counters with resets. */
const realisticBlock = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.record({
    gaps: fc.array(fc.oneof(fc.constant(60), fc.integer({ min: 1, max: 180 })), { minLength: n, maxLength: n }),
    walk: fc.array(fc.integer({ min: -40, max: 40 }), { minLength: n, maxLength: n }),
    rates: fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: n, maxLength: n }),
    resets: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    nulls: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    scale: fc.constantFrom(1, 1024, 60),
  }).map(({ gaps, walk, rates, resets, nulls, scale }): Block => {
    let t = BASE;
    let cpu = 500;
    let counter = 10 ** 12;
    const ts: number[] = [];
    const cpuCol: number[] = [];
    const memCol: number[] = [];
    const counterCol: (number | null)[] = [];
    gaps.forEach((gap, i) => {
      t += gap;
      cpu = Math.max(0, cpu + (walk[i] ?? 0));
      counter = resets[i] && i % 7 === 0 ? (rates[i] ?? 0) : counter + (rates[i] ?? 0);
      ts.push(t);
      cpuCol.push(cpu);
      memCol.push((200_000 + cpu) * scale);
      counterCol.push(nulls[i] && i % 5 === 0 ? null : counter);
    });
    return { ts, cols: [cpuCol, memCol, counterCol] };
  }),
);

describe('metrics block codec', () => {
  it('round-trips arbitrary blocks exactly', () => {
    fc.assert(
      fc.property(arbitraryBlock, fc.integer({ min: BASE - 10 ** 6, max: BASE }), (block, base) => {
        assert.deepEqual(decodeBlock(encodeBlock(block, base), base), block);
      }),
      { numRuns: 3000 },
    );
  });

  it('round-trips sampler-shaped blocks exactly', () => {
    fc.assert(
      fc.property(realisticBlock, (block) => {
        assert.deepEqual(decodeBlock(encodeBlock(block, BASE), BASE), block);
      }),
      { numRuns: 3000 },
    );
  });

  it('handles the edges: empty, one sample, all-null and constant columns, extreme values', () => {
    const cases: Block[] = [
      { ts: [], cols: [] },
      { ts: [], cols: [[], []] },
      { ts: [BASE], cols: [[null], [7], [-MAX_ABS]] },
      { ts: [BASE, BASE + 60], cols: [[MAX_ABS, -MAX_ABS], [-MAX_ABS, MAX_ABS]] },
      { ts: [BASE, BASE + 60, BASE + 120], cols: [[null, null, null], [5, 5, 5], [MAX_ABS, -MAX_ABS, MAX_ABS]] },
    ];
    for (const block of cases) assert.deepEqual(decodeBlock(encodeBlock(block, BASE), BASE), block);
  });

  it('refuses values it could not restore exactly', () => {
    assert.throws(() => encodeBlock({ ts: [BASE], cols: [[MAX_ABS + 1]] }, BASE), RangeError);
    assert.throws(() => encodeBlock({ ts: [BASE], cols: [[1.5]] }, BASE), RangeError);
    assert.throws(() => encodeBlock({ ts: [BASE, BASE + 1], cols: [[1]] }, BASE), RangeError);
    assert.throws(() => decodeBlock(new Uint8Array([9]), BASE), RangeError);
    assert.throws(() => decodeBlock(encodeBlock({ ts: [BASE, BASE + 60], cols: [[1, 2]] }, BASE).slice(0, 3), BASE), RangeError);
  });

  it('stores regular timestamps and constant columns in a few bytes, whatever the block length', () => {
    const ts = Array.from({ length: 60 }, (_, i) => BASE + 60 * i);
    const payload = encodeBlock({ ts, cols: [ts.map(() => 10), ts.map(() => 600)] }, BASE);
    assert.ok(payload.length <= 12, `${payload.length} bytes`);
  });

  it('keeps one counter reset from widening the whole block', () => {
    const ts = Array.from({ length: 60 }, (_, i) => BASE + 60 * i);
    const steady = ts.map((_, i) => 10 ** 9 + i * 60_000 + ((i * 7919) % 997));
    const reset = steady.map((v, i) => (i >= 30 ? v - (steady[30] ?? 0) + 5 : v));
    const a = encodeBlock({ ts, cols: [steady] }, BASE).length;
    const b = encodeBlock({ ts, cols: [reset] }, BASE).length;
    // The drop and the recovery are two escaped values (~8 bytes each); a widened Rice
    // parameter would cost 60 x 30 bits.
    assert.ok(b <= a + 20, `steady ${a} bytes, with a reset ${b} bytes`);
  });
});
