// The terminal's two tables as sources of the unified audit timeline (spec §2 "Unified audit
// timeline event: normalized from ... terminal session audit, terminal commands"): a session's
// end (its start is the general log's `terminal_session_start`) and every command, each as an
// event of category `terminal`, filtered like the general log's rows. They keep their own
// retention (180 days) and are not in the hash chain; the timeline reads them where they are.
// The session's id is under `terminal` (as in `terminal_session_start`): under `session` the
// redaction would hide it as a sign-in session's, and it is not one (re-attaching needs the
// same signed-in account), so a start, its commands and its end can be read together.
import { sql, type SelectQueryBuilder } from 'kysely';
import { redactRecord } from '../../domain/redaction/redact.ts';
import type { AuditEvent, AuditQuery } from '../../schema/audit.ts';
import type { Db } from '../store/database.ts';
import type { Database } from '../store/tables.ts';

/** A row's place in the timeline's order: newest first, then by source, then by id. */
export interface TimelinePosition {
  ts: number;
  rank: number;
  id: number;
}

export const TERMINAL_SESSION_END = 'terminal_session_end';
export const TERMINAL_COMMAND = 'terminal_command';

export interface TimelineSource {
  rank: number;
  /** Rows matching `query`, after `before` in the timeline's order, at most `limit`, newest first. */
  select(db: Db, query: AuditQuery, before: TimelinePosition | null, limit: number): Promise<AuditEvent[]>;
  count(db: Db, query: AuditQuery): Promise<number>;
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Whether events with this fixed category, severity, outcome and action can match the query at all. */
function sourceMatches(query: AuditQuery, action: string): boolean {
  if (query.category?.length && !query.category.includes('terminal')) return false;
  if (query.severity?.length && !query.severity.includes('info')) return false;
  if (query.outcome !== undefined && query.outcome !== 'success') return false;
  if (query.action !== undefined && !action.startsWith(query.action)) return false;
  return true;
}

/** `ts` below `before`'s place, for a source of rank `rank` (the order: ts, then rank, then id, all descending). */
function after<Q extends SelectQueryBuilder<Database, keyof Database, object>>(q: Q, tsColumn: string, idColumn: string, rank: number, before: TimelinePosition | null): Q {
  if (before === null) return q;
  const ts = sql.ref(tsColumn);
  const id = sql.ref(idColumn);
  if (rank < before.rank) return q.where(sql<boolean>`${ts} <= ${before.ts}`) as Q;
  if (rank > before.rank) return q.where(sql<boolean>`${ts} < ${before.ts}`) as Q;
  return q.where(sql<boolean>`(${ts} < ${before.ts} OR (${ts} = ${before.ts} AND ${id} < ${before.id}))`) as Q;
}

/** Filters on the session's columns: who (username, or username@address), where, when, and free text. */
function filterSessions<Q extends SelectQueryBuilder<Database, 'terminal_sessions' | 'terminal_commands', object>>(q: Q, query: AuditQuery, tsColumn: string, textColumn: string, action: string): Q {
  let out = q;
  if (query.actor !== undefined) {
    const at = query.actor.lastIndexOf('@');
    out = (at === -1 ? out.where('terminal_sessions.username', '=', query.actor) : out.where('terminal_sessions.username', '=', query.actor.slice(0, at)).where('terminal_sessions.client_ip', '=', query.actor.slice(at + 1))) as Q;
  }
  if (query.namespace !== undefined) out = out.where('terminal_sessions.namespace', '=', query.namespace) as Q;
  if (query.from !== undefined) out = out.where(sql.ref(tsColumn), '>=', Date.parse(query.from)) as Q;
  if (query.to !== undefined) out = out.where(sql.ref(tsColumn), '<=', Date.parse(query.to)) as Q;
  // Free text over action and detail, as for the general log: an action that contains it matches every row.
  if (query.q !== undefined && !action.includes(query.q)) out = out.where(sql<boolean>`${sql.ref(textColumn)} LIKE ${`%${likeEscape(query.q)}%`} ESCAPE '\\'`) as Q;
  return out;
}

const event = (e: Omit<AuditEvent, 'category' | 'severity' | 'status' | 'outcome'>): AuditEvent => ({ ...e, category: 'terminal', severity: 'info', status: null, outcome: 'success', detail: redactRecord(e.detail) });

/** A session's end: when, why, and as whom it ran. */
export const terminalSessionEnds: TimelineSource = {
  rank: 1,
  async select(db, query, before, limit) {
    if (!sourceMatches(query, TERMINAL_SESSION_END)) return [];
    let q = db
      .selectFrom('terminal_sessions')
      .select(['terminal_sessions.id as session', sql<number>`terminal_sessions.rowid`.as('row_id'), 'username', 'client_ip', 'role', 'namespace', 'ended_at', 'end_reason', 'target'])
      .where('ended_at', 'is not', null);
    q = filterSessions(q, query, 'terminal_sessions.ended_at', 'terminal_sessions.end_reason', TERMINAL_SESSION_END);
    q = after(q, 'terminal_sessions.ended_at', 'terminal_sessions.rowid', this.rank, before);
    const rows = await q.orderBy('ended_at', 'desc').orderBy(sql`terminal_sessions.rowid`, 'desc').limit(limit).execute();
    return rows.map((r) =>
      event({ id: r.row_id, source: 'terminal_session', ts: new Date(r.ended_at ?? 0).toISOString(), actor: `${r.username}@${r.client_ip}`, action: TERMINAL_SESSION_END, namespace: r.namespace, detail: { terminal: r.session, role: r.role, reason: r.end_reason ?? '', ...(r.target === null ? {} : { target: r.target }) } }),
    );
  },
  async count(db, query) {
    if (!sourceMatches(query, TERMINAL_SESSION_END)) return 0;
    const q = filterSessions(db.selectFrom('terminal_sessions').where('ended_at', 'is not', null), query, 'terminal_sessions.ended_at', 'terminal_sessions.end_reason', TERMINAL_SESSION_END);
    const row = await q.select((eb) => eb.fn.countAll<number | bigint>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  },
};

/** Every command, as recorded (redacted; output is never stored), with its session's account and address. */
export const terminalCommands: TimelineSource = {
  rank: 2,
  async select(db, query, before, limit) {
    if (!sourceMatches(query, TERMINAL_COMMAND)) return [];
    let q = db
      .selectFrom('terminal_commands')
      .innerJoin('terminal_sessions', 'terminal_sessions.id', 'terminal_commands.session_id')
      .select(['terminal_commands.id as id', 'terminal_commands.session_id as session', 'terminal_commands.at as at', 'terminal_commands.command as command', 'terminal_sessions.username as username', 'terminal_sessions.client_ip as client_ip', 'terminal_sessions.namespace as namespace', 'terminal_sessions.target as target']);
    q = filterSessions(q, query, 'terminal_commands.at', 'terminal_commands.command', TERMINAL_COMMAND);
    q = after(q, 'terminal_commands.at', 'terminal_commands.id', this.rank, before);
    const rows = await q.orderBy('terminal_commands.at', 'desc').orderBy('terminal_commands.id', 'desc').limit(limit).execute();
    return rows.map((r) => event({ id: r.id, source: 'terminal_command', ts: new Date(r.at).toISOString(), actor: `${r.username}@${r.client_ip}`, action: TERMINAL_COMMAND, namespace: r.namespace, detail: { terminal: r.session, command: r.command, ...(r.target === null ? {} : { target: r.target }) } }));
  },
  async count(db, query) {
    if (!sourceMatches(query, TERMINAL_COMMAND)) return 0;
    const q = filterSessions(db.selectFrom('terminal_commands').innerJoin('terminal_sessions', 'terminal_sessions.id', 'terminal_commands.session_id'), query, 'terminal_commands.at', 'terminal_commands.command', TERMINAL_COMMAND);
    const row = await q.select((eb) => eb.fn.countAll<number | bigint>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  },
};
