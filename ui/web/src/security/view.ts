// The Security screen's pure logic: the findings filters as the URL carries them (so a view can
// be shared) and as the agent takes them, the export links, the paging arithmetic, the
// severity bars, the score trend's line and a workload's own findings. No React, no fetch: the
// unit tests (tests/unit/ui-security-view.test.ts) load this file directly.
import type { operations } from '../api/schema.js';

type FindingsAnswer = operations['get_security_findings']['responses'][200]['content']['application/json'];
export type Vuln = FindingsAnswer['vulns'][number];
export type Misconfig = FindingsAnswer['misconfigs'][number];
export type SecuritySeverity = Misconfig['severity'];
export type SeverityCounts = Record<SecuritySeverity, number>;

/** Worst first: the agent's ladder (schema/security.ts SEVERITIES). */
export const SEVERITIES: readonly SecuritySeverity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'];
export const SORTS = ['severity', 'cvss', 'fixable', 'namespace', 'workload'] as const;
export type Sort = (typeof SORTS)[number];
export const KINDS = ['vuln', 'misconfig'] as const;
export type Kind = (typeof KINDS)[number];
/** The page sizes offered; the agent serves 1–500 (schema/security.ts FINDINGS_MAX_PAGE_SIZE). */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;
/** The agent refuses longer searches (400); the box stops there instead. */
export const SEARCH_MAX = 200;

/** The findings view as the URL spells it; absent means "any" (or the default). */
export interface FindingsFilters {
  namespace?: string;
  severity?: SecuritySeverity;
  kind?: Kind;
  fixable?: true;
  search?: string;
  sort?: Sort;
  groupByImage?: true;
  page?: number;
  pageSize?: number;
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const isOneOf = <T extends string>(options: readonly T[], value: string | null): value is T => value !== null && (options as readonly string[]).includes(value);

function positive(value: string | null, max: number): number | undefined {
  if (value === null || !/^\d{1,6}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= max ? n : undefined;
}

/**
 * The filters a URL's query carries. Values the agent would refuse are dropped rather than
 * passed on: a hand-edited or stale link still opens a working view, just less filtered.
 */
export function filtersFromSearch(search: string): FindingsFilters {
  const q = new URLSearchParams(search);
  const f: FindingsFilters = {};
  const namespace = q.get('namespace');
  if (namespace !== null && NAMESPACE.test(namespace) && namespace.length <= 63) f.namespace = namespace;
  const severity = q.get('severity');
  if (isOneOf(SEVERITIES, severity)) f.severity = severity;
  const kind = q.get('kind');
  if (isOneOf(KINDS, kind)) f.kind = kind;
  if (q.get('fixable') === 'true') f.fixable = true;
  const text = q.get('search')?.trim();
  if (text) f.search = text.slice(0, SEARCH_MAX);
  const sort = q.get('sort');
  if (isOneOf(SORTS, sort) && sort !== 'severity') f.sort = sort;
  if (q.get('group_by') === 'image') f.groupByImage = true;
  const page = positive(q.get('page'), 999_999);
  if (page !== undefined && page > 1) f.page = page;
  const size = positive(q.get('page_size'), 500);
  if (size !== undefined && size !== DEFAULT_PAGE_SIZE) f.pageSize = size;
  return f;
}

/** The filters that narrow what matches (shared by the table and the export), in the agent's spelling. */
function matchQuery(f: FindingsFilters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.namespace) q.namespace = f.namespace;
  if (f.severity) q.severity = f.severity;
  if (f.kind) q.kind = f.kind;
  if (f.fixable) q.fixable = 'true';
  if (f.search) q.search = f.search;
  if (f.sort) q.sort = f.sort;
  return q;
}

/** The URL query for these filters, defaults left out so equal views share one address. */
export function searchFromFilters(f: FindingsFilters): string {
  const q: Record<string, string> = matchQuery(f);
  if (f.groupByImage) q.group_by = 'image';
  if (f.page !== undefined && f.page > 1) q.page = String(f.page);
  if (f.pageSize !== undefined && f.pageSize !== DEFAULT_PAGE_SIZE) q.page_size = String(f.pageSize);
  return new URLSearchParams(q).toString();
}

/** `GET /security/findings`'s query: always paged (the table pages on the server). */
export function findingsApiQuery(f: FindingsFilters): Record<string, string> {
  return { ...matchQuery(f), ...(f.groupByImage ? { group_by: 'image' } : {}), page: String(f.page ?? 1), page_size: String(f.pageSize ?? DEFAULT_PAGE_SIZE) };
}

/**
 * The filters after one control changed. Anything that changes what matches starts again at
 * page 1 (page 7 of the old answer means nothing in the new one); the page control keeps it.
 */
export function withFilter<K extends keyof FindingsFilters>(f: FindingsFilters, key: K, value: FindingsFilters[K] | undefined): FindingsFilters {
  const next: FindingsFilters = { ...f, [key]: value, ...(key === 'page' ? {} : { page: undefined }) };
  // Absent, not `undefined`: equal views compare (and cache) equal.
  return Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined && v !== ''));
}

export type ExportFormat = 'json' | 'csv' | 'md' | 'html';

/** The export buttons: CSV holds one kind per file, so it has one button per kind. */
export const EXPORTS: readonly { format: ExportFormat; kind?: Kind; label: string }[] = [
  { format: 'json', label: 'JSON' },
  { format: 'csv', kind: 'vuln', label: 'CSV (vulnerabilities)' },
  { format: 'csv', kind: 'misconfig', label: 'CSV (misconfigurations)' },
  { format: 'md', label: 'Markdown' },
  { format: 'html', label: 'HTML' },
];

