import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClosedLoopResult, OpenLoopResult } from '../../scripts/bench-load.ts';
import { closedVerdict, failures, markdownReport, openVerdict, PROFILE_MARKER, statusText, withProfileFindings, type BenchReport, type ClosedRow, type OpenRow, type OpenSkipped, type ScaleRun } from '../../scripts/bench-report.ts';

function closed(concurrency: number, rps: number, statuses: Record<string, number> = { '200': 2000 }): ClosedLoopResult {
  const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = Object.entries(statuses).reduce((n, [s, c]) => (s.startsWith('2') ? n : n + c), 0);
  const served = errors === 0;
  return { concurrency, requests, errors, statuses, retries: 0, served, throughput_rps: served ? rps : null, p50_ms: served ? 1.25 : null, p99_ms: served ? 4.75 : null };
}

function open(offered: number, p99: number, extra: Partial<OpenLoopResult> = {}): OpenLoopResult {
  return { offered_rps: offered, duration_secs: 5, requests: offered * 5, errors: 0, statuses: { '200': offered * 5 }, served: true, retries: 0, achieved_rps: offered, p50_ms: 0.9, p99_ms: p99, p999_ms: p99 * 2, not_sent: 0, ...extra };
}

function scale(rows: ClosedRow[], openRows: OpenRow[] = [], full = true, skipped: OpenSkipped[] = []): ScaleRun {
  return {
    scenario: full ? 'scale-5000' : 'scale-1000',
    full,
    cluster: { scenario: 'scale-5000', grown_from: null, up_secs: 150, settle_secs: 3, settled: true, pods_expected: 5000, pods_seen: 5000, pending_expected: 30, pending_seen: 30 },
    namespace: 'tenant-001',
    reads: [
      { id: 'pods', label: 'GET /namespaces/tenant-001/pods' },
      { id: 'overview', label: 'GET /overview' },
    ],
    ready_secs: 2.5,
    all_pods_secs: 3.1,
    pods_seen: 5000,
    rss_mib_after_sync: 180,
    rss_mib_samples_after_sync: [180, 180, 181],
    rss_mib_after_load: 300,
    rss_mib_samples_after_load: [300, 300, 301],
    closed: rows,
    open: openRows,
    open_skipped: skipped,
    capture_failures: [],
    direct_list: null,
    security: null,
    error: null,
  };
}

function report(scales: ScaleRun[]): BenchReport {
  return { generated_at: '2026-11-23T00:00:00.000Z', machine: '2 CPU, node v20', settings: { BENCH_REQUESTS: 2000 }, scales, heap_summary: null, history: null, dashboard: null };
}

const row = (agent: ClosedLoopResult, floor: ClosedLoopResult, read = 'pods'): ClosedRow => ({ read, credential: 'api-key', concurrency: agent.concurrency, agent, floor });
const tableRow = (markdown: string, needle: string) => markdown.split('\n').filter((l) => l.startsWith('|') && l.includes(needle));

