import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import type { Fields, Logger } from '../../runtime/log.ts';
import { collectGarbage, scheduleStartupCollection } from '../../runtime/memory.ts';

function recorder(): { log: Logger; lines: { message: string; fields: Fields }[] } {
  const lines: { message: string; fields: Fields }[] = [];
  const log: Logger = {
    info: (message, fields = {}) => lines.push({ message, fields }),
    warn: (message, fields = {}) => lines.push({ message, fields }),
    error: (message, fields = {}) => lines.push({ message, fields }),
    child: () => log,
  };
  return { log, lines };
}

describe('startup garbage collection', () => {
  it('collects garbage without the process having been started with --expose-gc, and leaves gc unexposed', () => {
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined', 'this test runs without --expose-gc');
    // Garbage the collection must return: 20 MiB of arrays nothing refers to any more.
    let garbage: number[][] | null = Array.from({ length: 200 }, () => new Array<number>(12_500).fill(1.5));
    assert.equal(garbage.length, 200);
    garbage = null;
    const { log, lines } = recorder();
    collectGarbage(log);
    assert.equal(lines.length, 1);
    const { message, fields } = lines[0] ?? { message: '', fields: {} };
    assert.equal(message, 'startup garbage collected');
    const [before, after] = fields.heapUsedMiB as [number, number];
    assert.ok(before - after >= 15, `heap used ${before} -> ${after} MiB`);
    assert.equal(typeof fields.pauseMs, 'number');
    assert.equal(runInNewContext('typeof gc'), 'undefined', 'a context created afterwards has no gc');
  });

  it('runs once, after the delay', async () => {
    const { log, lines } = recorder();
    scheduleStartupCollection(log, 20);
    assert.equal(lines.length, 0);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      lines.map((l) => l.message),
      ['startup garbage collected'],
    );
  });
});
