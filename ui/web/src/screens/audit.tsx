// The audit timeline with the spec's filters (kept in the URL), one event with its siblings,
// CSV/JSON export and the hash chain's verification status.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { AUDIT_FILTERS, auditChain, auditEvent, auditEvents, auditExportUrl, type AuditEvent, type AuditFilters } from '../api/queries/audit';
import { Empty, QueryView } from '../components/states';
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

function Row({ e }: { e: AuditEvent }) {
  return (
    <tr>
      <td><Link href={`/admin/audit/${e.id}`}><Time at={e.ts} /></Link></td>
      <td>{e.actor}</td>
      <td>{e.category}</td>
      <td><span className={`badge ${e.severity === 'critical' ? 'critical' : e.severity === 'warning' ? 'degraded' : 'healthy'}`}>{e.severity}</span></td>
      <td>{e.action}</td>
      <td>{e.outcome}{e.status !== null ? ` (${e.status})` : ''}</td>
    </tr>
  );
}

function EventTable({ events, caption }: { events: AuditEvent[]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Actor</th>
          <th scope="col">Category</th>
          <th scope="col">Severity</th>
          <th scope="col">Action</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => <Row key={e.id} e={e} />)}
      </tbody>
    </table>
  );
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
          return events.length === 0 ? (
            <Empty>No event matches.</Empty>
          ) : (
            <>
              <EventTable events={events} caption="Audit events, newest first" />
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
            {data.siblings.length === 0 ? <Empty>None.</Empty> : <EventTable events={data.siblings} caption="Sibling events" />}
          </>
        )}
      </QueryView>
    </>
  );
}
