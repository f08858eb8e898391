// The audit timeline's filters (spec §4 "Audit timeline query parameters") as SQL, shared
// by the paginated timeline and the export. `category=access` reads the access log instead.
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import * as v from 'valibot';
import { redactRecord } from '../../domain/redaction/redact.ts';
import type { AuditEvent, AuditQuery } from '../../schema/audit.ts';
import { Severity } from '../../schema/common.ts';
import type { AccessLogTable, AuditLogTable, Database } from '../store/tables.ts';
import type { Db } from '../store/database.ts';
import { terminalCommands, terminalSessionEnds, type TimelinePosition, type TimelineSource } from './terminal-sources.ts';

const Detail = v.record(v.string(), v.string());

/**
 * A stored row as the API shows it, its detail redacted a second time on the way out. Rows are
 * redacted before they are written, so this is defence in depth, and kept for a reason: the
 * hash chain forbids rewriting a row, so reading is the only point where a rule added later
 * (Capstan's own OAuth tokens were one) reaches rows written before it, or where a row put in
 * the file by anything but `AuditLog.append` is caught. Every rule is linear, so it costs one
 * pass over each row (a 52-row page once took 1.85 s here, when some rules were quadratic).
 */
export function toEvent(row: AuditLogTable): AuditEvent {
  const event = storedEvent(row);
  return { ...event, detail: redactRecord(event.detail) };
}

/** A row exactly as stored: only for one this process has just redacted and appended. */
export function storedEvent(row: AuditLogTable): AuditEvent {
  let detail: Record<string, string> = {};
  try {
    const parsed = v.safeParse(Detail, JSON.parse(row.detail));
    if (parsed.success) detail = parsed.output;
  } catch {
    detail = { unparsed: row.detail };
  }
  const severity = v.safeParse(Severity, row.severity);
  return {
    id: row.id,
    ts: new Date(row.ts).toISOString(),
    actor: row.actor,
    category: row.category,
    severity: severity.success ? severity.output : 'info',
    action: row.action,
    source: 'audit_log',
    status: row.status === 0 ? null : row.status,
    outcome: row.outcome,
    namespace: row.namespace,
    detail,
  };
}

