// What a V8 heap snapshot holds, by object type: the table `npm run bench:memory` prints for
// the agent after sync (issue 13), and a command for one snapshot file:
//   node --import tsx scripts/heap-summary.ts FILE.heapsnapshot [TOP]
// Types are grouped as DevTools' summary groups them: objects by constructor name, strings,
// compiled code, closures and the like by their node type, V8's internal arrays and system
// objects by their name. Sizes are self sizes (the object alone, not what it keeps alive).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface HeapTypeRow {
  type: string;
  count: number;
  self_bytes: number;
}

export interface HeapSummary {
  /** Every node's self size: the JS heap's live objects, plus the ArrayBuffer contents V8 reports as native nodes. */
  total_bytes: number;
  total_nodes: number;
  /** ArrayBuffer and other backing stores outside the JS heap (native nodes), within total_bytes. */
  native_bytes: number;
  /** The same bytes grouped by V8 node type (object, string, code, array, ...), largest first. */
  by_node_type: HeapTypeRow[];
  /** The largest types, by self size. */
  top: HeapTypeRow[];
}

interface SnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: unknown[] } };
  nodes: number[];
  strings: string[];
}

function isSnapshot(value: unknown): value is SnapshotJson {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<SnapshotJson>;
  return Array.isArray(s.nodes) && Array.isArray(s.strings) && Array.isArray(s.snapshot?.meta.node_fields) && Array.isArray(s.snapshot.meta.node_types);
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

/** The row a node counts in: its constructor for objects and native data, its kind otherwise. */
function typeName(nodeType: string, name: string): string {
  if (nodeType === 'object' || nodeType === 'native') return name === '' ? `(${nodeType})` : name;
  if (STRING_TYPES.has(nodeType)) return '(string)';
  if (nodeType === 'code') return '(compiled code)';
  if (nodeType === 'closure') return '(closure)';
  if (nodeType === 'number') return '(heap number)';
  if (nodeType === 'regexp') return 'RegExp';
  // V8's own structures: `system / Context`, `(object properties)`, ... say which.
  if (nodeType === 'hidden' || nodeType === 'array') {
    const detail = name.replace(/^system \/ /, '');
    return `(${nodeType === 'hidden' ? 'system' : 'array'})${detail === '' ? '' : ` ${detail}`}`;
  }
  return `(${nodeType})`;
}

function sortRows(rows: Iterable<HeapTypeRow>): HeapTypeRow[] {
  return [...rows].sort((a, b) => b.self_bytes - a.self_bytes || a.type.localeCompare(b.type));
}

/** Summarizes a parsed `.heapsnapshot` (the JSON V8 writes); `top` rows in `top`. */
export function summarizeHeapSnapshot(snapshot: unknown, top = 15): HeapSummary {
  if (!isSnapshot(snapshot)) throw new Error('not a V8 heap snapshot: expected snapshot.meta.node_fields, node_types, nodes and strings');
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeField = fields.indexOf('type');
  const nameField = fields.indexOf('name');
  const sizeField = fields.indexOf('self_size');
  const nodeTypes = types[typeField];
  if (typeField < 0 || nameField < 0 || sizeField < 0 || !Array.isArray(nodeTypes)) throw new Error('heap snapshot meta lacks the type, name or self_size node field');
  const width = fields.length;
  const { nodes, strings } = snapshot;
  const byType = new Map<string, HeapTypeRow>();
  const byNodeType = new Map<string, HeapTypeRow>();
  const add = (into: Map<string, HeapTypeRow>, type: string, bytes: number) => {
    const row = into.get(type);
    if (row) {
      row.count += 1;
      row.self_bytes += bytes;
    } else into.set(type, { type, count: 1, self_bytes: bytes });
  };
  let total = 0;
  let native = 0;
  for (let i = 0; i + width <= nodes.length; i += width) {
    const nodeType = String(nodeTypes[nodes[i + typeField] ?? -1] ?? 'unknown');
    const bytes = nodes[i + sizeField] ?? 0;
    total += bytes;
    if (nodeType === 'native') native += bytes;
    add(byNodeType, nodeType, bytes);
    add(byType, typeName(nodeType, strings[nodes[i + nameField] ?? -1] ?? ''), bytes);
  }
  return { total_bytes: total, total_nodes: Math.floor(nodes.length / width), native_bytes: native, by_node_type: sortRows(byNodeType.values()), top: sortRows(byType.values()).slice(0, top) };
}

/** Reads and summarizes a `.heapsnapshot` file (tens of MiB for the agent: parsed whole). */
export function summarizeHeapSnapshotFile(path: string, top = 15): HeapSummary {
  return summarizeHeapSnapshot(JSON.parse(readFileSync(path, 'utf8')) as unknown, top);
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(2);

/** The summary as a markdown table: one row per type, then the total. */
export function heapSummaryMarkdown(summary: HeapSummary): string {
  const share = (bytes: number) => (summary.total_bytes > 0 ? `${((100 * bytes) / summary.total_bytes).toFixed(1)} %` : '–');
  const lines = ['| type | count | self size (MiB) | share |', '|---|---|---|---|'];
  for (const row of summary.top) lines.push(`| ${row.type.replace(/\|/g, '\\|')} | ${row.count} | ${mib(row.self_bytes)} | ${share(row.self_bytes)} |`);
  const shown = summary.top.reduce((n, r) => n + r.self_bytes, 0);
  lines.push(`| everything else | ${summary.total_nodes - summary.top.reduce((n, r) => n + r.count, 0)} | ${mib(summary.total_bytes - shown)} | ${share(summary.total_bytes - shown)} |`);
  lines.push(`| **total** | ${summary.total_nodes} | **${mib(summary.total_bytes)}** | |`);
  return lines.join('\n') + '\n';
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node --import tsx scripts/heap-summary.ts FILE.heapsnapshot [TOP]\n');
    process.exit(2);
  }
  const summary = summarizeHeapSnapshotFile(file, top ? Number(top) : 15);
  process.stdout.write(heapSummaryMarkdown(summary));
  process.stdout.write(`\nby node type: ${summary.by_node_type.map((r) => `${r.type} ${mib(r.self_bytes)} MiB`).join(', ')}\n`);
}
