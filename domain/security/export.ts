// `GET /security/findings/export`: the findings as a file, in csv, md or html (json is the
// value itself). Pure renderers over the findings the handler has already filtered, sorted and
// capped; every value a finding carries is text from the cluster (names, labels, env names,
// scanner messages) and is escaped for the format it lands in. docs/security-posture.md "Export".
import { csvLine } from '../export/csv.ts';
import type { ExportFormat, FindingsExport } from '../../schema/security-export.ts';
import type { MisconfigFinding, VulnFinding } from '../../schema/security.ts';

/** Spec §2's vulnerability fields, in its order: the csv header and every table's columns. */
export const VULN_COLUMNS = ['namespace', 'workload', 'image', 'cve', 'severity', 'cvss', 'pkg', 'installed_ver', 'fixed_ver', 'fix_available', 'source'] as const satisfies readonly (keyof VulnFinding)[];
/** Spec §2's misconfiguration fields, in its order. */
export const MISCONFIG_COLUMNS = ['namespace', 'workload', 'check_id', 'severity', 'message', 'resource', 'source'] as const satisfies readonly (keyof MisconfigFinding)[];

/** What the file says about itself: when, and whether it holds everything that matched. */
export interface ExportMeta {
  /** ISO timestamp. */
  generatedAt: string;
  /** Findings that matched, of both kinds (csv: of its one kind). */
  totalMatched: number;
  /** Findings in the file. */
  exported: number;
}

const text = (value: string | number | boolean | null): string => (value === null ? '' : String(value));
const vulnCells = (f: VulnFinding) => VULN_COLUMNS.map((c) => text(f[c]));
const misconfigCells = (f: MisconfigFinding) => MISCONFIG_COLUMNS.map((c) => text(f[c]));

const truncated = (m: ExportMeta) => m.exported < m.totalMatched;
const banner = (m: ExportMeta) => `TRUNCATED: ${m.exported} of ${m.totalMatched} matching findings; narrow the filters (namespace, severity, kind) to export the rest`;

/**
 * One kind (CSV is single-type, spec §4): the header row, then a row per finding, CRLF line
 * ends. When capped, the first line is the truncation banner (as the audit export's A1 is).
 */
export function findingsCsv(kind: 'vuln' | 'misconfig', findings: FindingsExport, meta: ExportMeta): string {
  const lines: string[] = truncated(meta) ? [csvLine([banner(meta)])] : [];
  if (kind === 'vuln') {
    lines.push(csvLine(VULN_COLUMNS));
    for (const f of findings.vulns) lines.push(csvLine(vulnCells(f)));
  } else {
    lines.push(csvLine(MISCONFIG_COLUMNS));
    for (const f of findings.misconfigs) lines.push(csvLine(misconfigCells(f)));
  }
  return lines.join('');
}

/**
 * A value inside a Markdown table cell: every Markdown-significant character backslash-escaped
 * (CommonMark lets any ASCII punctuation be escaped, so `|` cannot end the cell, `<` cannot
 * open raw HTML, `[` cannot start a link), and a line break, which would end the row, as `<br>`.
 */
export function mdCell(value: string): string {
  return value.replace(/[\\`*_[\]<>|&~#!()]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '<br>');
}

function mdTable(columns: readonly string[], rows: readonly string[][]): string[] {
  if (rows.length === 0) return ['None.'];
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`)];
}

/** A Markdown report: a heading, when it was made, and a GFM table per kind. */
export function findingsMarkdown(findings: FindingsExport, meta: ExportMeta): string {
  const lines = ['# Capstan security findings', '', `Generated ${meta.generatedAt}: ${findings.vulns.length} vulnerabilities, ${findings.misconfigs.length} misconfigurations.`, ''];
  if (truncated(meta)) lines.push(`**${mdCell(banner(meta))}**`, '');
  lines.push(`## Vulnerabilities (${findings.vulns.length})`, '', ...mdTable(VULN_COLUMNS, findings.vulns.map(vulnCells)), '');
  lines.push(`## Misconfigurations (${findings.misconfigs.length})`, '', ...mdTable(MISCONFIG_COLUMNS, findings.misconfigs.map(misconfigCells)), '');
  return lines.join('\n');
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or a quoted attribute: the five characters that can end either escaped. */
export function htmlEscape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

function htmlTable(columns: readonly string[], rows: readonly string[][]): string {
  if (rows.length === 0) return '<p>None.</p>';
  const head = columns.map((c) => `<th>${htmlEscape(c)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((v) => `<td>${htmlEscape(v)}</td>`).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/**
 * A complete HTML document, readable offline: inline style only, and a Content-Security-Policy
 * that runs no script and loads nothing, so even a value that escaped escaping could not act.
 */
export function findingsHtml(findings: FindingsExport, meta: ExportMeta): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<title>Capstan security findings</title>',
    '<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left;vertical-align:top}.banner{color:#a00;font-weight:bold}</style>',
    '</head>',
    '<body>',
    '<h1>Capstan security findings</h1>',
    `<p>Generated ${htmlEscape(meta.generatedAt)}: ${findings.vulns.length} vulnerabilities, ${findings.misconfigs.length} misconfigurations.</p>`,
    ...(truncated(meta) ? [`<p class="banner">${htmlEscape(banner(meta))}</p>`] : []),
    `<h2>Vulnerabilities (${findings.vulns.length})</h2>`,
    htmlTable(VULN_COLUMNS, findings.vulns.map(vulnCells)),
    `<h2>Misconfigurations (${findings.misconfigs.length})</h2>`,
    htmlTable(MISCONFIG_COLUMNS, findings.misconfigs.map(misconfigCells)),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** `capstan-findings-<YYYY-MM-DD>.<ext>`, the UTC date of `generatedAt`. */
export function exportFilename(format: ExportFormat, generatedAt: string): string {
  return `capstan-findings-${generatedAt.slice(0, 10)}.${format}`;
}
