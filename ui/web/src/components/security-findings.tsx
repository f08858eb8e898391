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
import { Empty, QueryView } from './states';

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

function Row({ r }: { r: FindingRow }) {
  return (
    <tr data-kind={r.kind} data-severity={r.severity}>
      <td><SeverityBadge severity={r.severity} /></td>
      <td>{r.kind === 'vuln' ? 'vulnerability' : 'misconfiguration'}</td>
      <td>{r.namespace}</td>
      <td>{r.kind === 'misconfig' ? <Link href={workloadHref(r.namespace, r.workload_kind, r.workload)}>{r.workload_kind}/{r.workload}</Link> : r.workload}</td>
      <td>
        {r.kind === 'vuln' ? (
          <><code>{r.cve}</code> in {r.pkg} {r.installed_ver}{r.cvss !== null ? ` · CVSS ${r.cvss}` : ''}<div className="muted">{r.image}</div></>
        ) : (
          <><code>{r.check_id}</code> {r.message}</>
        )}
      </td>
      <td>{r.kind === 'vuln' ? (r.fixed_ver ? `upgrade to ${r.fixed_ver}` : 'no fix yet') : r.remediation}</td>
    </tr>
  );
}

function Groups({ groups }: { groups: readonly ImageGroup[] }) {
  if (groups.length === 0) return <Empty>No vulnerability matches, so no image to group (vulnerabilities come from a scanner's reports).</Empty>;
  return (
    <div className="table-wrap">
      <table aria-label="Vulnerabilities by image">
        <caption>Vulnerabilities by image, most severe first</caption>
        <thead>
          <tr>
            <th scope="col">Image</th>
            <th scope="col" className="num">Findings</th>
            {SEVERITIES.map((s) => <th key={s} scope="col" className="num">{s}</th>)}
            <th scope="col" className="num">Fixable</th>
            <th scope="col" className="num">Workloads</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.image}>
              <th scope="row"><code>{g.image}</code></th>
              <td className="num">{g.findings}</td>
              {SEVERITIES.map((s) => <td key={s} className="num">{g.by_severity[s]}</td>)}
              <td className="num">{g.fixable}</td>
              <td className="num">{g.workloads}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
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
            {(data.rows ?? []).length === 0 ? (
              <Empty>No finding matches these filters.</Empty>
            ) : (
              <div className="table-wrap">
                <table aria-label="Findings">
                  <caption>Findings, sorted by {filters.sort ?? 'severity'}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Severity</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Namespace</th>
                      <th scope="col">Workload</th>
                      <th scope="col">Finding</th>
                      <th scope="col">Fix</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(data.rows ?? []).map((r) => <Row key={r.id} r={r} />)}
                  </tbody>
                </table>
              </div>
            )}
            <Pager data={data} filters={filters} onChange={onChange} />
          </>
        )}
      </QueryView>
    </>
  );
}
