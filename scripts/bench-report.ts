// The benchmark's JSON shape and its markdown rendering, with the issue's targets beside
// what was measured. Targets are reported, met or not; nothing here fails a build.

import type { DashboardBench } from './bench-dashboard.ts';
import type { ClosedLoopResult } from './bench-load.ts';

export type LoadResult = ClosedLoopResult;

export interface BenchReport {
  generated_at: string;
  scenario: string;
  machine: string;
  endpoints: { endpoint: string; direct_list: string; agent: LoadResult[]; direct: LoadResult[] }[];
  rss_mib_after_sync: number;
  rss_mib_after_load: number;
  cold_sync_secs: number;
  /** What scripts/bench-history.ts printed. */
  history: Record<string, unknown> | null;
  /** scripts/bench-dashboard.ts; null when chromium or the build was missing. */
  dashboard: DashboardBench | null;
  /** `/graph/subgraph?focus=namespace:<busiest>&hops=2&budget=4000`; absent in reports from before it existed. */
  subgraph?: LoadResult[];
}

const TARGETS = { p99AtFiftyMs: 5, listRatio: 5, rssMib: 200, syncSecs: 3, historyMib: 200, historyP99Ms: 50, initialJsKib: 250 };

const mark = (ok: boolean) => (ok ? 'met' : '**not met**');

/** Numbers the history script reported, found by name so its JSON may grow. */
function historyNumbers(history: Record<string, unknown>): { bytes: number | null; p99: [string, number][] } {
  let bytes: number | null = null;
  const p99: [string, number][] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'number') {
      if (bytes === null && /bytes/i.test(path) && !/wal/i.test(path)) bytes = value;
      if (/p99/i.test(path)) p99.push([path, value]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    }
  };
  walk(history, '');
  return { bytes, p99 };
}

export function markdownReport(r: BenchReport): string {
  const lines = [
    '# Benchmark',
    '',
    `\`npm run bench\` on the \`${r.scenario}\` scenario (5000 pods, 500 namespaces, 50 KWOK nodes), ${r.machine}; generated ${r.generated_at}.`,
    'Latencies are client-side over loopback HTTP with an API key; "direct LIST" asks the API server the same question',
    '(all pods for /overview and /incidents, the namespace\'s pods for the pods list). The raw numbers are in',
    '`results/latest.json`. Targets come from issue 4 and are reported, not enforced.',
    '',
    '| endpoint | concurrency | p50 ms | p99 ms | req/s | direct LIST req/s | ratio |',
    '|---|---|---|---|---|---|---|',
  ];
  const verdicts: string[] = [];
  for (const e of r.endpoints) {
    for (const a of e.agent) {
      const d = e.direct.find((x) => x.concurrency === a.concurrency);
      const ratio = d && d.throughput_rps !== null && d.throughput_rps > 0 && a.throughput_rps !== null ? Math.round((a.throughput_rps / d.throughput_rps) * 10) / 10 : null;
      lines.push(`| \`${e.endpoint}\` | ${a.concurrency} | ${a.p50_ms} | ${a.p99_ms} | ${a.throughput_rps} | ${d?.throughput_rps ?? '–'} | ${ratio === null ? '–' : `${ratio}×`} |`);
      if (a.concurrency === 50) {
        verdicts.push(`- \`${e.endpoint}\` p99 at 50 concurrent ≤ ${TARGETS.p99AtFiftyMs} ms: ${a.p99_ms} ms, ${mark(a.p99_ms !== null && a.p99_ms <= TARGETS.p99AtFiftyMs)}`);
        if (ratio !== null) verdicts.push(`- \`${e.endpoint}\` ≥ ${TARGETS.listRatio}× direct-LIST throughput: ${ratio}×, ${mark(ratio >= TARGETS.listRatio)}`);
      }
    }
  }
  for (const g of r.subgraph ?? []) lines.push(`| \`/graph/subgraph\` (2 hops, 4k-token budget) | ${g.concurrency} | ${g.p50_ms} | ${g.p99_ms} | ${g.throughput_rps} | – | – |`);
  lines.push('', '| measure | value | target |', '|---|---|---|');
  lines.push(`| agent RSS after sync | ${r.rss_mib_after_sync} MiB | ≤ ${TARGETS.rssMib} MiB (${mark(r.rss_mib_after_sync <= TARGETS.rssMib)}) |`);
  lines.push(`| agent RSS after the load runs | ${r.rss_mib_after_load} MiB | |`);
  lines.push(`| cold informer sync (listening → /readyz 200) | ${r.cold_sync_secs} s | ≤ ${TARGETS.syncSecs} s (${mark(r.cold_sync_secs <= TARGETS.syncSecs)}) |`);
  if (r.history) {
    const h = historyNumbers(r.history);
    if (h.bytes !== null) {
      const mib = Math.round((h.bytes / 2 ** 20) * 10) / 10;
      lines.push(`| history store, 5000 pods × 7 days | ${mib} MiB | ≤ ${TARGETS.historyMib} MiB (${mark(mib <= TARGETS.historyMib)}) |`);
    }
    for (const [name, value] of h.p99) lines.push(`| history ${name} | ${value} ms | ≤ ${TARGETS.historyP99Ms} ms (${mark(value <= TARGETS.historyP99Ms)}) |`);
  } else {
    lines.push('| history store | not measured (the history benchmark failed; see the run log) | |');
  }
  const d = r.dashboard;
  if (d) {
    lines.push(`| dashboard initial JS (gzip) | ${d.initial_js_gzip_kib} KiB (+ ${d.initial_css_gzip_kib} KiB CSS; all screens ${d.all_js_gzip_kib} KiB) | ≤ ${TARGETS.initialJsKib} KiB (${mark(d.initial_js_gzip_kib <= TARGETS.initialJsKib)}) |`);
    lines.push(`| dashboard cold load of /overview to the table, chromium on loopback | median ${d.cold_load_overview_ms.median} ms, max ${d.cold_load_overview_ms.max} ms over ${d.cold_load_overview_ms.runs} runs | |`);
  } else {
    lines.push('| dashboard | not measured (see the run log) | |');
  }
  lines.push('', '## Against the targets', '', ...verdicts, '');
  return lines.join('\n');
}
