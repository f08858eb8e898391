import type * as v from 'valibot';
import type { AuditStreamStats } from '../../schema/admin-settings.ts';
import type { AuditEvent, AuditPage, AuditQuery, ChainReport, PurgeRequest } from '../../schema/audit.ts';

export interface AuditService {
  verifyChain(): Promise<ChainReport>;
  /** Newest first, keyset-paginated. */
  query(query: AuditQuery): Promise<AuditPage>;
  event(id: number): Promise<AuditEvent | null>;
  /** Events of one actor within five minutes either side of `around`, excluding `exceptId`. */
  siblings(actor: string, around: Date, exceptId: number): Promise<AuditEvent[]>;
  /** Up to `limit` matching rows (newest first) and how many matched in all; `access` reads the access log. */
  export(query: AuditQuery, limit: number): Promise<{ events: AuditEvent[]; totalMatched: number }>;
  /** Deletes the oldest rows, recording the purge (by `actor`) in the chain before and after; returns how many went. */
  purge(request: PurgeRequest, actor: string): Promise<number>;
  /** Records an event that is not an HTTP request (bans, recovery, purge bookkeeping). */
  record(event: { actor: string; category: string; action: string; outcome: string; severity: string; detail: Readonly<Record<string, string>> }): Promise<void>;
  /** Streaming to audit.webhookUrl: its counters for the admin screen. */
  streamStats(): v.InferOutput<typeof AuditStreamStats>;
}
