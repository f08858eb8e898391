// Browse the cluster by kind: every filter and the page live in the URL (a view is a link,
// Back goes to the previous page); rows link to the pod's story or the object's place in the
// cluster model. The agent pages (keyset, 100 rows); the table sorts a page.
import { useQuery } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { namespaces } from '../api/queries/cluster';
import { detailHref, KINDS, resources, type Kind, type ResourceFilters, type ResourceRow } from '../api/queries/resources';
import { QueryView } from '../components/states';
import { ResourceTable } from '../components/resource-table';

const FILTER_KEYS = ['namespace', 'q', 'labels', 'status', 'owner', 'sort', 'cursor'] as const;
/** Kinds without a namespace: the namespace filter does not apply. */
const CLUSTER_SCOPED: ReadonlySet<Kind> = new Set(['nodes', 'persistentvolumes']);

function filtersOf(search: string): ResourceFilters {
  const params = new URLSearchParams(search);
  const out: ResourceFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value === null || value === '') continue;
    if (key === 'status') out.status = value === 'problem' ? 'problem' : 'ok';
    else if (key === 'sort') out.sort = value === 'age' ? 'age' : 'name';
    else out[key] = value;
  }
  return out;
}

/** Events have no page of their own; everything else opens its detail. */
function linkOf(row: ResourceRow, kind: Kind): string | null {
  return row.kind === 'Event' ? null : detailHref(row, kind);
}

export function ResourcesScreen({ kind }: { kind: Kind }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersOf(search);
  const page = useQuery(resources(kind, filters));
  const nsList = useQuery(namespaces());
  const [text, setText] = useState(filters.q ?? '');
  const [labels, setLabels] = useState(filters.labels ?? '');
  const label = KINDS.find((k) => k.kind === kind)?.label ?? kind;
  const go = (nextKind: Kind, change: Partial<Record<(typeof FILTER_KEYS)[number], string | undefined>>) => {
    const next = new URLSearchParams(search);
    // Any new filter starts again from the first page; another kind drops what does not apply to it.
    next.delete('cursor');
    if (nextKind !== kind) next.delete('owner');
    if (CLUSTER_SCOPED.has(nextKind)) next.delete('namespace');
    for (const [key, value] of Object.entries(change)) {
      if (!value) next.delete(key);
      else next.set(key, value);
    }
    navigate(`/resources/${nextKind}${next.size > 0 ? `?${next.toString()}` : ''}`);
  };
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    go(kind, { q: text, labels });
  };
  return (
    <>
      <h1>{label}</h1>
      <p className="muted">
        Kinds the cluster's CRDs add: <Link href="/custom-resources">Custom resources</Link>
      </p>
      {filters.owner ? (
        <p className="muted">
          Of {filters.owner} <Link href={`/resources/${kind}${filters.namespace ? `?namespace=${filters.namespace}` : ''}`}>(show all)</Link>
        </p>
      ) : null}
      <form className="filters" onSubmit={submit} aria-label="Filters">
        <label>
          Kind
          <select value={kind} onChange={(e) => go(e.target.value as Kind, {})}>
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Namespace
          <select value={filters.namespace ?? ''} disabled={CLUSTER_SCOPED.has(kind)} onChange={(e) => go(kind, { namespace: e.target.value })}>
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
          Health
          <select value={filters.status ?? ''} onChange={(e) => go(kind, { status: e.target.value })}>
            <option value="">any</option>
            <option value="problem">with a problem</option>
            <option value="ok">without a problem</option>
          </select>
        </label>
        <label>
          Order
          <select value={filters.sort ?? 'name'} onChange={(e) => go(kind, { sort: e.target.value })}>
            <option value="name">by name</option>
            <option value="age">newest first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <QueryView query={page} what={label}>
        {(data) => (
          <>
            <p className="muted">
              {data.total} {data.total === 1 ? 'object' : 'objects'}
              {filters.cursor ? ' (a later page)' : ''}
            </p>
            <ResourceTable label={label} rows={data.items} hrefOf={(r) => linkOf(r, kind)} />
            <p>
              {filters.cursor ? <button type="button" onClick={() => window.history.back()}>Previous page</button> : null}{' '}
              {data.next_cursor ? <button type="button" onClick={() => navigate(`/resources/${kind}?${new URLSearchParams({ ...filters, cursor: data.next_cursor ?? '' }).toString()}`)}>Next page</button> : null}
            </p>
          </>
        )}
      </QueryView>
    </>
  );
}
