// The hash-chained general audit log (spec §6). Each row's HMAC (keyed, see chain.ts) covers
// its own content and the previous row's hash, so editing a row breaks its own hash and
// deleting a row breaks the link of the row after it; verifyChain tells the two apart.
import type { AuditService } from '../../handlers/audit/service.ts';
import type { Clock } from '../../domain/clock.ts';
import { redactRecord } from '../../domain/redaction/redact.ts';
import type { AuditEvent, AuditPage, AuditQuery, ChainReport, PurgeRequest } from '../../schema/audit.ts';
import type { AuditLogTable } from '../store/tables.ts';
import type { Db } from '../store/database.ts';
import { capDetail } from './detail-cap.ts';
import { countMatching, cursorOf, selectMatching, storedEvent, toEvent } from './audit-query.ts';
import { auditRows, ChainWalk, keyedRowHash, nextAuditId } from './chain.ts';

export const AUDIT_RETENTION_MS = 365 * 24 * 60 * 60 * 1000;
export const ACCESS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const SIBLING_WINDOW_MS = 5 * 60 * 1000;
/** Retention is enforced on the insert path, but at most this often: not a DELETE per request. */
const PRUNE_INTERVAL_MS = 60 * 1000;
const ACCESS_BATCH = 500;
const ACCESS_FLUSH_MS = 1000;
/** Another process (a recovery CLI) may append at the same moment; the loser retries. */
const APPEND_ATTEMPTS = 5;

export interface AuditEntry {
  actor: string;
  category: string;
  action: string;
  status: number | null;
  outcome: string;
  severity: string;
  namespace: string | null;
  detail: Readonly<Record<string, string>>;
}

type StreamStats = ReturnType<AuditService['streamStats']>;

/** A chained append waiting for its transaction. */
interface PendingAppend {
  entry: AuditEntry;
  ts: number;
  resolve: (row: AuditLogTable) => void;
  reject: (err: unknown) => void;
}

/** Chained rows written in one transaction at most (SQLite's bound-parameter limit is far above 200 × 12). */
const MAX_APPEND_BATCH = 200;

/** Where appended rows are streamed (audit.webhookUrl); it must never block or throw. */
export interface AuditStream {
  enqueue(event: Record<string, unknown>): void;
  stats(): StreamStats;
}

export class AuditLog implements AuditService {
  private auditPrunedAt = -Infinity;
  private accessPrunedAt = -Infinity;
  private accessBuffer: { ts: number; actor: string; action: string; status: number }[] = [];
  private accessTimer: NodeJS.Timeout | null = null;
  private pending: PendingAppend[] = [];
  private draining: Promise<void> | null = null;
  private readonly rowHash: ReturnType<typeof keyedRowHash>;

