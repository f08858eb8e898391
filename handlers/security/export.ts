// `GET /security/findings/export`: the visible findings, filtered and sorted as the findings
// route does, as a file. The rules: docs/security-posture.md "Export".
import { findingsFor } from '../../domain/security/findings.ts';
import { exportFilename, findingsCsv, findingsHtml, findingsMarkdown, type ExportMeta } from '../../domain/security/export.ts';
import { EXPORT_MAX_ROWS, EXPORT_MEDIA_TYPES, type ExportFormat, type FindingsExport, type FindingsExportInput } from '../../schema/security-export.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import { visibleFindingsFor } from './visible-findings.ts';

function render(format: ExportFormat, kind: 'vuln' | 'misconfig', value: FindingsExport, meta: ExportMeta): string {
  switch (format) {
    case 'json':
      return JSON.stringify(value);
    case 'csv':
      return findingsCsv(kind, value, meta);
    case 'md':
      return findingsMarkdown(value, meta);
    case 'html':
      return findingsHtml(value, meta);
  }
}

/**
 * The file in the asked format, with X-Generated-At, X-Total-Matched and X-Truncated. At most
 * EXPORT_MAX_ROWS findings, the first in the asked sort (findingsFor's first page of that
 * size), so the cost is bounded whatever the cluster holds.
 */
export function exportFindings(input: FindingsExportInput, ctx: HandlerContext): Result<FindingsExport> {
  const { format, ...filters } = input;
  // CSV holds one kind (spec §4): `kind` chooses it, vulnerabilities unless told.
  const kind = format === 'csv' ? (filters.kind ?? 'vuln') : filters.kind;
  const { vulns, misconfigs } = visibleFindingsFor(ctx);
  const page = findingsFor(vulns, misconfigs, { ...filters, kind, page: 1, page_size: EXPORT_MAX_ROWS });
  const value: FindingsExport = { vulns: page.vulns, misconfigs: page.misconfigs };
  const generatedAt = ctx.clock.now().toISOString();
  const meta: ExportMeta = { generatedAt, totalMatched: page.total ?? 0, exported: page.vulns.length + page.misconfigs.length };
  const headers = { 'X-Generated-At': generatedAt, 'X-Total-Matched': String(meta.totalMatched), 'X-Truncated': String(meta.exported < meta.totalMatched) };
  const contentType = format === 'json' ? EXPORT_MEDIA_TYPES.json : `${EXPORT_MEDIA_TYPES[format]}; charset=utf-8`;
  return ok(value, [
    { kind: 'headers', headers },
    { kind: 'download', filename: exportFilename(format, generatedAt), contentType, body: render(format, kind ?? 'vuln', value, meta) },
  ]);
}
