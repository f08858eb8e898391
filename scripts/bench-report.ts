// The JSON shape of `npm run bench` and its markdown, with the issue's targets beside what was
// measured. Pure: no I/O, so the rendering rules are unit-tested (tests/unit/bench-report.test.ts).
// Two rules hold everywhere: a run with any error answer is a failed row, shown with its
// status histogram and never with a figure; and a target is reported met or not, never asserted.
import type { ClusterBringUp } from './bench-cluster.ts';
import type { DashboardBench } from './bench-dashboard.ts';
import type { ClosedLoopResult, OpenLoopResult } from './bench-load.ts';

export type Credential = 'api-key' | 'session';

export interface ReadInfo {
  id: string;
  /** What the table calls it: method and path (the MCP call names its tool). */
  label: string;
}

/** One read, one credential, one concurrency: Capstan, then the floor serving its bytes, back to back. */
export interface ClosedRow {
  read: string;
  credential: Credential;
  concurrency: number;
  agent: ClosedLoopResult;
  floor: ClosedLoopResult;
}

export interface OpenRow {
  read: string;
  credential: Credential;
  offered_rps: number;
  agent: OpenLoopResult;
  floor: OpenLoopResult;
}

/** A read whose answer could not be captured (non-2xx, or an MCP tool error): nothing of it was measured. */
export interface CaptureFailure {
  read: string;
  credential: Credential;
  status: string;
  detail: string;
}

export interface OpenSkipped {
  read: string;
  credential: Credential;
  offered_rps: number;
  /** The floor's highest closed-loop throughput for this read and credential. */
  floor_saturation_rps: number;
}

/**
 * What the security reads were measured over (issue 16): the posture of the built-in checks and
 * how many findings they gave. A posture that covers no workload measured an empty answer, and
 * counts as a failed run.
 */
export interface SecurityAtRun {
  workloads_covered: number;
  findings_total: number;
  grade: string;
  score: number;
}

export interface ScaleRun {
  scenario: string;
  /** The full measured set (both credentials, every concurrency and rate) or the reduced one. */
  full: boolean;
  cluster: ClusterBringUp | null;
  /** The namespace the namespace-scoped reads ask about. */
  namespace: string | null;
  reads: ReadInfo[];
  /** Agent listening → /readyz 200. */
  ready_secs: number | null;
  /** Agent listening → every scenario pod listed by the agent. */
  all_pods_secs: number | null;
  pods_seen: number | null;
  rss_mib_after_sync: number | null;
  rss_mib_samples_after_sync: number[];
  rss_mib_after_load: number | null;
  rss_mib_samples_after_load: number[];
  closed: ClosedRow[];
  open: OpenRow[];
  /** Open-loop rates not offered because the floor itself saturates below them. */
  open_skipped: OpenSkipped[];
  capture_failures: CaptureFailure[];
  /** The namespace's pods asked of the API server directly (client certificate), same client loop; null when not run. */
  direct_list: { path: string; runs: ClosedLoopResult[] } | null;
  /** The security posture the security reads answered, read once before they were measured; null when not read. */
  security: SecurityAtRun | null;
  /** Why this scale stopped early; what it measured before is kept. */
  error: string | null;
}

export interface BenchReport {
  generated_at: string;
  machine: string;
  /** Every knob the run used (see the top of scripts/bench.ts). */
  settings: Record<string, string | number>;
  scales: ScaleRun[];
  /** The agent's heap by object type on the full-set scale; null when no summary was taken. */
  heap_summary: unknown;
  /** What scripts/bench-history.ts printed; null when it failed or was skipped. */
  history: Record<string, unknown> | null;
  /** scripts/bench-dashboard.ts; null when chromium or the build was missing, or skipped. */
  dashboard: DashboardBench | null;
}

export const TARGETS = {
  floorSharePct: 50,
  openP99Ms: 10,
  openRate: 500,
  openReads: ['pods', 'overview'],
  rssMib: 200,
  rssAfterLoadRatio: 1.5,
  syncSecs: 3,
  historyMib: 200,
  historyP99Ms: 50,
  initialJsKib: 250,
} as const;

