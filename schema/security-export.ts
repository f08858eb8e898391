// `GET /security/findings/export` (spec §4 "Security"): the findings route's filters and
// sort, a `format`, and the file. Rules and limits: docs/security-posture.md "Export".
import * as v from 'valibot';
import { FindingsInput, MisconfigFinding, VulnFinding } from './security.ts';

export const EXPORT_FORMATS = ['json', 'csv', 'md', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The most findings (both kinds together, in the requested sort) one export holds. Past it the
 * file carries the first EXPORT_MAX_ROWS, says so (`X-Truncated: true`, and a banner line in
 * csv, md and html), and `X-Total-Matched` counts everything that matched. 20,000 rows is about
 * 6 MB of HTML; a cluster with more findings than that exports per namespace or severity.
 */
export const EXPORT_MAX_ROWS = 20_000;

/**
 * The findings filters (`namespace`, `severity`, `kind`, `fixable`, `search`) and `sort`;
 * paging and grouping have no meaning for a file. For csv, which holds one kind, `kind`
 * chooses it and defaults to `vuln`; for the other formats it filters as on the findings route.
 */
export const FindingsExportInput = v.object({
  namespace: FindingsInput.entries.namespace,
  severity: FindingsInput.entries.severity,
  kind: FindingsInput.entries.kind,
  fixable: FindingsInput.entries.fixable,
  search: FindingsInput.entries.search,
  sort: FindingsInput.entries.sort,
  format: v.optional(v.picklist(EXPORT_FORMATS, 'format must be json, csv, md or html'), 'json'),
});
export type FindingsExportInput = v.InferOutput<typeof FindingsExportInput>;

/** The json file (and the value every format is rendered from): `{vulns, misconfigs}`, as the findings route answers without `page`. */
export const FindingsExport = v.object({
  vulns: v.array(VulnFinding),
  misconfigs: v.array(MisconfigFinding),
});
export type FindingsExport = v.InferOutput<typeof FindingsExport>;

/** The media types the export answers in, by format: what the route declares for OpenAPI and what the download says. */
export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  json: 'application/json',
  csv: 'text/csv',
  md: 'text/markdown',
  html: 'text/html',
};
