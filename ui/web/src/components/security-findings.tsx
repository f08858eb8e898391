// The findings table of the Security screen: every filter the route takes (namespace,
// severity, kind, fixable, search, sort), paging on the agent (page, page size, the total; a
// page past the end shows the last one, as the agent clamps it), grouping by image, and the
// export links carrying the same filters. The filters are the URL's: the screen owns them.
// Each select is named by aria-label too: a wrapping label's name would also read out the
// selected option ("Severity Any severity").
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type SyntheticEvent } from 'react';
import { Link } from 'wouter';
import { findings, findingsExportUrl, type FindingRow, type Findings, type ImageGroup } from '../api/queries/security';
import { EXPORTS, KINDS, PAGE_SIZES, SEARCH_MAX, SEVERITIES, SORTS, DEFAULT_PAGE_SIZE, pageCount, pageRange, withFilter, type FindingsFilters } from '../security/view';
import { SeverityBadge } from './security-charts';
import { SortableTable, type Column } from './sortable-table';
import { QueryView } from './states';

const KIND_LABEL: Record<(typeof KINDS)[number], string> = { vuln: 'Vulnerabilities', misconfig: 'Misconfigurations' };

/** The cluster-model view of a misconfiguration's workload (`deployment:shop/web`). */
export const workloadHref = (namespace: string, kind: string, name: string): string => `/graph/${encodeURIComponent(`${kind.toLowerCase()}:${namespace}/${name}`)}`;