export const PROFILE_MARKER = '<!-- profile findings: kept across runs -->';

const round1 = (n: number) => Math.round(n * 10) / 10;
const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
const num = (n: number | null) => (n === null ? '–' : String(n));

export type ClosedVerdict = { verdict: 'failed'; pct: null } | { verdict: 'met' | 'not met'; pct: number };

/** Capstan's share of the floor's throughput; a row with any error on either side is failed and has no share. */
export function closedVerdict(row: ClosedRow): ClosedVerdict {
  const { agent, floor } = row;
  if (agent.errors > 0 || floor.errors > 0 || !agent.served || !floor.served || agent.throughput_rps === null || floor.throughput_rps === null || floor.throughput_rps <= 0) {
    return { verdict: 'failed', pct: null };
  }
  const pct = round1((agent.throughput_rps / floor.throughput_rps) * 100);
  return { verdict: pct >= TARGETS.floorSharePct ? 'met' : 'not met', pct };
}

export type OpenState = 'failed' | 'not sustained' | 'served';

/** Errors fail an open-loop run; requests the generator could not send mean the rate was not sustained. */
export function openState(r: OpenLoopResult): OpenState {
  if (r.errors > 0) return 'failed';
  if (r.not_sent > 0 || !r.served || r.p99_ms === null) return 'not sustained';
  return 'served';
}

export function openVerdict(row: OpenRow): 'met' | 'not met' | 'failed' | 'not sustained' {
  const state = row.floor.errors > 0 ? 'failed' : openState(row.agent);
  if (state !== 'served') return state;
  return (row.agent.p99_ms ?? Infinity) <= TARGETS.openP99Ms ? 'met' : 'not met';
}

/** `200×2000, 429×12` */
export function statusText(statuses: Record<string, number>): string {
  const entries = Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? 'none' : entries.map(([s, n]) => `${s}×${n}`).join(', ');
}

/** Every measured run that failed, in words: the exit status of the bench follows this list. */
export function failures(r: BenchReport): string[] {
  const out: string[] = [];
  for (const s of r.scales) {
    if (s.error !== null) out.push(`${s.scenario}: stopped early: ${s.error}`);
    if (s.security !== null && s.security.workloads_covered === 0) out.push(`${s.scenario}: the security posture covered no workload, so the security reads measured an empty answer`);
    for (const f of s.capture_failures) out.push(`${s.scenario} ${f.read} (${f.credential}): answer not captured, ${f.status}: ${f.detail}`);
    for (const row of s.closed) {
      if (closedVerdict(row).verdict === 'failed') out.push(`${s.scenario} ${row.read} (${row.credential}) at ${row.concurrency} clients: Capstan ${statusText(row.agent.statuses)}; floor ${statusText(row.floor.statuses)}`);
    }
    for (const row of s.open) {
      if (row.agent.errors > 0 || row.floor.errors > 0) out.push(`${s.scenario} ${row.read} at ${row.offered_rps} req/s offered: Capstan ${statusText(row.agent.statuses)}; floor ${statusText(row.floor.statuses)}`);
    }
    for (const run of s.direct_list?.runs ?? []) {
      if (run.errors > 0) out.push(`${s.scenario} direct LIST at ${run.concurrency} clients: ${statusText(run.statuses)}`);
    }
  }
  return out;
}

const labelOf = (s: ScaleRun, id: string) => `\`${s.reads.find((x) => x.id === id)?.label ?? id}\``;

