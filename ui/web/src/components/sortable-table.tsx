// The one table every list of the dashboard is drawn with, so each reads, sorts, searches and
// says "nothing here" the same way: a caption (its accessible name), headers that sort it (click
// or Enter), an optional search box, and the list's own empty state. A table whose order is the
// server's (paged there, like the audit timeline) or means something (worst first) turns sorting
// off, whole or per column: sorting one page of many, or breaking a fixed order, would mislead.
import { Fragment, useMemo, useState, type ReactNode } from 'react';
import { Empty } from './states';

export interface Column<T> {
  key: string;
  /** A node, not only text: a column of pictures names itself for screen readers only. */
  label: ReactNode;
  /** What the column sorts and searches by, and shows when it has no `render`; null sorts last. */
  value: (row: T) => string | number | null;
  render?: (row: T) => ReactNode;
  numeric?: boolean;
  /** false: a header, not a sort button (controls, pictures, or an order the server owns). */
  sortable?: false;
  /** Its cells name their row (`<th scope="row">`): a screen reader says it moving along the row. */
  rowHeader?: boolean;
}

export interface SortableTableProps<T> {
  rows: readonly T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  caption: string;
  /** A shorter name than the caption, when the caption also says the order ("Findings"). */
  accessibleName?: string;
  searchLabel?: string;
  /** false: the rows stay in the order given (the server sorted or paged them, or the order means something). */
  sortable?: false;
  /** Said instead of the table when there are no rows at all ("No API keys."). */
  empty?: ReactNode;
  /** The table's own look (`severity-bars`), beyond what every table has. */
  className?: string;
  /** data-* attributes of a row: what styles and tests read it by (data-health, data-severity). */
  rowAttributes?: (row: T) => Record<`data-${string}`, string>;
  /** A full-width row under a row, such as a confirmation that needs the table's width; null for none. */
  rowDetail?: (row: T) => ReactNode;
}

export function SortableTable<T>({ rows, columns, rowKey, caption, accessibleName, searchLabel, sortable, empty, className, rowAttributes, rowDetail }: SortableTableProps<T>) {
  const [sort, setSort] = useState<{ key: string; dir: 1 | -1 } | null>(null);
  const [search, setSearch] = useState('');
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const filtered = needle === '' ? [...rows] : rows.filter((r) => columns.some((c) => String(c.value(r) ?? '').toLowerCase().includes(needle)));
    const column = columns.find((c) => c.key === sort?.key);
    if (!column || !sort) return filtered;
    return filtered.sort((a, b) => {
      const x = column.value(a);
      const y = column.value(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sort.dir;
    });
  }, [rows, columns, sort, search]);

  // No rows at all is the list's own news ("No API keys."), not a search that matched nothing.
  if (rows.length === 0) return <Empty>{empty ?? 'Nothing matches.'}</Empty>;
  return (
    <div className="table-wrap">
      {searchLabel ? (
        <label className="search">
          {searchLabel}
          <input type="search" data-filter aria-keyshortcuts="/" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
      ) : null}
      <table className={className} aria-label={accessibleName}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const numeric = c.numeric ? 'num' : undefined;
              if (sortable === false || c.sortable === false) {
                return (
                  <th key={c.key} scope="col" className={numeric}>
                    {c.label}
                  </th>
                );
              }
              const dir = sort?.key === c.key ? sort.dir : 0;
              return (
                <th key={c.key} scope="col" aria-sort={dir === 1 ? 'ascending' : dir === -1 ? 'descending' : 'none'} className={numeric}>
                  <button type="button" className="sort" onClick={() => setSort({ key: c.key, dir: dir === 1 ? -1 : 1 })}>
                    {c.label}
                    <span aria-hidden="true">{dir === 1 ? ' ▲' : dir === -1 ? ' ▼' : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => {
            const detail = rowDetail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr {...rowAttributes?.(row)}>
                  {columns.map((c) => {
                    const content = c.render ? c.render(row) : (c.value(row) ?? '–');
                    const numeric = c.numeric ? 'num' : undefined;
                    return c.rowHeader ? (
                      <th key={c.key} scope="row" className={numeric}>
                        {content}
                      </th>
                    ) : (
                      <td key={c.key} className={numeric}>
                        {content}
                      </td>
                    );
                  })}
                </tr>
                {detail !== null && detail !== undefined ? (
                  <tr>
                    <td colSpan={columns.length}>{detail}</td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {shown.length === 0 ? <p className="state empty">Nothing matches.</p> : null}
    </div>
  );
}
