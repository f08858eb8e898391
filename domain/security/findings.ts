// `GET /security/findings` over the findings a caller may see: the filters, the sorts, the
// paging (an out-of-range page clamps, spec §7) and `group_by=image` (docs/security-posture.md
// "Findings"). Pure: the handler hands in the visible findings.
import type { FindingRow, FindingsAnswer, FindingsInput, FindingsSort, ImageGroup, MisconfigFinding, VulnFinding } from '../../schema/security.ts';
import { FINDINGS_DEFAULT_PAGE_SIZE, SEVERITIES, SEVERITY_RANK, zeroCounts } from '../../schema/security.ts';

/** A finding of either kind, as the filters and sorts see it. */
type Item = { kind: 'vuln'; f: VulnFinding } | { kind: 'misconfig'; f: MisconfigFinding };

function matchesSearch(row: Item, needle: string): boolean {
  const fields = row.kind === 'vuln' ? [row.f.namespace, row.f.workload, row.f.image, row.f.cve, row.f.pkg] : [row.f.namespace, row.f.workload, row.f.resource, row.f.check_id, row.f.message, row.f.container ?? ''];
  return fields.some((f) => f.toLowerCase().includes(needle));
}

const cvssOf = (r: Item) => (r.kind === 'vuln' ? r.f.cvss : null);
const fixableOf = (r: Item) => r.kind === 'vuln' && r.f.fix_available;

/**
 * The default order (`sort=severity`), and every other sort's tie-break: severity, then
 * namespace, workload, id. evaluate() hands its misconfigurations out in this order.
 */
export function compareBySeverity(a: VulnFinding | MisconfigFinding, b: VulnFinding | MisconfigFinding): number {
  return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.namespace.localeCompare(b.namespace) || a.workload.localeCompare(b.workload) || a.id.localeCompare(b.id);
}

const bySeverity = (a: Item, b: Item) => compareBySeverity(a.f, b.f);

const COMPARE: Readonly<Record<FindingsSort, (a: Item, b: Item) => number>> = {
  severity: bySeverity,
  // Highest CVSS first; a finding without one (every misconfiguration) after those with one.
  cvss: (a, b) => {
    const x = cvssOf(a);
    const y = cvssOf(b);
    return (x === null ? 1 : 0) - (y === null ? 1 : 0) || (y ?? 0) - (x ?? 0) || bySeverity(a, b);
  },
  // Fixable vulnerabilities first (the ones an upgrade closes); misconfigurations count as not fixable.
  fixable: (a, b) => Number(fixableOf(b)) - Number(fixableOf(a)) || bySeverity(a, b),
  namespace: (a, b) => a.f.namespace.localeCompare(b.f.namespace) || bySeverity(a, b),
  workload: (a, b) => a.f.workload.localeCompare(b.f.workload) || a.f.namespace.localeCompare(b.f.namespace) || bySeverity(a, b),
};

/** The vulnerabilities per image, most critical first (then high, ..., then by image). */
function imageGroups(vulns: readonly VulnFinding[]): ImageGroup[] {
  const groups = new Map<string, ImageGroup & { keys: Set<string> }>();
  for (const f of vulns) {
    let g = groups.get(f.image);
    if (!g) groups.set(f.image, (g = { image: f.image, findings: 0, by_severity: zeroCounts(), fixable: 0, workloads: 0, keys: new Set() }));
    g.findings++;
    g.by_severity[f.severity]++;
    if (f.fix_available) g.fixable++;
    g.keys.add(`${f.namespace}/${f.workload}`);
  }
  return [...groups.values()]
    .map(({ keys, ...g }) => ({ ...g, workloads: keys.size }))
    .sort((a, b) => SEVERITIES.reduce((d, s) => d || b.by_severity[s] - a.by_severity[s], 0) || a.image.localeCompare(b.image));
}

function split(items: readonly Item[]): { vulns: VulnFinding[]; misconfigs: MisconfigFinding[] } {
  const vulns: VulnFinding[] = [];
  const misconfigs: MisconfigFinding[] = [];
  for (const item of items) {
    if (item.kind === 'vuln') vulns.push(item.f);
    else misconfigs.push(item.f);
  }
  return { vulns, misconfigs };
}

const row = (item: Item): FindingRow => (item.kind === 'vuln' ? { kind: 'vuln', ...item.f } : { kind: 'misconfig', ...item.f });

/**
 * Filters, sorts and (with `page`) pages the visible findings. `fixable` keeps fixable
 * vulnerabilities and leaves misconfigurations alone (a misconfiguration has no fixed version;
 * ask `kind=vuln` for fixable vulnerabilities only).
 */
export function findingsFor(vulns: readonly VulnFinding[], misconfigs: readonly MisconfigFinding[], input: FindingsInput): FindingsAnswer {
  const needle = input.search?.trim().toLowerCase() ?? '';
  const keep = (r: Item) =>
    (input.namespace === undefined || r.f.namespace === input.namespace) &&
    (input.workload === undefined || r.f.workload === input.workload) &&
    (input.workload_kind === undefined || r.f.workload_kind === input.workload_kind) &&
    (input.severity === undefined || r.f.severity === input.severity) &&
    (input.kind === undefined || r.kind === input.kind) &&
    (input.fixable === undefined || r.kind !== 'vuln' || r.f.fix_available) &&
    (needle === '' || matchesSearch(r, needle));
  const items: Item[] = [...vulns.map((f): Item => ({ kind: 'vuln', f })), ...misconfigs.map((f): Item => ({ kind: 'misconfig', f }))].filter(keep);
  // evaluate() sorted the misconfigurations by severity already and filtering keeps their
  // order; vulnerabilities (none yet) come unsorted, and interleave with them when sorted.
  if (input.sort !== 'severity' || vulns.length > 0) items.sort(COMPARE[input.sort]);
  const all = split(items);
  const groups = input.group_by === 'image' ? { groups: imageGroups(all.vulns) } : {};
  if (input.page === undefined) return { ...all, ...groups };
  const pageSize = input.page_size ?? FINDINGS_DEFAULT_PAGE_SIZE;
  const last = Math.max(1, Math.ceil(items.length / pageSize));
  const page = Math.min(Math.max(1, input.page), last);
  const slice = items.slice((page - 1) * pageSize, page * pageSize);
  return { ...split(slice), rows: slice.map(row), page, page_size: pageSize, total: items.length, has_more: page < last, sort: input.sort, ...groups };
}