function accessEvent(row: Selectable<AccessLogTable>): AuditEvent {
  return { id: row.id, ts: new Date(row.ts).toISOString(), actor: row.actor, category: 'access', severity: 'info', action: row.action, source: 'access_log', status: row.status, outcome: 'success', namespace: null, detail: {} };
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
/** SQLite's LIKE only honours a backslash escape when told so. */
const like = (column: 'action' | 'detail' | 'actor', pattern: string) => sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '\\'`;

function readsAccessLog(query: AuditQuery): boolean {
  return query.category?.includes('access') ?? false;
}

type AuditSelect = SelectQueryBuilder<Database, 'audit_log', object>;
type AccessSelect = SelectQueryBuilder<Database, 'access_log', object>;

function filterAudit<Q extends AuditSelect>(q: Q, query: AuditQuery): Q {
  let out: AuditSelect = q;
  if (query.category?.length) out = out.where('category', 'in', query.category);
  if (query.severity?.length) out = out.where('severity', 'in', query.severity);
  if (query.namespace !== undefined) out = out.where('namespace', '=', query.namespace);
  if (query.outcome !== undefined) out = out.where('outcome', '=', query.outcome);
  if (query.q !== undefined) {
    const pattern = `%${likeEscape(query.q)}%`;
    out = out.where((eb) => eb.or([like('action', pattern), like('detail', pattern)]));
  }
  return filterCommon(out, query) as Q;
}

/** Filters both logs share: actor, action prefix, time range. */
function filterCommon<Q extends AuditSelect | AccessSelect>(q: Q, query: AuditQuery): Q {
  let out = q as AuditSelect;
  if (query.actor !== undefined) {
    out = query.actor.includes('@') ? out.where('actor', '=', query.actor) : out.where(like('actor', `${likeEscape(query.actor)}@%`));
  }
  if (query.action !== undefined) out = out.where(like('action', `${likeEscape(query.action)}%`));
  if (query.from !== undefined) out = out.where('ts', '>=', Date.parse(query.from));
  if (query.to !== undefined) out = out.where('ts', '<=', Date.parse(query.to));
  return out as Q;
}

const SOURCES: readonly TimelineSource[] = [terminalSessionEnds, terminalCommands];
const RANK_OF: Readonly<Record<AuditEvent['source'], number>> = { audit_log: 0, access_log: 0, terminal_session: terminalSessionEnds.rank, terminal_command: terminalCommands.rank };

/** Where an event sits in the timeline's order, as the next page's cursor. */
export function cursorOf(event: AuditEvent): string {
  return `${String(Date.parse(event.ts))}.${String(RANK_OF[event.source])}.${String(event.id)}`;
}

/** A cursor's place; the older bare-number form names a general-log row, found by its id. */
async function positionOf(db: Db, cursor: string | undefined): Promise<TimelinePosition | null> {
  if (cursor === undefined) return null;
  const parts = cursor.split('.').map(Number);
  if (parts.length === 3) return { ts: parts[0] ?? 0, rank: parts[1] ?? 0, id: parts[2] ?? 0 };
  const id = parts[0] ?? 0;
  const row = await db.selectFrom('audit_log').select('ts').where('id', '=', id).executeTakeFirst();
  // A purged row's id still orders: nothing newer than it is returned again.
  return { ts: row?.ts ?? Number.MAX_SAFE_INTEGER, rank: 0, id };
}

/** The general log's rows after `before` (rank 0: the first source at any one instant). */
function auditAfter(q: AuditSelect, before: TimelinePosition | null): AuditSelect {
  if (before === null) return q;
  if (before.rank > 0) return q.where('ts', '<=', before.ts);
  return q.where((eb) => eb.or([eb('ts', '<', before.ts), eb.and([eb('ts', '=', before.ts), eb('id', '<', before.id)])]));
}

const newestFirst = (a: AuditEvent, b: AuditEvent): number => Date.parse(b.ts) - Date.parse(a.ts) || RANK_OF[b.source] - RANK_OF[a.source] || b.id - a.id;

/**
 * Newest first, after `cursor`: the general log merged with the terminal's tables (spec §2
 * "Unified audit timeline event"), each source asked for `limit` rows past the cursor, so
 * the merge of them holds the next `limit` of the whole timeline.
 */
export async function selectMatching(db: Db, query: AuditQuery, limit: number): Promise<AuditEvent[]> {
  if (readsAccessLog(query)) {
    const rows = await filterCommon(db.selectFrom('access_log').selectAll() as AccessSelect, query).orderBy('id', 'desc').limit(limit).execute();
    return (rows as Selectable<AccessLogTable>[]).map(accessEvent);
  }
  const before = await positionOf(db, query.cursor);
  const general = await auditAfter(filterAudit(db.selectFrom('audit_log').selectAll() as AuditSelect, query), before).orderBy('ts', 'desc').orderBy('id', 'desc').limit(limit).execute();
  const others = await Promise.all(SOURCES.map((s) => s.select(db, query, before, limit)));
  return [...(general as AuditLogTable[]).map(toEvent), ...others.flat()].sort(newestFirst).slice(0, limit);
}

export async function countMatching(db: Db, query: AuditQuery): Promise<number> {
  if (readsAccessLog(query)) {
    const row = await filterCommon(db.selectFrom('access_log') as AccessSelect, query).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return row?.n ?? 0;
  }
  const row = await filterAudit(db.selectFrom('audit_log') as AuditSelect, query).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const others = await Promise.all(SOURCES.map((s) => s.count(db, query)));
  return (row?.n ?? 0) + others.reduce((a, b) => a + b, 0);
}
