import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rssComposition, takeHeapSnapshot } from '../../scripts/bench-memory-probes.ts';
import { summarizeHeapSnapshotFile } from '../../scripts/heap-summary.ts';

describe('memory benchmark probes', () => {
  it("splits a process's RSS into files and anonymous memory, and finds its malloc arena", () => {
    const c = rssComposition(process.pid);
    assert.ok(c.rss_mib > 10 && c.file_mib > 0 && c.anonymous_mib > 0 && c.malloc_arena_mib > 0, JSON.stringify(c));
    assert.ok(Math.abs(c.file_mib + c.anonymous_mib - c.rss_mib) < 2, 'file + anonymous is the RSS (shared memory aside)');
    assert.ok(c.malloc_arena_mib <= c.anonymous_mib);
  });

  it('has a process started with --heapsnapshot-signal write a whole snapshot, and finds it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-snapshot-'));
    const child = spawn(process.execPath, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`, '-e', 'globalThis.kept = Array.from({ length: 3000 }, () => new (class ProbeKept {})()); setTimeout(() => {}, 60000); console.log("up")'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const file = await takeHeapSnapshot(child.pid ?? 0, dir, 60_000);
      const kept = summarizeHeapSnapshotFile(file, 100000).top.find((r) => r.type === 'ProbeKept');
      assert.equal(kept?.count, 3000);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