function closedTable(s: ScaleRun, rows: ClosedRow[]): string[] {
  const lines = [
    '| read | credential | clients | Capstan req/s | floor req/s | Capstan % of floor | Capstan p50 / p99 ms | floor p50 / p99 ms | requests (Capstan / floor) | errors | status histogram | ≥ 50 % of floor |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const v = closedVerdict(row);
    const requests = `${row.agent.requests} / ${row.floor.requests}`;
    const errors = `${row.agent.errors} / ${row.floor.errors}`;
    const histogram = `Capstan ${statusText(row.agent.statuses)}; floor ${statusText(row.floor.statuses)}`;
    const head = `| ${labelOf(s, row.read)} | ${row.credential} | ${row.concurrency}`;
    if (v.verdict === 'failed') {
      lines.push(`${head} | failed | failed | – | – | – | ${requests} | **${errors}** | ${histogram} | **failed** |`);
    } else {
      const { agent: a, floor: f } = row;
      lines.push(`${head} | ${num(a.throughput_rps)} | ${num(f.throughput_rps)} | ${v.pct} % | ${num(a.p50_ms)} / ${num(a.p99_ms)} | ${num(f.p50_ms)} / ${num(f.p99_ms)} | ${requests} | ${errors} | ${histogram} | ${mark(v.verdict === 'met')} |`);
    }
  }
  return lines;
}

function openCells(r: OpenLoopResult, failed: boolean): string {
  if (failed) return '– | –';
  if (openState(r) !== 'served') return `not sustained | –`;
  return `${num(r.achieved_rps)} | ${num(r.p50_ms)} / ${num(r.p99_ms)} / ${num(r.p999_ms)}`;
}

function skippedLines(s: ScaleRun): string[] {
  if (s.open_skipped.length === 0) return [];
  return ['', ...s.open_skipped.map((k) => `Not offered: ${labelOf(s, k.read)} at ${k.offered_rps} req/s, above 80 % of what the floor itself served at saturation (${k.floor_saturation_rps} req/s, closed loop) on this machine.`)];
}

function openTable(s: ScaleRun, rows: OpenRow[]): string[] {
  const lines = [
    '| read | offered req/s | Capstan achieved req/s | Capstan p50 / p99 / p99.9 ms | floor achieved req/s | floor p50 / p99 / p99.9 ms | requests (Capstan / floor) | errors | not sent | status histogram |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const failed = row.agent.errors > 0 || row.floor.errors > 0;
    const errors = `${row.agent.errors} / ${row.floor.errors}`;
    lines.push(
      `| ${labelOf(s, row.read)} | ${row.offered_rps} | ${openCells(row.agent, failed)} | ${openCells(row.floor, failed)} | ${row.agent.requests} / ${row.floor.requests} | ${failed ? `**${errors}** (failed)` : errors} | ${row.agent.not_sent} / ${row.floor.not_sent} | Capstan ${statusText(row.agent.statuses)}; floor ${statusText(row.floor.statuses)} |`,
    );
  }
  return lines;
}

function scalingTables(r: BenchReport): string[] {
  const lines = [
    '| scenario | pods | control plane up + settled | agent ready | all pods listed | RSS after sync | RSS after load | after load / after sync |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const s of r.scales) {
    const c = s.cluster;
    const up = c ? `${c.grown_from === null ? '' : `grown from ${c.grown_from}: `}${c.up_secs} + ${c.settle_secs} s${c.settled ? '' : ` (**not settled**: ${c.pods_seen}/${c.pods_expected} pods, ${c.pending_seen} Pending)`}` : '–';
    const ratio = s.rss_mib_after_sync !== null && s.rss_mib_after_load !== null ? `${Math.round((s.rss_mib_after_load / s.rss_mib_after_sync) * 100) / 100}×` : '–';
    const secs = (n: number | null) => (n === null ? '–' : `${n} s`);
    const mib = (n: number | null) => (n === null ? '–' : `${n} MiB`);
    lines.push(`| ${s.scenario}${s.error === null ? '' : ' (stopped early)'} | ${c?.pods_expected ?? '–'} | ${up} | ${secs(s.ready_secs)} | ${secs(s.all_pods_secs)} | ${mib(s.rss_mib_after_sync)} | ${mib(s.rss_mib_after_load)} | ${ratio} |`);
  }
  lines.push('', '| read (API key, 10 clients) | scenario | Capstan req/s | floor req/s | % of floor | Capstan p50 / p99 ms | errors | status histogram |', '|---|---|---|---|---|---|---|---|');
  const ids = [...new Set(r.scales.flatMap((s) => s.reads.map((x) => x.id)))];
  for (const id of ids) {
    for (const s of r.scales) {
      const row = s.closed.find((x) => x.read === id && x.credential === 'api-key' && x.concurrency === 10);
      if (!row) continue;
      const v = closedVerdict(row);
      const figures = v.verdict === 'failed' ? 'failed | failed | – | –' : `${num(row.agent.throughput_rps)} | ${num(row.floor.throughput_rps)} | ${v.pct} % | ${num(row.agent.p50_ms)} / ${num(row.agent.p99_ms)}`;
      lines.push(`| ${labelOf(s, id)} | ${s.scenario} | ${figures} | ${row.agent.errors} / ${row.floor.errors} | Capstan ${statusText(row.agent.statuses)}; floor ${statusText(row.floor.statuses)} |`);
    }
  }
  return lines;
}

