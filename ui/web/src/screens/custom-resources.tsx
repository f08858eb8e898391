// Custom resources: the kinds the cluster's CRDs add, one kind's objects (filters and the page
// in the URL, as Resources does), and one object. The agent watches a kind only once someone
// opens it, so the first open may answer "still reading" for a few seconds.
import { useQuery } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { namespaces } from '../api/queries/cluster';
import { customKinds, customListHref, customObject, customObjectHref, customObjects, type CustomFilters, type CustomKind } from '../api/queries/custom-resources';
import { ResourceTable } from '../components/resource-table';
import { SortableTable, type Column } from '../components/sortable-table';
import { QueryView } from '../components/states';
import { ObjectDetail } from './resource-detail';

const KIND_COLUMNS: Column<CustomKind>[] = [
  { key: 'kind', label: 'Kind', value: (k) => k.kind, render: (k) => <Link href={customListHref(k)}>{k.kind}</Link> },
  { key: 'group', label: 'Group', value: (k) => k.group },
  { key: 'version', label: 'Version', value: (k) => k.version },
  { key: 'scope', label: 'Scope', value: (k) => (k.namespaced ? 'Namespaced' : 'Cluster') },
  { key: 'name', label: 'Resource', value: (k) => k.name },
];

export function CustomKindsScreen() {
  const query = useQuery(customKinds());
  return (
    <>
      <p className="crumbs">
        <Link href="/resources/deployments">Resources</Link> / Custom resources
      </p>
      <h1>Custom resources</h1>
      <QueryView query={query} what="custom kinds">
        {(data) => <SortableTable rows={data.items} columns={KIND_COLUMNS} rowKey={(k) => k.name} caption={`${data.items.length} custom kinds`} searchLabel="Search kinds" empty="The cluster has no CustomResourceDefinition." />}
      </QueryView>
    </>
  );
}

const FILTER_KEYS = ['namespace', 'q', 'labels', 'sort', 'cursor'] as const;

function filtersOf(search: string): CustomFilters {
  const params = new URLSearchParams(search);
  const out: CustomFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value === null || value === '') continue;
    if (key === 'sort') out.sort = value === 'age' ? 'age' : 'name';
    else out[key] = value;
  }
  return out;
}

export function CustomObjectsScreen({ group, plural }: { group: string; plural: string }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersOf(search);
  const page = useQuery(customObjects(group, plural, filters));
  const nsList = useQuery(namespaces());
  const [text, setText] = useState(filters.q ?? '');
  const [labels, setLabels] = useState(filters.labels ?? '');
  const base = customListHref({ group, plural });
  const go = (change: Partial<Record<(typeof FILTER_KEYS)[number], string | undefined>>) => {
    const next = new URLSearchParams(search);
    next.delete('cursor');
    for (const [key, value] of Object.entries(change)) {
      if (!value) next.delete(key);
      else next.set(key, value);
    }
    navigate(`${base}${next.size > 0 ? `?${next.toString()}` : ''}`);
  };
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    go({ q: text, labels });
  };
  const namespaced = page.data?.kind.namespaced ?? true;
  return (
    <>
      <p className="crumbs">
        <Link href="/resources/deployments">Resources</Link> / <Link href="/custom-resources">Custom resources</Link> / {plural}.{group}
      </p>
      <h1>{page.data ? page.data.kind.kind : plural}</h1>
      <form className="filters" onSubmit={submit} aria-label="Filters">
        <label>
          Namespace
          <select value={filters.namespace ?? ''} disabled={!namespaced} onChange={(e) => go({ namespace: e.target.value })}>
            <option value="">all visible</option>
            {(nsList.data?.namespaces ?? []).map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name contains
          <input type="search" data-filter value={text} onChange={(e) => setText(e.target.value)} aria-keyshortcuts="/" />
        </label>
        <label>
          Labels
          <input value={labels} placeholder="app=web,tier" onChange={(e) => setLabels(e.target.value)} />
        </label>
        <label>
          Order
          <select value={filters.sort ?? 'name'} onChange={(e) => go({ sort: e.target.value })}>
            <option value="name">by name</option>
            <option value="age">newest first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <QueryView query={page} what={`${plural}.${group}`}>
        {(data) => (
          <>
            {data.unreadable !== null ? (
              <p className="error" role="alert">
                {data.unreadable}
              </p>
            ) : null}
            {data.truncated ? <p className="error">The agent keeps at most 10 000 objects of one kind; this kind has more, so the list is incomplete.</p> : null}
            <p className="muted">
              {data.total} {data.total === 1 ? 'object' : 'objects'}
              {filters.cursor ? ' (a later page)' : ''}
            </p>
            <ResourceTable label={data.kind.kind} rows={data.items} hrefOf={(r) => customObjectHref(data.kind, r)} />
            <p>
              {filters.cursor ? <button type="button" onClick={() => window.history.back()}>Previous page</button> : null}{' '}
              {data.next_cursor ? <button type="button" onClick={() => navigate(`${base}?${new URLSearchParams({ ...filters, cursor: data.next_cursor ?? '' }).toString()}`)}>Next page</button> : null}
            </p>
          </>
        )}
      </QueryView>
    </>
  );
}

export function CustomObjectScreen({ group, plural, name }: { group: string; plural: string; name: string }) {
  const namespace = new URLSearchParams(useSearch()).get('namespace');
  const query = useQuery(customObject(group, plural, name, namespace));
  return (
    <QueryView query={query} what={name}>
      {(data) => (
        <ObjectDetail
          data={data}
          crumbs={
            <>
              <Link href="/custom-resources">Custom resources</Link> / <Link href={`${customListHref(data.kind)}${namespace === null ? '' : `?namespace=${namespace}`}`}>{data.kind.kind}</Link> / {namespace === null ? '' : `${namespace} / `}
              {name}
            </>
          }
        />
      )}
    </QueryView>
  );
}
