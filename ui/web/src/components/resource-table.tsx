// One page of resource rows (a built-in kind or a custom one) in the one table: name (linked
// to the object's page), namespace, status, the kind's own columns, age. The agent pages and
// filters; the table sorts the page it was given.
import { Link } from 'wouter';
import type { ResourceRow } from '../api/queries/resources';
import { columnLabel, formatColumn } from './format';
import { SortableTable, type Column } from './sortable-table';
import { Empty } from './states';
import { Time } from './time';

/** Kinds whose pods the pods list can show (the pods' `owner` column names their workload). */
const POD_OWNERS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

function columnsFor(rows: readonly ResourceRow[], hrefOf: (row: ResourceRow) => string | null): Column<ResourceRow>[] {
  const own = [...new Set(rows.flatMap((r) => Object.keys(r.columns)))];
  return [
    {
      key: 'name',
      label: 'Name',
      value: (r) => r.name,
      render: (r) => {
        const href = hrefOf(r);
        return (
          <>
            {href === null ? r.name : <Link href={href}>{r.name}</Link>}
            {r.problem ? <span className="badge critical"> problem</span> : null}
            {POD_OWNERS.has(r.kind) && r.namespace !== null ? (
              <>
                {' '}
                <Link href={`/resources/pods?${new URLSearchParams({ namespace: r.namespace, owner: `${r.kind}/${r.name}` }).toString()}`} aria-label={`Pods of ${r.name}`}>
                  pods
                </Link>
              </>
            ) : null}
          </>
        );
      },
    },
    { key: 'namespace', label: 'Namespace', value: (r) => r.namespace },
    { key: 'status', label: 'Status', value: (r) => r.status },
    ...own.map((key): Column<ResourceRow> => ({
      key: `c:${key}`,
      label: columnLabel(key),
      value: (r) => r.columns[key] ?? null,
      render: (r) => formatColumn(key, r.columns[key] ?? null),
      numeric: rows.some((r) => typeof r.columns[key] === 'number'),
    })),
    { key: 'age', label: 'Age', value: (r) => r.created_at, render: (r) => <Time at={r.created_at} /> },
  ];
}

export function ResourceTable({ label, rows, hrefOf }: { label: string; rows: readonly ResourceRow[]; hrefOf: (row: ResourceRow) => string | null }) {
  if (rows.length === 0) return <Empty>Nothing matches.</Empty>;
  return <SortableTable rows={rows} columns={columnsFor(rows, hrefOf)} rowKey={(r) => r.id} caption={`${label} (this page)`} />;
}