/**
 * A download link for what the table shows, every match rather than one page (the browser
 * fetches it with the session cookie). A per-kind export overrides the kind filter.
 */
export function exportUrl(f: FindingsFilters, format: ExportFormat, kind?: Kind): string {
  const q = { format, ...matchQuery(f), ...(kind ? { kind } : {}) };
  return `/api/agent/security/findings/export?${new URLSearchParams(q).toString()}`;
}

/** Pages in an answer of `total` rows: at least one, so "page 1 of 1" reads right when nothing matches. */
export const pageCount = (total: number, pageSize: number): number => Math.max(1, Math.ceil(total / pageSize));

/** "Showing 51–100 of 234": the rows a page holds, 0–0 when there are none. */
export function pageRange(page: number, pageSize: number, total: number): { from: number; to: number } {
  if (total === 0) return { from: 0, to: 0 };
  const from = (page - 1) * pageSize + 1;
  return { from, to: Math.min(total, page * pageSize) };
}

/** One bar per severity, worst first, its width a share of the largest count (0–1). */
export function severityBars(counts: SeverityCounts): { severity: SecuritySeverity; count: number; share: number }[] {
  const max = Math.max(0, ...SEVERITIES.map((s) => counts[s]));
  return SEVERITIES.map((severity) => ({ severity, count: counts[severity], share: max === 0 ? 0 : counts[severity] / max }));
}

/** The badge class of a grade: the dashboard's three health colours. */
export function gradeTone(grade: string): 'healthy' | 'degraded' | 'critical' {
  if (grade.startsWith('A')) return 'healthy';
  if (grade.startsWith('B') || grade.startsWith('C')) return 'degraded';
  return 'critical';
}

/** The formula with this posture's inputs, so a reader can redo the score (docs/security-posture.md). */
export function scoreFormula(checks: { passed: number; warnings: number; dangers: number }): string {
  const { passed: p, warnings: w, dangers: d } = checks;
  if (p + w + d === 0) return 'No check has run yet: nothing to score.';
  return `⌊100 × 2·${p} / (2·${p} + ${w} + 2·${d})⌋ = ${Math.floor((100 * 2 * p) / (2 * p + w + 2 * d))}`;
}

type TrendAnswer = operations['get_security_posture_trend']['responses'][200]['content']['application/json'];
/** One stored scan on the score trend (the agent's schema/security-scan.ts ScoreTrendPoint). */
export type ScoreTrendPoint = TrendAnswer['points'][number];
/** What the trend's line and words read of a point. */
type TrendScore = Pick<ScoreTrendPoint, 'score' | 'grade'>;

/**
 * The score trend as an SVG polyline in a `width`×`height` box: oldest left, 0 at the bottom and
 * 100 at the top (a fixed scale, so a flat line near the top reads as good). One point is
 * drawn as a level line across the box.
 */
export function trendLine(points: readonly TrendScore[], width: number, height: number): { d: string; dots: { x: number; y: number }[] } {
  if (points.length === 0) return { d: '', dots: [] };
  const y = (score: number) => Number((height - (Math.min(100, Math.max(0, score)) / 100) * height).toFixed(1));
  const step = points.length === 1 ? 0 : width / (points.length - 1);
  const dots = points.map((p, i) => ({ x: Number((i * step).toFixed(1)), y: y(p.score) }));
  const first = dots[0] ?? { x: 0, y: 0 };
  const d = points.length === 1 ? `M0 ${first.y} H${width}` : dots.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x} ${p.y}`).join(' ');
  return { d, dots };
}

/** The trend in words, for the figure's label and for a screen reader: first and last score. */
export function trendSummary(points: readonly TrendScore[]): string {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return 'No scans yet';
  if (points.length === 1) return `One scan: score ${last.score} (${last.grade})`;
  return `${points.length} scans: score ${first.score} (${first.grade}) to ${last.score} (${last.grade})`;
}

/** The graph's workload kinds a misconfiguration names in `workload_kind`. */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod']);

export type WorkloadFinding = ({ kind: 'vuln' } & Vuln) | ({ kind: 'misconfig' } & Misconfig);

const rank = (s: SecuritySeverity) => SEVERITIES.indexOf(s);

/**
 * One workload's findings, worst first, then by check or CVE. The route already filters by
 * exact namespace, name and kind; checking them again here keeps the section right whatever
 * answer it is handed.
 */
export function findingsOfWorkload(answer: { vulns: readonly Vuln[]; misconfigs: readonly Misconfig[] }, workload: { namespace: string; kind: string; name: string }): WorkloadFinding[] {
  const rows: WorkloadFinding[] = [
    ...answer.vulns.filter((f) => f.namespace === workload.namespace && f.workload === workload.name && f.workload_kind === workload.kind).map((f) => ({ kind: 'vuln' as const, ...f })),
    ...answer.misconfigs.filter((f) => f.namespace === workload.namespace && f.workload === workload.name && f.workload_kind === workload.kind).map((f) => ({ kind: 'misconfig' as const, ...f })),
  ];
  const label = (r: WorkloadFinding) => (r.kind === 'vuln' ? r.cve : r.check_id);
  return rows.sort((a, b) => rank(a.severity) - rank(b.severity) || label(a).localeCompare(label(b)) || a.id.localeCompare(b.id));
}
