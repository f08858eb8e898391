// The Security screen's pure logic: the findings filters through the URL and to the agent
// (bad values dropped, defaults left out, a filter change going back to page 1), the export
// links, paging arithmetic, severity bars, the score formula and trend line, and one
// workload's findings picked exactly out of a search that matches more.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  exportUrl,
  filtersFromSearch,
  findingsApiQuery,
  findingsOfWorkload,
  gradeTone,
  pageCount,
  pageRange,
  scoreFormula,
  searchFromFilters,
  severityBars,
  trendLine,
  trendSummary,
  withFilter,
  type FindingsFilters,
  type Misconfig,
  type Vuln,
} from '../../ui/web/src/security/view.ts';

describe('filtersFromSearch', () => {
  const cases: { name: string; search: string; filters: FindingsFilters }[] = [
    { name: 'nothing', search: '', filters: {} },
    {
      name: 'every filter',
      search: 'namespace=shop&severity=HIGH&kind=misconfig&fixable=true&search=web&sort=cvss&group_by=image&page=3&page_size=100',
      filters: { namespace: 'shop', severity: 'HIGH', kind: 'misconfig', fixable: true, search: 'web', sort: 'cvss', groupByImage: true, page: 3, pageSize: 100 },
    },
    { name: 'the defaults read as absent', search: 'sort=severity&page=1&page_size=50', filters: {} },
    { name: 'a lower-case severity is not one', search: 'severity=high', filters: {} },
    { name: 'an unknown kind, sort and group are dropped', search: 'kind=secret&sort=age&group_by=namespace', filters: {} },
    { name: 'fixable only as true', search: 'fixable=1', filters: {} },
    { name: 'a namespace that is no namespace name', search: 'namespace=Shop_1', filters: {} },
    { name: 'page 0, negative or not a number', search: 'page=0&page_size=-5', filters: {} },
    { name: 'page_size above the agent maximum', search: 'page_size=501', filters: {} },
    { name: 'page_size at the maximum', search: 'page_size=500', filters: { pageSize: 500 } },
    { name: 'search trimmed, blank dropped', search: 'search=%20%20', filters: {} },
    { name: 'search cut at 200 characters', search: `search=${'x'.repeat(250)}`, filters: { search: 'x'.repeat(200) } },
    { name: 'unknown parameters ignored', search: 'foo=bar&namespace=payments', filters: { namespace: 'payments' } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(filtersFromSearch(c.search), c.filters));
});

describe('searchFromFilters and findingsApiQuery', () => {
  it('round-trips through the URL', () => {
    const f: FindingsFilters = { namespace: 'shop', severity: 'CRITICAL', kind: 'vuln', fixable: true, search: 'open ssl', sort: 'fixable', groupByImage: true, page: 2, pageSize: 25 };
    assert.deepEqual(filtersFromSearch(searchFromFilters(f)), f);
  });
  it('leaves defaults out of the URL', () => {
    assert.equal(searchFromFilters({}), '');
    assert.equal(searchFromFilters({ page: 1, pageSize: 50 }), '');
    assert.equal(searchFromFilters({ severity: 'LOW', page: 4 }), 'severity=LOW&page=4');
  });
  it('always asks the agent for a page, 1 and 50 unless told', () => {
    assert.deepEqual(findingsApiQuery({}), { page: '1', page_size: '50' });
    assert.deepEqual(findingsApiQuery({ namespace: 'shop', fixable: true, groupByImage: true, sort: 'workload', page: 3, pageSize: 200 }), {
      namespace: 'shop',
      fixable: 'true',
      sort: 'workload',
      group_by: 'image',
      page: '3',
      page_size: '200',
    });
  });
});

describe('withFilter', () => {
  const at7: FindingsFilters = { namespace: 'shop', page: 7 };
  const cases: { name: string; next: FindingsFilters; want: FindingsFilters }[] = [
    { name: 'a new severity goes back to page 1', next: withFilter(at7, 'severity', 'HIGH'), want: { namespace: 'shop', severity: 'HIGH' } },
    { name: 'clearing a filter removes it and the page', next: withFilter(at7, 'namespace', undefined), want: {} },
    { name: 'a new page size goes back to page 1', next: withFilter(at7, 'pageSize', 100), want: { namespace: 'shop', pageSize: 100 } },
    { name: 'the page control keeps the filters', next: withFilter(at7, 'page', 8), want: { namespace: 'shop', page: 8 } },
    { name: 'an empty search is no search', next: withFilter({ search: 'web' }, 'search', ''), want: {} },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(c.next, c.want));
});

describe('exportUrl', () => {
  const f: FindingsFilters = { namespace: 'shop', severity: 'HIGH', kind: 'vuln', search: 'a&b', sort: 'cvss', groupByImage: true, page: 3, pageSize: 25 };
  it('carries the filters, not the page or the grouping', () => {
    const url = new URL(exportUrl(f, 'json'), 'http://x');
    assert.equal(url.pathname, '/api/agent/security/findings/export');
    assert.deepEqual(Object.fromEntries(url.searchParams), { format: 'json', namespace: 'shop', severity: 'HIGH', kind: 'vuln', search: 'a&b', sort: 'cvss' });
  });
  it('a per-kind CSV overrides the kind filter', () => {
    assert.equal(new URL(exportUrl(f, 'csv', 'misconfig'), 'http://x').searchParams.get('kind'), 'misconfig');
    assert.equal(new URL(exportUrl({}, 'csv', 'vuln'), 'http://x').search, '?format=csv&kind=vuln');
  });
});

describe('paging', () => {
  const cases: { total: number; size: number; page: number; pages: number; from: number; to: number }[] = [
    { total: 0, size: 50, page: 1, pages: 1, from: 0, to: 0 },
    { total: 1, size: 50, page: 1, pages: 1, from: 1, to: 1 },
    { total: 50, size: 50, page: 1, pages: 1, from: 1, to: 50 },
    { total: 51, size: 50, page: 2, pages: 2, from: 51, to: 51 },
    { total: 234, size: 25, page: 3, pages: 10, from: 51, to: 75 },
  ];
  for (const c of cases) {
    it(`${c.total} rows by ${c.size}, page ${c.page}`, () => {
      assert.equal(pageCount(c.total, c.size), c.pages);
      assert.deepEqual(pageRange(c.page, c.size, c.total), { from: c.from, to: c.to });
    });
  }
});

describe('severityBars', () => {
  it('worst first, each a share of the largest', () => {
    assert.deepEqual(severityBars({ CRITICAL: 2, HIGH: 8, MEDIUM: 4, LOW: 0, UNKNOWN: 1 }), [
      { severity: 'CRITICAL', count: 2, share: 0.25 },
      { severity: 'HIGH', count: 8, share: 1 },
      { severity: 'MEDIUM', count: 4, share: 0.5 },
      { severity: 'LOW', count: 0, share: 0 },
      { severity: 'UNKNOWN', count: 1, share: 0.125 },
    ]);
  });
  it('all zero draws nothing (no division by zero)', () => {
    assert.ok(severityBars({ CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 }).every((b) => b.share === 0));
  });
});

describe('grade and score', () => {
  const tones: [string, string][] = [['A+', 'healthy'], ['A-', 'healthy'], ['B', 'degraded'], ['C-', 'degraded'], ['D+', 'critical'], ['F', 'critical']];
  for (const [grade, tone] of tones) it(`${grade} is ${tone}`, () => assert.equal(gradeTone(grade), tone));
  it("shows Polaris' formula with the inputs and its result", () => {
    // 2·30 / (60 + 10 + 2·5) = 60/80 = 75
    assert.equal(scoreFormula({ passed: 30, warnings: 10, dangers: 5 }), '⌊100 × 2·30 / (2·30 + 10 + 2·5)⌋ = 75');
    assert.equal(scoreFormula({ passed: 7, warnings: 0, dangers: 0 }), '⌊100 × 2·7 / (2·7 + 0 + 2·0)⌋ = 100');
    assert.match(scoreFormula({ passed: 0, warnings: 0, dangers: 0 }), /No check has run/);
  });
});

describe('trendLine', () => {
  it('nothing for no points', () => assert.deepEqual(trendLine([], 100, 50), { d: '', dots: [] }));
  it('one point is a level line across the box', () => {
    assert.deepEqual(trendLine([{ score: 80, grade: 'B' }], 100, 50), { d: 'M0 10 H100', dots: [{ x: 0, y: 10 }] });
  });
  it('oldest left, 100 at the top, 0 at the bottom, out-of-range scores clamped', () => {
    const line = trendLine(
      [
        { score: 0, grade: 'F' },
        { score: 50, grade: 'F' },
        { score: 120, grade: 'A+' },
      ],
      100,
      50,
    );
    assert.equal(line.d, 'M0 50 L50 25 L100 0');
  });
  it('says it in words', () => {
    assert.equal(trendSummary([]), 'No scans yet');
    assert.equal(trendSummary([{ score: 72, grade: 'C-' }]), 'One scan: score 72 (C-)');
    assert.equal(trendSummary([{ score: 72, grade: 'C-' }, { score: 70, grade: 'C-' }, { score: 91, grade: 'A-' }]), '3 scans: score 72 (C-) to 91 (A-)');
  });
});

describe('findingsOfWorkload', () => {
  const misconfig = (namespace: string, kind: string, workload: string, check: string, severity: Misconfig['severity']): Misconfig => ({
    id: `${namespace}/${kind}/${workload}#${check}`,
    namespace,
    workload,
    workload_kind: kind,
    check_id: check,
    severity,
    message: `${workload} fails ${check}`,
    remediation: `fix ${check}`,
    resource: `${kind}/${workload}`,
    container: null,
    source: 'capstan',
  });
  const vuln = (namespace: string, workload: string, cve: string, severity: Vuln['severity']): Vuln => ({
    id: `${namespace}/Deployment/${workload}#${cve}:openssl:img`,
    namespace,
    workload,
    workload_kind: 'Deployment',
    image: 'img',
    cve,
    severity,
    cvss: 7.5,
    pkg: 'openssl',
    installed_ver: '3.0.1',
    fixed_ver: '3.0.2',
    fix_available: true,
    source: 'trivy',
  });
  const answer = {
    misconfigs: [
      misconfig('shop', 'Deployment', 'web', 'hygiene-no-probes', 'LOW'),
      misconfig('shop', 'Deployment', 'web', 'pss-baseline-privileged', 'CRITICAL'),
      // Not web's: a longer name, another kind, another namespace.
      misconfig('shop', 'Deployment', 'web-admin', 'pss-baseline-privileged', 'CRITICAL'),
      misconfig('shop', 'CronJob', 'web', 'hygiene-latest-tag', 'MEDIUM'),
      misconfig('blog', 'Deployment', 'web', 'pss-baseline-privileged', 'CRITICAL'),
    ],
    vulns: [vuln('shop', 'web', 'CVE-2024-0002', 'HIGH'), vuln('shop', 'web', 'CVE-2024-0001', 'HIGH'), vuln('shop', 'webhook', 'CVE-2024-0003', 'CRITICAL')],
  };
  it("keeps the workload's own, worst first, then by check or CVE", () => {
    const rows = findingsOfWorkload(answer, { namespace: 'shop', kind: 'Deployment', name: 'web' });
    assert.deepEqual(
      rows.map((r) => [r.kind, r.severity, r.kind === 'vuln' ? r.cve : r.check_id]),
      [
        ['misconfig', 'CRITICAL', 'pss-baseline-privileged'],
        ['vuln', 'HIGH', 'CVE-2024-0001'],
        ['vuln', 'HIGH', 'CVE-2024-0002'],
        ['misconfig', 'LOW', 'hygiene-no-probes'],
      ],
    );
  });
  it('a same-named workload of another kind keeps its own misconfigurations', () => {
    const rows = findingsOfWorkload(answer, { namespace: 'shop', kind: 'CronJob', name: 'web' });
    assert.deepEqual(rows.filter((r) => r.kind === 'misconfig').map((r) => r.id), ['shop/CronJob/web#hygiene-latest-tag']);
  });
  it('nothing for a workload without findings', () => assert.deepEqual(findingsOfWorkload(answer, { namespace: 'shop', kind: 'Deployment', name: 'cart' }), []));
});