function historyLines(history: Record<string, unknown> | null): string[] {
  if (!history) return ['| history store | not measured (failed or skipped; see the run log) | |'];
  const lines: string[] = [];
  const mibValue = history.dbMiB;
  if (typeof mibValue === 'number') lines.push(`| history store, ${String(history.pods)} pods × ${String(history.days)} days | ${mibValue} MiB | ≤ ${TARGETS.historyMib} MiB (${mark(mibValue <= TARGETS.historyMib)}) |`);
  const queries = history.queries;
  if (typeof queries === 'object' && queries !== null) {
    for (const [name, q] of Object.entries(queries)) {
      const p99 = (q as { p99Ms?: unknown }).p99Ms;
      if (typeof p99 === 'number') lines.push(`| history query ${name} p99 | ${p99} ms | ≤ ${TARGETS.historyP99Ms} ms (${mark(p99 <= TARGETS.historyP99Ms)}) |`);
    }
  }
  return lines;
}

function heapLines(heap: unknown): string[] {
  if (heap === null || heap === undefined) return ['Not taken in this run.'];
  if (typeof heap === 'string') return [heap];
  const markdown = (heap as { markdown?: unknown }).markdown;
  if (typeof markdown === 'string') return [markdown];
  return ['```json', JSON.stringify(heap, null, 2), '```'];
}

function totalRetries(r: BenchReport): number {
  let n = 0;
  for (const s of r.scales) {
    for (const row of s.closed) n += row.agent.retries + row.floor.retries;
    for (const row of s.open) n += row.agent.retries + row.floor.retries;
  }
  return n;
}

