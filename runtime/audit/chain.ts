// The audit chain's arithmetic: each row's HMAC-SHA256 (keyed with auditChainKey, see
// crypto/secret-box.ts) covers its own content and the previous row's hash. Without the key
// nobody can compute a valid hash, so rewriting a row and re-hashing forward is detected.
// Shared by the AuditLog (append, verify) and the migration that re-keyed the unkeyed chain
// earlier releases wrote.
import { createHash, createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { ChainReport } from '../../schema/audit.ts';
import type { AuditLogTable, Database } from '../store/tables.ts';

export type ChainContent = Omit<AuditLogTable, 'hash'>;
type HashRow = (row: ChainContent) => string;

const contentOf = (row: ChainContent) => JSON.stringify([row.id, row.ts, row.actor, row.category, row.action, row.status, row.outcome, row.severity, row.namespace, row.detail, row.prev_hash]);

export function keyedRowHash(key: Buffer): HashRow {
  return (row) => createHmac('sha256', key).update(contentOf(row)).digest('hex');
}

/** What releases before the keyed chain wrote (plain SHA-256): read only to check a chain before re-keying it. */
export const unkeyedRowHash: HashRow = (row) => createHash('sha256').update(contentOf(row)).digest('hex');

/**
 * Walks rows oldest-first. The oldest row anchors the chain (retention and purges remove older
 * rows legitimately), so its prev_hash is not checked; every later row must name its
 * predecessor's hash.
 */
export class ChainWalk {
  private previous: string | null = null;
  checked = 0;

  constructor(private readonly hash: HashRow) {}

  /** The problem at this row, or null when it continues the chain. */
  next(row: AuditLogTable): Extract<ChainReport, { intact: false }> | null {
    this.checked++;
    const { hash, ...content } = row;
    if (this.hash(content) !== hash) return { intact: false, rows_checked: this.checked, first_bad_row: row.id, problem: 'content_edit' };
    if (this.previous !== null && row.prev_hash !== this.previous) return { intact: false, rows_checked: this.checked, first_bad_row: row.id, problem: 'linkage_break' };
    this.previous = hash;
    return null;
  }
}

/** Reads audit_log oldest-first in pages (the table can hold a year of rows). */
export async function* auditRows(db: Kysely<Database>, pageSize = 1000): AsyncGenerator<AuditLogTable> {
  let after = 0;
  for (;;) {
    const page = await db.selectFrom('audit_log').selectAll().where('id', '>', after).orderBy('id').limit(pageSize).execute();
    if (page.length === 0) return;
    for (const row of page) {
      yield row;
      after = row.id;
    }
  }
}

/**
 * The next row id: past every id ever issued, not just past the newest surviving row. The
 * table is AUTOINCREMENT, so sqlite_sequence remembers the highest id even after the newest
 * rows are deleted (a purge, or a year-long gap pruned at once); ids the webhook has already
 * forwarded are never handed out again.
 */
export async function nextAuditId(db: Kysely<Database>): Promise<number> {
  const seq = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'`.execute(db);
  const newest = await db.selectFrom('audit_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return Math.max(seq.rows[0]?.seq ?? 0, newest?.id ?? 0) + 1;
}

/**
 * One-time upgrade of an unkeyed chain (run inside its migration's transaction): checks the
 * chain as it was written (plain SHA-256), re-hashes every row with the key, and appends an
 * `audit.chain.keyed` row saying how many rows were re-keyed and whether they were intact
 * before, so an earlier edit is not silently laundered by the re-keying.
 */
export async function rekeyUnkeyedChain(db: Kysely<Database>, key: Buffer, now: number): Promise<void> {
  const hash = keyedRowHash(key);
  const legacy = new ChainWalk(unkeyedRowHash);
  let problem: Extract<ChainReport, { intact: false }> | null = null;
  let previous = '';
  let rows = 0;
  for await (const row of auditRows(db)) {
    rows++;
    problem ??= legacy.next(row);
    // The oldest row keeps its anchor; every later one links to its predecessor's new hash.
    const content = { ...row, prev_hash: rows === 1 ? row.prev_hash : previous };
    previous = hash(content);
    await db.updateTable('audit_log').set({ prev_hash: content.prev_hash, hash: previous }).where('id', '=', row.id).execute();
  }
  if (rows === 0) return;
  const detail: Record<string, string> = { legacy_rows: String(rows), legacy_intact: String(problem === null) };
  if (problem) Object.assign(detail, { legacy_first_bad_row: String(problem.first_bad_row), legacy_problem: problem.problem });
  const marker: ChainContent = {
    id: await nextAuditId(db),
    ts: now,
    actor: 'capstan@local',
    category: 'auth',
    action: 'audit.chain.keyed',
    status: 0,
    outcome: 'success',
    severity: problem ? 'critical' : 'info',
    namespace: null,
    detail: JSON.stringify(detail),
    prev_hash: previous,
  };
  await db.insertInto('audit_log').values({ ...marker, hash: hash(marker) }).execute();
}