function Filters({ filters, namespaces, onChange }: { filters: FindingsFilters; namespaces: readonly string[]; onChange: (next: FindingsFilters) => void }) {
  const [search, setSearch] = useState(filters.search ?? '');
  // Back/forward or a shared link changes the URL's search under the box: follow it.
  useEffect(() => setSearch(filters.search ?? ''), [filters.search]);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    onChange(withFilter(filters, 'search', search.trim() || undefined));
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Findings filters">
      <label>
        Namespace
        <select aria-label="Namespace" value={filters.namespace ?? ''} onChange={(e) => onChange(withFilter(filters, 'namespace', e.target.value || undefined))}>
          <option value="">All namespaces</option>
          {[...new Set([...namespaces, ...(filters.namespace ? [filters.namespace] : [])])].map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
      <label>
        Severity
        <select aria-label="Severity" value={filters.severity ?? ''} onChange={(e) => onChange(withFilter(filters, 'severity', SEVERITIES.find((s) => s === e.target.value)))}>
          <option value="">Any severity</option>
          {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      <label>
        Kind
        <select aria-label="Kind" value={filters.kind ?? ''} onChange={(e) => onChange(withFilter(filters, 'kind', KINDS.find((k) => k === e.target.value)))}>
          <option value="">Both kinds</option>
          {KINDS.map((k) => <option key={k} value={k}>{KIND_LABEL[k]}</option>)}
        </select>
      </label>
      <label>
        Sort
        <select aria-label="Sort" value={filters.sort ?? 'severity'} onChange={(e) => onChange(withFilter(filters, 'sort', SORTS.find((s) => s === e.target.value && s !== 'severity')))}>
          {SORTS.map((s) => <option key={s} value={s}>{s === 'cvss' ? 'CVSS' : s}</option>)}
        </select>
      </label>
      <label className="inline">
        <input type="checkbox" checked={filters.fixable === true} onChange={(e) => onChange(withFilter(filters, 'fixable', e.target.checked ? true : undefined))} />
        Fixable vulnerabilities only
      </label>
      <label className="inline">
        <input type="checkbox" checked={filters.groupByImage === true} onChange={(e) => onChange(withFilter(filters, 'groupByImage', e.target.checked ? true : undefined))} />
        Group by image
      </label>
      <label>
        Search findings
        <input type="search" value={search} maxLength={SEARCH_MAX} onChange={(e) => setSearch(e.target.value)} placeholder="workload, image, CVE, check…" />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** The agent sorts and pages the findings: the table keeps its order (a page is not the whole). */
const FINDING_COLUMNS: Column<FindingRow>[] = [
  { key: 'severity', label: 'Severity', value: (r) => r.severity, render: (r) => <SeverityBadge severity={r.severity} /> },
  { key: 'kind', label: 'Kind', value: (r) => (r.kind === 'vuln' ? 'vulnerability' : 'misconfiguration') },
  { key: 'namespace', label: 'Namespace', value: (r) => r.namespace },
  {
    key: 'workload',
    label: 'Workload',
    value: (r) => (r.kind === 'misconfig' ? `${r.workload_kind}/${r.workload}` : r.workload),
    render: (r) => (r.kind === 'misconfig' ? <Link href={workloadHref(r.namespace, r.workload_kind, r.workload)}>{r.workload_kind}/{r.workload}</Link> : r.workload),
  },
  {
    key: 'finding',
    label: 'Finding',
    value: (r) => (r.kind === 'vuln' ? r.cve : r.check_id),
    render: (r) =>
      r.kind === 'vuln' ? (
        <><code>{r.cve}</code> in {r.pkg} {r.installed_ver}{r.cvss !== null ? ` · CVSS ${r.cvss}` : ''}<div className="muted">{r.image}</div></>
      ) : (
        <><code>{r.check_id}</code> {r.message}</>
      ),
  },
  { key: 'fix', label: 'Fix', value: (r) => (r.kind === 'vuln' ? (r.fixed_ver ? `upgrade to ${r.fixed_ver}` : 'no fix yet') : r.remediation) },
];

/** Every group is in hand (not a page), so sorting them by another count is honest. */
const GROUP_COLUMNS: Column<ImageGroup>[] = [
  { key: 'image', label: 'Image', value: (g) => g.image, render: (g) => <code>{g.image}</code>, rowHeader: true },
  { key: 'findings', label: 'Findings', value: (g) => g.findings, numeric: true },
  ...SEVERITIES.map((s): Column<ImageGroup> => ({ key: s, label: s, value: (g) => g.by_severity[s], numeric: true })),
  { key: 'fixable', label: 'Fixable', value: (g) => g.fixable, numeric: true },
  { key: 'workloads', label: 'Workloads', value: (g) => g.workloads, numeric: true },
];

function Groups({ groups }: { groups: readonly ImageGroup[] }) {
  return (
    <SortableTable
      rows={groups}
      columns={GROUP_COLUMNS}
      rowKey={(g) => g.image}
      caption="Vulnerabilities by image, most severe first"
      accessibleName="Vulnerabilities by image"
      empty="No vulnerability matches, so no image to group (vulnerabilities come from a scanner's reports)."
    />
  );
}

function Pager({ data, filters, onChange }: { data: Findings; filters: FindingsFilters; onChange: (next: FindingsFilters) => void }) {
  const size = data.page_size ?? filters.pageSize ?? DEFAULT_PAGE_SIZE;
  const total = data.total ?? 0;
  // The agent's page, not the asked one: a page past the end came back as the last.
  const page = data.page ?? 1;
  const pages = pageCount(total, size);
  const { from, to } = pageRange(page, size, total);
  return (
    <nav className="pager" aria-label="Findings pages">
      <button type="button" disabled={page <= 1} onClick={() => onChange(withFilter(filters, 'page', page - 1 > 1 ? page - 1 : undefined))}>Previous page</button>
      <span aria-live="polite">Page {page} of {pages} · showing {from}–{to} of {total}</span>
      <button type="button" disabled={!data.has_more} onClick={() => onChange(withFilter(filters, 'page', page + 1))}>Next page</button>
      <label>
        Rows per page
        <select aria-label="Rows per page" value={size} onChange={(e) => onChange(withFilter(filters, 'pageSize', Number(e.target.value) === DEFAULT_PAGE_SIZE ? undefined : Number(e.target.value)))}>
          {[...new Set([...PAGE_SIZES, size])].sort((a, b) => a - b).map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </label>
    </nav>
  );
}

export function FindingsPanel({ filters, namespaces, onChange }: { filters: FindingsFilters; namespaces: readonly string[]; onChange: (next: FindingsFilters) => void }) {
  const query = useQuery(findings(filters));
  return (
    <>
      <Filters filters={filters} namespaces={namespaces} onChange={onChange} />
      <p className="exports">
        Export what matches:{' '}
        {EXPORTS.map((x, i) => (
          <span key={`${x.format}-${x.kind ?? 'all'}`}>
            {i > 0 ? ' · ' : ''}
            <a href={findingsExportUrl(filters, x.format, x.kind)} download>{x.label}</a>
          </span>
        ))}
      </p>
      <QueryView query={query} what="findings">
        {(data) => (
          <>
            {filters.groupByImage ? (
              <section aria-labelledby="by-image">
                <h3 id="by-image">By image</h3>
                <Groups groups={data.groups ?? []} />
              </section>
            ) : null}
            <p className="muted" aria-live="polite" data-testid="findings-total">{data.total ?? 0} findings match</p>
            <SortableTable
              rows={data.rows ?? []}
              columns={FINDING_COLUMNS}
              rowKey={(r) => r.id}
              caption={`Findings, sorted by ${filters.sort ?? 'severity'}`}
              accessibleName="Findings"
              sortable={false}
              empty="No finding matches these filters."
              rowAttributes={(r) => ({ 'data-kind': r.kind, 'data-severity': r.severity })}
            />
            <Pager data={data} filters={filters} onChange={onChange} />
          </>
        )}
      </QueryView>
    </>
  );
}