export function markdownReport(r: BenchReport): string {
  const full = r.scales.find((s) => s.full) ?? null;
  const lines = [
    '# Benchmark',
    '',
    `\`npm run bench\` on ${r.machine}; generated ${r.generated_at}. Raw numbers: \`results/latest.json\`.`,
    `Settings: ${Object.entries(r.settings).map(([k, v]) => `\`${k}=${String(v)}\``).join(', ')}.`,
    '',
    'Every figure is client-side over loopback HTTP, from one Node process with a keep-alive `node:http`',
    'client (`fetch` tops out near a third of its rate, which would cap the floor). "Floor" is a bare Hono app',
    '(`scripts/bench-floor.ts`, the agent\'s own runtime) serving the exact bytes the agent answered',
    'the same read with, measured with the same client and concurrency right after the agent.',
    'The agent runs with `CAPSTAN_RATE_LIMITS=read=10000000`, so the benchmark measures the service,',
    'not its rate limiter. A run with any non-2xx answer is **failed**: it is shown with its status',
    'histogram and no figures, and the bench exits non-zero. An open-loop run whose generator had',
    `to hold requests back (too many unanswered) did not sustain the offered rate and has no figures either.`,
    'A request reset on a reused keep-alive connection before any answer (the server closed it as idle',
    "as the client reused it) is sent once more on a new connection, Node's documented remedy; each such",
    `retry is counted (\`retries\` in \`results/latest.json\`; ${totalRetries(r)} in this run) and its latency includes it.`,
    '',
  ];
  if (full) {
    lines.push(`## Read path against the floor (closed loop, ${full.scenario})`, '', `Namespace-scoped reads ask about \`${full.namespace ?? '?'}\`. Target: Capstan ≥ ${TARGETS.floorSharePct} % of the floor's throughput.`, '');
    lines.push(...closedTable(full, full.closed), '');
    lines.push(`## Latency at a fixed offered rate (open loop, API key, ${full.scenario})`, '', 'Each request is timed from when it was due, not when it was sent.', '');
    lines.push(...openTable(full, full.open), ...skippedLines(full), '');
  }
  lines.push(
    '## Scaling',
    '',
    'The scales run one after the other. A scale grows the control plane of the one before (its scenario begins with',
    'the smaller one\'s objects) unless it says otherwise; "settled" is every scenario pod created and none Pending',
    'but those the scenario keeps Pending. A new agent starts on each settled cluster: "ready" is listening → /readyz,',
    '"all pods listed" listening → every scenario pod in its answers.',
    '',
  );
  lines.push(...scalingTables(r), '');
  const reducedOpen = r.scales.filter((s) => !s.full && s.open.length > 0);
  for (const s of reducedOpen) lines.push(`Open loop on ${s.scenario} (API key):`, '', ...openTable(s, s.open), ...skippedLines(s), '');
  if (full?.direct_list) {
    lines.push(`## Direct LIST (${full.scenario})`, '', `The namespace's pods asked of the API server directly (\`${full.direct_list.path}\`, client certificate), against Capstan's pods list with an API key. The whole-cluster LISTs the earlier bench compared /overview and /incidents with are left out: at about half a second each they cost minutes of the run and compare nothing the floor does not.`, '');
    lines.push('| clients | Capstan req/s | direct LIST req/s | direct LIST p50 / p99 ms | errors | status histogram |', '|---|---|---|---|---|---|');
    for (const d of full.direct_list.runs) {
      const agent = full.closed.find((x) => x.read === 'pods' && x.credential === 'api-key' && x.concurrency === d.concurrency);
      const agentRps = agent && closedVerdict(agent).verdict !== 'failed' ? num(agent.agent.throughput_rps) : '–';
      lines.push(d.errors > 0 ? `| ${d.concurrency} | ${agentRps} | failed | – | **${d.errors}** | ${statusText(d.statuses)} |` : `| ${d.concurrency} | ${agentRps} | ${num(d.throughput_rps)} | ${num(d.p50_ms)} / ${num(d.p99_ms)} | 0 | ${statusText(d.statuses)} |`);
    }
    lines.push('');
  }
  lines.push('## Other measures', '', '| measure | value | target |', '|---|---|---|');
  if (full) {
    if (full.rss_mib_after_sync !== null) lines.push(`| agent RSS after sync, ${full.scenario} (median of ${full.rss_mib_samples_after_sync.length}) | ${full.rss_mib_after_sync} MiB | ≤ ${TARGETS.rssMib} MiB (${mark(full.rss_mib_after_sync <= TARGETS.rssMib)}) |`);
    if (full.rss_mib_after_sync !== null && full.rss_mib_after_load !== null) {
      const ratio = Math.round((full.rss_mib_after_load / full.rss_mib_after_sync) * 100) / 100;
      lines.push(`| agent RSS after the load runs, ${full.scenario} | ${full.rss_mib_after_load} MiB (${ratio}× after sync) | ≤ ${TARGETS.rssAfterLoadRatio}× after sync (${mark(ratio <= TARGETS.rssAfterLoadRatio)}) |`);
    }
    if (full.ready_secs !== null) lines.push(`| cold informer sync, ${full.scenario} (listening → /readyz 200) | ${full.ready_secs} s | ≤ ${TARGETS.syncSecs} s (${mark(full.ready_secs <= TARGETS.syncSecs)}) |`);
  }
  for (const s of r.scales) {
    const sec = s.security;
    if (sec) lines.push(`| security reads measured over, ${s.scenario} (built-in checks) | ${sec.workloads_covered} workloads covered, ${sec.findings_total} findings, grade ${sec.grade} (score ${sec.score}) | workloads covered > 0 (${mark(sec.workloads_covered > 0)}) |`);
  }
  lines.push(...historyLines(r.history));
  const d = r.dashboard;
  if (d) {
    lines.push(`| dashboard initial JS (gzip) | ${d.initial_js_gzip_kib} KiB (+ ${d.initial_css_gzip_kib} KiB CSS; all screens ${d.all_js_gzip_kib} KiB) | ≤ ${TARGETS.initialJsKib} KiB (${mark(d.initial_js_gzip_kib <= TARGETS.initialJsKib)}) |`);
    lines.push(`| dashboard cold load of /overview to the table, chromium on loopback | median ${d.cold_load_overview_ms.median} ms, max ${d.cold_load_overview_ms.max} ms over ${d.cold_load_overview_ms.runs} runs | |`);
    for (const l of d.lists) {
      const times = l.p50_ms === null ? 'no run answered' : `p50 ${l.p50_ms} ms, p99 ${l.p99_ms} ms`;
      lines.push(`| dashboard render: ${l.label}, navigation to ${l.rows} rows on screen (of ${l.total}) | ${times} over ${l.runs - l.errors} runs${l.errors > 0 ? `, ${l.errors} failed` : ''} | |`);
    }
  } else {
    lines.push('| dashboard | not measured (failed or skipped; see the run log) | |');
  }
  lines.push('', `## Heap by object type${full ? ` (${full.scenario}, after the load)` : ''}`, '', ...heapLines(r.heap_summary), '');
  lines.push('## Against the targets', '', ...verdictLines(r), '');
  const failed = failures(r);
  lines.push('## Failed runs', '', ...(failed.length === 0 ? ['None: every measured run was answered 2xx throughout.'] : failed.map((f) => `- ${f}`)), '');
  lines.push('## Profile findings', '');
  return lines.join('\n');
}

