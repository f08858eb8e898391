import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemo } from '../../runtime/cache/memo.ts';
import { ManualClock } from '../support/services.ts';

test('memo.derive recomputes when a source is a different object, but not within minAgeMs of the last computation', () => {
  const clock = new ManualClock();
  const memo = createMemo(clock);
  let builds = 0;
  const build = () => ++builds;
  const pods = [1, 2];
  const nodes = ['n'];
  const cases: { what: string; sources: unknown[]; advanceMs?: number; key?: string; want: number }[] = [
    { what: 'first call computes', sources: [pods, nodes], want: 1 },
    { what: 'the same objects keep the value, however long', sources: [pods, nodes], advanceMs: 60_000, want: 1 },
    { what: 'an equal but new array is a change', sources: [[1, 2], nodes], want: 2 },
    { what: 'a change within minAgeMs of the last computation is served the last value', sources: [pods, nodes], advanceMs: 999, want: 2 },
    { what: 'at minAgeMs the change is computed', sources: [pods, nodes], advanceMs: 1, want: 3 },
    { what: 'one more source is a change', sources: [pods, nodes, 'diagnosis'], advanceMs: 1000, want: 4 },
    { what: 'another key has its own value', sources: [pods, nodes, 'diagnosis'], key: 'other', want: 5 },
    { what: 'and the first key kept its own', sources: [pods, nodes, 'diagnosis'], want: 4 },
  ];
  for (const c of cases) {
    clock.advance(c.advanceMs ?? 0);
    assert.equal(memo.derive(c.key ?? 'graph', c.sources, 1000, build), c.want, c.what);
  }
});
