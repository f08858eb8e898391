// The hash-chained general audit log (spec §6). Each row's hash covers its own content and
// the previous row's hash, so editing a row breaks its own hash and deleting a row breaks
// the link of the row after it; verifyChain tells the two apart.
import { createHash } from 'node:crypto';
import type { AuditService, Clock } from '../../handlers/context.ts';
import type { ChainReport } from '../../schema/audit.ts';
import type { AuditLogTable } from '../../schema/db/tables.ts';
import type { Db } from '../store/database.ts';

export const AUDIT_RETENTION_MS = 365 * 24 * 60 * 60 * 1000;
export const ACCESS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Retention is enforced on the insert path, but at most this often: not a DELETE per request. */
const PRUNE_INTERVAL_MS = 60 * 1000;

export interface AuditEntry {
  actor: string;
  category: string;
  action: string;
  status: number;
  outcome: string;
}


function rowHash(row: Omit<AuditLogTable, 'hash'>): string {
  const content = [row.id, row.ts, row.actor, row.category, row.action, row.status, row.outcome, row.prev_hash];
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

export class AuditLog implements AuditService {
  private auditPrunedAt = -Infinity;
  private accessPrunedAt = -Infinity;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Appends one row in one transaction with the read of its predecessor, then prunes rows past retention (at most once a minute). */
  async append(entry: AuditEntry): Promise<void> {
    const ts = this.clock.now().getTime();
    await this.db.transaction().execute(async (trx) => {
      const last = await trx.selectFrom('audit_log').select(['id', 'hash']).orderBy('id', 'desc').limit(1).executeTakeFirst();
      const row = { id: (last?.id ?? 0) + 1, ts, ...entry, prev_hash: last?.hash ?? '' };
      await trx.insertInto('audit_log').values({ ...row, hash: rowHash(row) }).execute();
    });
    if (ts - this.auditPrunedAt >= PRUNE_INTERVAL_MS) {
      this.auditPrunedAt = ts;
      await this.db.deleteFrom('audit_log').where('ts', '<', ts - AUDIT_RETENTION_MS).execute();
    }
  }

  async appendAccess(entry: { actor: string; action: string; status: number }): Promise<void> {
    const ts = this.clock.now().getTime();
    await this.db.insertInto('access_log').values({ ts, ...entry }).execute();
    if (ts - this.accessPrunedAt >= PRUNE_INTERVAL_MS) {
      this.accessPrunedAt = ts;
      await this.db.deleteFrom('access_log').where('ts', '<', ts - ACCESS_RETENTION_MS).execute();
    }
  }

  /**
   * Recomputes the chain oldest-first. The oldest surviving row anchors it (retention removes
   * older rows legitimately). Truncation of the newest rows is not detectable from the chain alone.
   */
  async verifyChain(): Promise<ChainReport> {
    let previous: string | null = null;
    let checked = 0;
    let after = 0;
    for (;;) {
      const batch = await this.db.selectFrom('audit_log').selectAll().where('id', '>', after).orderBy('id').limit(1000).execute();
      if (batch.length === 0) return { intact: true, rows_checked: checked };
      for (const row of batch) {
        checked++;
        const { hash, ...content } = row;
        if (rowHash(content) !== hash) return { intact: false, rows_checked: checked, first_bad_row: row.id, problem: 'content_edit' };
        if (previous !== null && row.prev_hash !== previous) return { intact: false, rows_checked: checked, first_bad_row: row.id, problem: 'linkage_break' };
        previous = hash;
        after = row.id;
      }
    }
  }
}
