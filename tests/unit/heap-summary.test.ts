import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeHeapSnapshot } from 'node:v8';
import { heapSummaryMarkdown, summarizeHeapSnapshot, summarizeHeapSnapshotFile } from '../../scripts/heap-summary.ts';

const META = {
  node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
  node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic', 'concatenated string', 'sliced string', 'symbol', 'bigint', 'object shape'], 'string', 'number', 'number', 'number', 'number', 'number'],
};

/** A snapshot of the given nodes: [type, name, self size]. */
function snapshotOf(nodes: [string, string, number][]) {
  const types = META.node_types[0] as string[];
  const strings: string[] = [];
  const nameIndex = (name: string) => {
    const i = strings.indexOf(name);
    return i >= 0 ? i : strings.push(name) - 1;
  };
  return { snapshot: { meta: META }, nodes: nodes.flatMap(([type, name, size], id) => [types.indexOf(type), nameIndex(name), id, size, 0, 0, 0]), strings };
}

class HeapSummaryProbe {
  constructor(readonly n: number) {}
}

describe('heap snapshot summary', () => {
  it('groups objects by constructor, every string kind as one type, and V8 internals by what they are', () => {
    const summary = summarizeHeapSnapshot(
      snapshotOf([
        ['object', 'PodRow', 100],
        ['object', 'PodRow', 100],
        ['string', 'tenant-001', 24],
        ['concatenated string', 'tenant-001/api', 32],
        ['sliced string', 'api', 20],
        ['code', 'slimPod', 400],
        ['closure', 'slimPod', 32],
        ['hidden', 'system / Context', 40],
        ['array', '(object elements)', 64],
        ['array', '', 16],
        ['native', 'system / JSArrayBufferData', 1000],
      ]),
    );
    const row = (type: string) => summary.top.find((r) => r.type === type);
    assert.deepEqual(row('PodRow'), { type: 'PodRow', count: 2, self_bytes: 200 });
    assert.deepEqual(row('(string)'), { type: '(string)', count: 3, self_bytes: 76 });
    assert.deepEqual(row('(compiled code)'), { type: '(compiled code)', count: 1, self_bytes: 400 });
    assert.deepEqual(row('(closure)'), { type: '(closure)', count: 1, self_bytes: 32 });
    assert.deepEqual(row('(system) Context'), { type: '(system) Context', count: 1, self_bytes: 40 });
    assert.deepEqual(row('(array) (object elements)'), { type: '(array) (object elements)', count: 1, self_bytes: 64 });
    assert.deepEqual(row('(array)'), { type: '(array)', count: 1, self_bytes: 16 });
    assert.equal(summary.top[0]?.type, 'system / JSArrayBufferData', 'largest first');
    assert.equal(summary.total_bytes, 1828);
    assert.equal(summary.total_nodes, 11);
    assert.equal(summary.native_bytes, 1000);
    assert.deepEqual(
      summary.by_node_type.find((r) => r.type === 'object'),
      { type: 'object', count: 2, self_bytes: 200 },
    );
  });

  it('keeps the top N types, and the markdown table accounts for the rest and the total', () => {
    const summary = summarizeHeapSnapshot(
      snapshotOf([
        ['object', 'A', 300],
        ['object', 'B', 200],
        ['object', 'C', 100],
        ['object', 'C', 100],
      ]),
      2,
    );
    assert.deepEqual(
      summary.top.map((r) => r.type),
      ['A', 'B'],
    );
    const table = heapSummaryMarkdown(summary);
    assert.match(table, /^\| type \| count \| self size \(MiB\) \| share \|$/m);
    assert.match(table, /^\| A \| 1 \| 0\.00 \| 42\.9 % \|$/m);
    assert.match(table, /^\| everything else \| 2 \| 0\.00 \| 28\.6 % \|$/m);
    assert.match(table, /^\| \*\*total\*\* \| 4 \| \*\*0\.00\*\* \| \|$/m);
  });

  it('refuses what is not a heap snapshot', () => {
    assert.throws(() => summarizeHeapSnapshot({ nodes: [] }), /not a V8 heap snapshot/);
  });

  it("reads a real snapshot of this process and finds a class's instances", () => {
    const keep = Array.from({ length: 5000 }, (_, i) => new HeapSummaryProbe(i));
    const dir = mkdtempSync(join(tmpdir(), 'heap-summary-'));
    try {
      const summary = summarizeHeapSnapshotFile(writeHeapSnapshot(join(dir, 'test.heapsnapshot')), 100000);
      const probe = summary.top.find((r) => r.type === 'HeapSummaryProbe');
      assert.ok(probe, 'the class is among the types');
      assert.equal(probe.count, keep.length);
      assert.ok(probe.self_bytes >= keep.length * 16, 'each instance has a header and one field');
      assert.ok(summary.top.some((r) => r.type === '(string)') && summary.top.some((r) => r.type === '(compiled code)'));
      assert.equal(
        summary.by_node_type.reduce((n, r) => n + r.self_bytes, 0),
        summary.total_bytes,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