describe('bench report', () => {
  it('gives Capstan as a percentage of the floor, met at 50 % and above', () => {
    assert.deepEqual(closedVerdict(row(closed(10, 6000), closed(10, 12000))), { verdict: 'met', pct: 50 });
    assert.deepEqual(closedVerdict(row(closed(10, 1339), closed(10, 12886))), { verdict: 'not met', pct: 10.4 });
  });

  it('a row with an error on either side is failed: no share, no figure, its histogram shown', () => {
    const throttled = row(closed(10, 0, { '200': 46, '429': 1954 }), closed(10, 14072.5));
    assert.deepEqual(closedVerdict(throttled), { verdict: 'failed', pct: null });
    assert.equal(closedVerdict(row(closed(10, 900), closed(10, 0, { '200': 1999, network: 1 }))).verdict, 'failed');

    const md = markdownReport(report([scale([throttled])]));
    const lines = [...tableRow(md, '| api-key | 10 |'), ...tableRow(md, '| scale-5000 | failed')];
    assert.equal(lines.length, 2, 'the closed-loop row and the scaling row');
    for (const line of lines) {
      assert.match(line, /429×1954/);
      assert.match(line, /200×46/);
      assert.match(line, /failed/);
      // The floor's own figures were measured but the row failed: none is shown.
      assert.doesNotMatch(line, /14072\.5|1\.25|4\.75/);
      assert.doesNotMatch(line, / % /);
    }
    assert.deepEqual(failures(report([scale([throttled])])), ['scale-5000 pods (api-key) at 10 clients: Capstan 200×46, 429×1954; floor 200×2000']);
  });

  it('a served row shows both throughputs, the share, latencies, requests, errors and the histogram', () => {
    const md = markdownReport(report([scale([row(closed(1, 1339), closed(1, 12886)), row(closed(50, 7000), closed(50, 14000))])]));
    const [low, high] = tableRow(md, '| api-key | ');
    assert.ok(low && high);
    assert.match(low, /\| 1339 \| 12886 \| 10\.4 % \| 1\.25 \/ 4\.75 \| 1\.25 \/ 4\.75 \| 2000 \/ 2000 \| 0 \/ 0 \| Capstan 200×2000; floor 200×2000 \| \*\*not met\*\* \|/);
    assert.match(high, /\| 50 % \|.*\| met \|$/);
    assert.deepEqual(failures(report([scale([row(closed(1, 1339), closed(1, 12886))])])), []);
    assert.match(md, /GET \/namespaces\/tenant-001\/pods.* ≥ 50 % of the floor \(scale-5000\): api-key ×1: 10\.4 % \*\*not met\*\*; api-key ×50: 50 % met/);
  });

  it('open loop: p99 ≤ 10 ms at 500 req/s is met or not; errors fail; requests held back mean not sustained', () => {
    const at = (agent: OpenLoopResult, read = 'pods'): OpenRow => ({ read, credential: 'api-key', offered_rps: 500, agent, floor: open(500, 0.8) });
    assert.equal(openVerdict(at(open(500, 9.9))), 'met');
    assert.equal(openVerdict(at(open(500, 10.5))), 'not met');
    const errored = at(open(500, 3, { errors: 3, statuses: { '200': 2497, '503': 3 }, served: false, p50_ms: null, p99_ms: null, p999_ms: null, achieved_rps: null }));
    assert.equal(openVerdict(errored), 'failed');
    const behind = at(open(500, 3, { not_sent: 40, served: false, p50_ms: null, p99_ms: null, p999_ms: null, achieved_rps: null }));
    assert.equal(openVerdict(behind), 'not sustained');

    const md = markdownReport(report([scale([], [at(open(500, 9.9)), at(open(500, 12), 'overview'), errored])]));
    assert.match(md, /GET \/namespaces\/tenant-001\/pods` p99 ≤ 10 ms at 500 req\/s offered \(scale-5000\): p99 9\.9 ms, met/);
    assert.match(md, /GET \/overview` p99 ≤ 10 ms at 500 req\/s offered \(scale-5000\): p99 12 ms, \*\*not met\*\*/);
    const failedLine = tableRow(md, '503×3');
    assert.equal(failedLine.length, 1);
    assert.match(failedLine[0] ?? '', /\| – \| – \| – \| – \|/);
    assert.match(failedLine[0] ?? '', /\(failed\)/);
    assert.equal(failures(report([scale([], [errored])])).length, 1);
    // Held back is reported, not an error answer: it does not fail the bench.
    assert.deepEqual(failures(report([scale([], [behind])])), []);
  });

  it('a rate above what the floor itself serves is not offered, and the report says why instead of a verdict', () => {
    const skipped: OpenSkipped = { read: 'overview', credential: 'api-key', offered_rps: 500, floor_saturation_rps: 355.8 };
    const md = markdownReport(report([scale([], [], true, [skipped])]));
    assert.match(md, /Not offered: `GET \/overview` at 500 req\/s, above 80 % of what the floor itself served at saturation \(355\.8 req\/s/);
    assert.match(md, /GET \/overview` p99 ≤ 10 ms at 500 req\/s offered \(scale-5000\): \*\*not measurable here\*\*, the floor itself saturates at 355\.8 req\/s/);
    assert.deepEqual(failures(report([scale([], [], true, [skipped])])), []);
  });

  it('a capture that failed and a scale that stopped early are failed runs', () => {
    const s = { ...scale([]), capture_failures: [{ read: 'mcp', credential: 'api-key' as const, status: '403', detail: 'scope' }], error: 'agent exited' };
    assert.equal(failures(report([s])).length, 2);
  });

  it('reports what the security reads were measured over, and a posture that covered nothing as a failed run', () => {
    const covered = { ...scale([]), security: { workloads_covered: 1000, findings_total: 14000, grade: 'D', score: 64 } };
    assert.match(markdownReport(report([covered])), /\| security reads measured over, scale-5000 \(built-in checks\) \| 1000 workloads covered, 14000 findings, grade D \(score 64\) \| workloads covered > 0 \(met\) \|/);
    assert.deepEqual(failures(report([covered])), []);
    const empty = { ...scale([]), security: { workloads_covered: 0, findings_total: 0, grade: 'A+', score: 100 } };
    assert.deepEqual(failures(report([empty])), ['scale-5000: the security posture covered no workload, so the security reads measured an empty answer']);
  });

  it('the scaling table has one line per scale and per read at 10 clients', () => {
    const small = { ...scale([row(closed(10, 2000), closed(10, 10000))], [], false) };
    const big = scale([row(closed(10, 1800), closed(10, 10000)), row(closed(1, 900), closed(1, 9000))]);
    const md = markdownReport(report([small, big]));
    assert.match(md, /\| scale-1000 \| 5000 \|/);
    assert.match(md, /\| `GET \/namespaces\/tenant-001\/pods` \| scale-1000 \| 2000 \| 10000 \| 20 % \|/);
    assert.match(md, /\| `GET \/namespaces\/tenant-001\/pods` \| scale-5000 \| 1800 \| 10000 \| 18 % \|/);
    assert.match(md, /\| 180 MiB \| 300 MiB \| 1\.67× \|/);
  });

  it('keeps the hand-written profile findings across runs', () => {
    const previous = `# Benchmark\nold figures\n## Profile findings\n\n${PROFILE_MARKER}\nKey hashing was 40 %.\n`;
    assert.equal(withProfileFindings('# Benchmark\nnew figures\n## Profile findings\n', previous), `# Benchmark\nnew figures\n## Profile findings\n\n${PROFILE_MARKER}\nKey hashing was 40 %.\n`);
    assert.equal(withProfileFindings('# new\n', '# no marker here\n'), `# new\n\n${PROFILE_MARKER}\n`);
  });

  it('writes a status histogram in status order', () => {
    assert.equal(statusText({ '429': 3, '200': 10, network: 1 }), '200×10, 429×3, network×1');
    assert.equal(statusText({}), 'none');
  });
});