function verdictLines(r: BenchReport): string[] {
  const out: string[] = [];
  for (const s of r.scales.filter((x) => x.full)) {
    const byRead = new Map<string, string[]>();
    for (const row of s.closed) {
      const v = closedVerdict(row);
      const cell = v.verdict === 'failed' ? `${row.credential} ×${row.concurrency}: **failed**` : `${row.credential} ×${row.concurrency}: ${v.pct} % ${mark(v.verdict === 'met')}`;
      byRead.set(row.read, [...(byRead.get(row.read) ?? []), cell]);
    }
    for (const [id, cells] of byRead) out.push(`- ${labelOf(s, id)} ≥ ${TARGETS.floorSharePct} % of the floor (${s.scenario}): ${cells.join('; ')}`);
    for (const id of TARGETS.openReads) {
      const row = s.open.find((x) => x.read === id && x.offered_rps === TARGETS.openRate);
      const skipped = s.open_skipped.find((x) => x.read === id && x.offered_rps === TARGETS.openRate);
      if (skipped) out.push(`- ${labelOf(s, id)} p99 ≤ ${TARGETS.openP99Ms} ms at ${TARGETS.openRate} req/s offered (${s.scenario}): **not measurable here**, the floor itself saturates at ${skipped.floor_saturation_rps} req/s for this answer`);
      if (!row) continue;
      const v = openVerdict(row);
      const said = v === 'met' || v === 'not met' ? `p99 ${num(row.agent.p99_ms)} ms, ${mark(v === 'met')}` : `**${v}**, not met`;
      out.push(`- ${labelOf(s, id)} p99 ≤ ${TARGETS.openP99Ms} ms at ${TARGETS.openRate} req/s offered (${s.scenario}): ${said}`);
    }
  }
  return out.length === 0 ? ['No full measured set in this run.'] : out;
}

/** The generated report, then the hand-written profile findings of the previous README, kept from their marker on. */
export function withProfileFindings(generated: string, previous: string): string {
  const kept = previous.includes(PROFILE_MARKER) ? previous.slice(previous.indexOf(PROFILE_MARKER)) : `${PROFILE_MARKER}\n`;
  return `${generated}\n${kept}`;
}