  /** `chainKey`: auditChainKey(at-rest key); every writer of the same database (agent, recovery CLIs) must use the same one. */
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    chainKey: Buffer,
    private readonly stream: AuditStream | null = null,
  ) {
    this.rowHash = keyedRowHash(chainKey);
  }

  /**
   * Appends one row (redacted), chained to its predecessor, and resolves once it is committed.
   * Appends that arrive while a write is in flight are committed together in the next
   * transaction, in arrival order (group commit): under concurrent load a chained row costs a
   * share of one transaction instead of one each, and no caller is answered before its row is
   * durable. Rows past retention are pruned at most once a minute.
   */
  async append(entry: AuditEntry): Promise<void> {
    await this.appendRow(entry);
  }

  private appendRow(entry: AuditEntry): Promise<AuditLogTable> {
    return new Promise((resolve, reject) => {
      this.pending.push({ entry, ts: this.clock.now().getTime(), resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_APPEND_BATCH);
        try {
          const stored = await this.writeChained(batch);
          batch.forEach((waiting, i) => {
            const row = stored[i];
            if (row) waiting.resolve(row);
            else waiting.reject(new Error('audit row missing from its batch'));
          });
        } catch (err) {
          for (const waiting of batch) waiting.reject(err);
        }
      }
    } finally {
      this.draining = null;
    }
  }

  /** One transaction: read the chain's head, link each row to the one before, insert them all. */
  private async writeChained(batch: readonly PendingAppend[]): Promise<AuditLogTable[]> {
    const prepared = batch.map(({ entry, ts }) => ({
      ts,
      actor: entry.actor,
      category: entry.category,
      action: entry.action,
      status: entry.status ?? 0,
      outcome: entry.outcome,
      severity: entry.severity,
      namespace: entry.namespace,
      // Redacted whole first (a secret cut in half could slip past its pattern), then capped.
      detail: JSON.stringify(capDetail(redactRecord(entry.detail))),
    }));
    let stored: AuditLogTable[] | undefined;
    for (let attempt = 1; stored === undefined; attempt++) {
      try {
        stored = await this.db.transaction().execute(async (trx) => {
          const last = await trx.selectFrom('audit_log').select(['id', 'hash']).orderBy('id', 'desc').limit(1).executeTakeFirst();
          const firstId = await nextAuditId(trx);
          let prevHash = last?.hash ?? '';
          const rows = prepared.map((values, i) => {
            const row = { id: firstId + i, ...values, prev_hash: prevHash };
            const full = { ...row, hash: this.rowHash(row) };
            prevHash = full.hash;
            return full;
          });
          await trx.insertInto('audit_log').values(rows).execute();
          return rows;
        });
      } catch (err) {
        if (attempt >= APPEND_ATTEMPTS || !isContention(err)) throw err;
      }
    }
    // Their details were redacted just above; a second pass would find nothing new.
    for (const row of stored) this.stream?.enqueue(storedEvent(row));
    const ts = stored[stored.length - 1]?.ts ?? this.clock.now().getTime();
    if (ts - this.auditPrunedAt >= PRUNE_INTERVAL_MS) {
      this.auditPrunedAt = ts;
      await this.db.deleteFrom('audit_log').where('ts', '<', ts - AUDIT_RETENTION_MS).execute();
    }
    return stored;
  }

  /**
   * Routine reads are buffered and written in one transaction per batch (at most a second
   * late): an INSERT per polling request would make the access log the hot path's cost.
   * A crash loses at most the last second of routine reads, never a chained audit row.
   */
  appendAccess(entry: { actor: string; action: string; status: number }): Promise<void> {
    this.accessBuffer.push({ ts: this.clock.now().getTime(), ...entry });
    if (this.accessBuffer.length >= ACCESS_BATCH) return this.flushAccess();
    if (!this.accessTimer) {
      this.accessTimer = setTimeout(() => void this.flushAccess(), ACCESS_FLUSH_MS);
      this.accessTimer.unref();
    }
    return Promise.resolve();
  }

  /** Writes buffered access-log rows now (before reading the access log, and at shutdown). */
  async flushAccess(): Promise<void> {
    if (this.accessTimer) clearTimeout(this.accessTimer);
    this.accessTimer = null;
    const rows = this.accessBuffer.splice(0);
    if (rows.length === 0) return;
    await this.db.insertInto('access_log').values(rows).execute();
    const ts = rows[rows.length - 1]?.ts ?? this.clock.now().getTime();
    if (ts - this.accessPrunedAt >= PRUNE_INTERVAL_MS) {
      this.accessPrunedAt = ts;
      await this.db.deleteFrom('access_log').where('ts', '<', ts - ACCESS_RETENTION_MS).execute();
    }
  }

  record(event: Parameters<AuditService['record']>[0]): Promise<void> {
    return this.append({ ...event, status: null, namespace: null });
  }

  /**
   * Recomputes the chain oldest-first. The oldest surviving row anchors it (retention and
   * purges remove older rows legitimately). Truncation of the newest rows is not detectable
   * from the chain alone.
   */
  async verifyChain(): Promise<ChainReport> {
    const walk = new ChainWalk(this.rowHash);
    for await (const row of auditRows(this.db)) {
      const problem = walk.next(row);
      if (problem) return problem;
    }
    return { intact: true, rows_checked: walk.checked };
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    const limit = query.limit ?? 100;
    const rows = await selectMatching(this.db, query, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { events: page, next_cursor: rows.length > limit && last ? cursorOf(last) : null };
  }

  async event(id: number): Promise<AuditEvent | null> {
    const row = await this.db.selectFrom('audit_log').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toEvent(row) : null;
  }

  async siblings(actor: string, around: Date, exceptId: number): Promise<AuditEvent[]> {
    const t = around.getTime();
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('actor', '=', actor)
      .where('ts', '>=', t - SIBLING_WINDOW_MS)
      .where('ts', '<=', t + SIBLING_WINDOW_MS)
      .where('id', '!=', exceptId)
      .orderBy('id')
      .limit(200)
      .execute();
    return rows.map(toEvent);
  }

  async export(query: AuditQuery, limit: number): Promise<{ events: AuditEvent[]; totalMatched: number }> {
    await this.flushAccess();
    return { events: await selectMatching(this.db, query, limit), totalMatched: await countMatching(this.db, query) };
  }

  /**
   * Deletes the oldest rows, recorded in the chain before (`audit.purge.requested`) and after
   * (`audit.purge.completed`). The request's own row is never deleted, not even by
   * `keep_last: 0` (which then keeps just it), so a purge always leaves its record, even if the
   * process dies before the second one. The oldest survivor anchors the chain, so it still verifies.
   */
  async purge(request: PurgeRequest, actor: string): Promise<number> {
    const detail = Object.fromEntries(Object.entries(request).map(([k, value]) => [k, String(value)]));
    const own = await this.appendRow({ actor, category: 'auth', action: 'audit.purge.requested', status: null, outcome: 'success', severity: 'warning', namespace: null, detail });
    let cutoffId: number;
    if ('keep_last' in request) {
      const newest = await this.db.selectFrom('audit_log').select('id').orderBy('id', 'desc').offset(request.keep_last).limit(1).executeTakeFirst();
      cutoffId = newest ? newest.id + 1 : 0;
    } else {
      const cutoffTs = this.clock.now().getTime() - request.older_than_days * 24 * 60 * 60 * 1000;
      const first = await this.db.selectFrom('audit_log').select('id').where('ts', '>=', cutoffTs).orderBy('id').limit(1).executeTakeFirst();
      cutoffId = first?.id ?? Number.MAX_SAFE_INTEGER;
    }
    const result = await this.db.deleteFrom('audit_log').where('id', '<', Math.min(cutoffId, own.id)).executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    await this.append({ actor, category: 'auth', action: 'audit.purge.completed', status: null, outcome: 'success', severity: 'warning', namespace: null, detail: { ...detail, deleted: String(deleted) } });
    return deleted;
  }

  streamStats(): StreamStats {
    return this.stream?.stats() ?? { queued: 0, delivered: 0, dropped: 0, failures: 0, last_error: null, last_delivered_at: null };
  }
}

function isContention(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${String((err as { code?: unknown }).code)}` : String(err);
  return /SQLITE_BUSY|database is locked|UNIQUE constraint failed: audit_log\.id|SQLITE_CONSTRAINT_PRIMARYKEY/.test(text);
}
