// The audit timeline with the spec's filters (kept in the URL), one event with its siblings,
// CSV/JSON export and the hash chain's verification status.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { AUDIT_FILTERS, auditChain, auditEvent, auditEvents, auditExportUrl, type AuditEvent, type AuditFilters } from '../api/queries/audit';
import { SortableTable, type Column } from '../components/sortable-table';
import { QueryView } from '../components/states';
import { Time } from '../components/time';

function Chain() {
  const chain = useQuery(auditChain());
  return (
    <QueryView query={chain} what="chain verification">
      {(c) =>
        c.intact ? (
          <p className="badge healthy">Chain intact: {c.rows_checked} rows verified</p>
        ) : (
          <p className="badge critical" role="alert">
            Chain broken at row {c.first_bad_row} ({c.problem}) after {c.rows_checked} rows
          </p>
        )
      }
    </QueryView>
  );
}

const severityTone = (e: AuditEvent): string => (e.severity === 'critical' ? 'critical' : e.severity === 'warning' ? 'degraded' : 'healthy');

/** Newest first, a page at a time from the agent: sorting what is loaded would hide that more exists. */
const EVENT_COLUMNS: Column<AuditEvent>[] = [
  // Only the general log's events have a page of their own; a terminal command or session end is whole in its row.
  { key: 'when', label: 'When', value: (e) => e.ts, render: (e) => (e.source === 'audit_log' ? <Link href={`/admin/audit/${e.id}`}><Time at={e.ts} /></Link> : <Time at={e.ts} />) },
  { key: 'actor', label: 'Actor', value: (e) => e.actor },
  { key: 'category', label: 'Category', value: (e) => e.category },
  { key: 'severity', label: 'Severity', value: (e) => e.severity, render: (e) => <span className={`badge ${severityTone(e)}`}>{e.severity}</span> },
  { key: 'action', label: 'Action', value: (e) => e.action, render: (e) => (e.source === 'terminal_command' ? <><span>{e.action}</span> <code>{e.detail.command}</code></> : e.action) },
  { key: 'outcome', label: 'Outcome', value: (e) => `${e.outcome}${e.status !== null ? ` (${e.status})` : ''}` },
];

function EventTable({ events, caption, empty }: { events: AuditEvent[]; caption: string; empty: string }) {
  return <SortableTable rows={events} columns={EVENT_COLUMNS} rowKey={(e) => `${e.source}:${String(e.id)}`} caption={caption} sortable={false} empty={empty} />;
}

export function AdminAudit() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filters: AuditFilters = Object.fromEntries(AUDIT_FILTERS.flatMap((f) => (params.get(f) ? [[f, params.get(f) ?? '']] : [])));
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const timeline = useInfiniteQuery(auditEvents(filters));
  const apply = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const next = new URLSearchParams(Object.entries(draft).filter(([, v]) => v.trim() !== ''));
    navigate(`/admin/audit${next.size > 0 ? `?${next.toString()}` : ''}`);
  };
  return (
    <>
      <h1>Audit</h1>
      <Chain />
      <form className="filters" onSubmit={apply} aria-label="Audit filters">
        {AUDIT_FILTERS.map((f) => (
          <label key={f}>
            {f === 'q' ? 'text' : f}
            <input value={draft[f] ?? ''} onChange={(e) => setDraft({ ...draft, [f]: e.target.value })} placeholder={f === 'from' || f === 'to' ? '2026-11-23T00:00:00Z' : undefined} />
          </label>
        ))}
        <button type="submit">Apply filters</button>
      </form>
      <p>
        Export: <a href={auditExportUrl(filters, 'csv')}>CSV</a> · <a href={auditExportUrl(filters, 'json')}>JSON</a>
      </p>
      <QueryView query={{ ...timeline, data: timeline.data }} what="audit events">
        {(data) => {
          const events = data.pages.flatMap((p) => p.events);
          return (
            <>
              <EventTable events={events} caption="Audit events, newest first" empty="No event matches." />
              {timeline.hasNextPage ? <button type="button" onClick={() => void timeline.fetchNextPage()}>Older events</button> : null}
            </>
          );
        }}
      </QueryView>
    </>
  );
}

export function AuditEventView({ id }: { id: string }) {
  const query = useQuery(auditEvent(id));
  return (
    <>
      <p className="crumbs"><Link href="/admin/audit">Audit</Link> / event {id}</p>
      <QueryView query={query} what="the event">
        {(data) => (
          <>
            <h1>{data.event.action}</h1>
            <dl className="facts">
              <dt>When</dt><dd><Time at={data.event.ts} /></dd>
              <dt>Actor</dt><dd>{data.event.actor}</dd>
              <dt>Category</dt><dd>{data.event.category}</dd>
              <dt>Outcome</dt><dd>{data.event.outcome}</dd>
              {Object.entries(data.event.detail).map(([k, v]) => (
                <div key={k}><dt>{k}</dt><dd><code>{v}</code></dd></div>
              ))}
            </dl>
            <h2>Same actor within five minutes</h2>
            <EventTable events={data.siblings} caption="Sibling events" empty="None." />
          </>
        )}
      </QueryView>
    </>
  );
}
