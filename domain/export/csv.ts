// CSV as RFC 4180 writes it, safe to open in a spreadsheet: every CSV export (audit, security
// findings) writes its cells through here.

/**
 * A cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV Injection":
 * =, +, -, @, tab, carriage return). Such a cell gets a leading single quote, which the
 * spreadsheet shows as text; the value is still readable.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: the formula guard, then RFC 4180 quoting (a cell with a quote, comma, CR or LF is quoted, its quotes doubled). */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record: cells joined by commas, ended by CRLF (RFC 4180 §2). */
export function csvLine(values: readonly string[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}
