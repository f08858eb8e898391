import { csvCell as cell } from '../../domain/export/csv.ts';
import type { AuditExport } from '../../schema/audit.ts';

const COLUMNS = ['id', 'ts', 'actor', 'category', 'severity', 'action', 'status', 'outcome', 'namespace', 'detail', 'source'] as const;

/** The export as CSV; when capped, cell A1 says so before the header row. */
export function auditCsv(envelope: AuditExport): string {
  const lines: string[] = [];
  if (envelope.truncated) lines.push(cell(`TRUNCATED: ${envelope.events.length} of ${envelope.total_matched} matching events; narrow the filters to export the rest`));
  lines.push(COLUMNS.join(','));
  for (const e of envelope.events) {
    const values = [String(e.id), e.ts, e.actor, e.category, e.severity, e.action, e.status === null ? '' : String(e.status), e.outcome, e.namespace ?? '', JSON.stringify(e.detail), e.source];
    lines.push(values.map(cell).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
