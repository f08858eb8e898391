// A table whose column headers sort it (click or Enter), with an optional search box.
import { useMemo, useState, type ReactNode } from 'react';

export interface Column<T> {
  key: string;
  label: string;
  value: (row: T) => string | number | null;
  render?: (row: T) => ReactNode;
  numeric?: boolean;
}

export function SortableTable<T>({ rows, columns, rowKey, caption, searchLabel }: { rows: readonly T[]; columns: Column<T>[]; rowKey: (row: T) => string; caption: string; searchLabel?: string }) {
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

  return (
    <div className="table-wrap">
      {searchLabel ? (
        <label className="search">
          {searchLabel}
          <input type="search" data-filter aria-keyshortcuts="/" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
      ) : null}
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const dir = sort?.key === c.key ? sort.dir : 0;
              return (
                <th key={c.key} scope="col" aria-sort={dir === 1 ? 'ascending' : dir === -1 ? 'descending' : 'none'} className={c.numeric ? 'num' : undefined}>
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
          {shown.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.key} className={c.numeric ? 'num' : undefined}>
                  {c.render ? c.render(row) : (c.value(row) ?? '–')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 ? <p className="state empty">Nothing matches.</p> : null}
    </div>
  );
}
