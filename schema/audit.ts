import * as v from 'valibot';
import { Severity, Timestamp } from './common.ts';

export const ChainReport = v.variant('intact', [
  v.object({ intact: v.literal(true), rows_checked: v.number() }),
  v.object({
    intact: v.literal(false),
    rows_checked: v.number(),
    first_bad_row: v.number(),
    /** content_edit: the row's own content changed; linkage_break: its predecessor was deleted. */
    problem: v.picklist(['content_edit', 'linkage_break']),
  }),
]);
export type ChainReport = v.InferOutput<typeof ChainReport>;

/** Timeline categories of spec §4 "Audit timeline"; `access` (the routine-read log) is for export only. */
export const AuditCategoryName = v.picklist(['http', 'write', 'ai_decision', 'ai_executed', 'terminal', 'auth', 'login', 'cluster_event', 'alert', 'access']);
export const Outcome = v.picklist(['success', 'denied', 'rejected', 'error']);

/** A repeatable query parameter: `?category=a&category=b` or `?category=a,b`. */
const repeatable = <S extends v.GenericSchema<string>>(item: S) =>
  v.optional(
    v.pipe(
      v.union([v.string(), v.array(v.string())]),
      v.transform((value) => (Array.isArray(value) ? value : [value]).flatMap((s) => s.split(',')).filter((s) => s !== '')),
      v.array(item),
    ),
  );

const Count = (max: number) => v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1), v.maxValue(max));

export const AuditFilters = v.object({
  category: repeatable(AuditCategoryName),
  severity: repeatable(Severity),
  /** `alice` matches alice from any address; `alice@10.0.0.1` one address. */
  actor: v.optional(v.pipe(v.string(), v.maxLength(300))),
  namespace: v.optional(v.pipe(v.string(), v.maxLength(253))),
  /** Action prefix, e.g. `POST /admin` or `ip.`. */
  action: v.optional(v.pipe(v.string(), v.maxLength(300))),
  outcome: v.optional(Outcome),
  from: v.optional(Timestamp),
  to: v.optional(Timestamp),
  /** Free text over action and detail. */
  q: v.optional(v.pipe(v.string(), v.maxLength(300))),
});

export const AuditTimelineInput = v.object({
  ...AuditFilters.entries,
  /** The `next_cursor` of the previous page (opaque; a bare number, the older form, is a general-log id). */
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d\.\d+)?$/, 'must be a next_cursor value'))),
  limit: v.optional(Count(500), '100'),
});

export type AuditQuery = Omit<v.InferOutput<typeof AuditTimelineInput>, 'limit'> & { limit?: number };

export const AuditEvent = v.object({
  id: v.number(),
  ts: Timestamp,
  actor: v.string(),
  category: v.string(),
  severity: Severity,
  action: v.string(),
  /** Which table the event is read from (spec §2 "Unified audit timeline event"): ids are unique within a source. */
  source: v.picklist(['audit_log', 'access_log', 'terminal_session', 'terminal_command']),
  status: v.nullable(v.number()),
  outcome: v.string(),
  namespace: v.nullable(v.string()),
  /** Redacted when written and again when read. */
  detail: v.record(v.string(), v.string()),
});
export type AuditEvent = v.InferOutput<typeof AuditEvent>;

export const AuditPage = v.object({ events: v.array(AuditEvent), next_cursor: v.nullable(v.string()) });
export type AuditPage = v.InferOutput<typeof AuditPage>;

export const AuditEventInput = v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, 'id must be a number'), v.transform(Number)) });
export const AuditEventWithSiblings = v.object({ event: AuditEvent, siblings: v.array(AuditEvent) });

export const MAX_EXPORT_ROWS = 10_000;
export const AuditExportInput = v.object({
  ...AuditFilters.entries,
  format: v.optional(v.picklist(['json', 'csv']), 'json'),
  limit: v.optional(Count(MAX_EXPORT_ROWS), String(MAX_EXPORT_ROWS)),
});
export const AuditExport = v.object({
  generated_at: Timestamp,
  filters: v.record(v.string(), v.union([v.string(), v.array(v.string())])),
  total_matched: v.number(),
  truncated: v.boolean(),
  events: v.array(AuditEvent),
});
export type AuditExport = v.InferOutput<typeof AuditExport>;

const Days = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650));
export const PurgeInput = v.pipe(
  v.object({
    older_than_days: v.optional(Days),
    keep_last: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  }),
  v.check((p) => (p.older_than_days === undefined) !== (p.keep_last === undefined), 'give exactly one of older_than_days and keep_last'),
);
export type PurgeRequest = { older_than_days: number } | { keep_last: number };
export const PurgeResult = v.object({ deleted: v.number() });
