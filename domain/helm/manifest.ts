// What an install or upgrade would change, as the admin sees it before it runs: a unified diff
// of the rendered manifests (the release's current one against the server-side dry run's).
// Secrets' data is hidden on both sides before the diff is made, so a changed password shows
// as a changed key, never as its value.
import { diffLines, formatPatch, structuredPatch } from 'diff';
import { parseAllDocuments, stringify } from 'yaml';
import { REDACTED } from '../redaction/redact.ts';

/** Every Secret's data and stringData values replaced by [REDACTED]; other documents as they were (re-printed). */
export function hideSecretData(manifest: string): string {
  const docs = parseAllDocuments(manifest);
  const out: string[] = [];
  for (const doc of docs) {
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    out.push(stringify(hideInObject(value)).trimEnd());
  }
  return out.length === 0 ? '' : `${out.map((d) => `---\n${d}`).join('\n')}\n`;
}

function hideInObject(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  if (object.kind !== 'Secret') return object;
  const hidden = { ...object };
  for (const field of ['data', 'stringData']) {
    const data = object[field];
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) hidden[field] = Object.fromEntries(Object.keys(data).map((k) => [k, REDACTED]));
  }
  return hidden;
}

export interface ManifestDiff {
  diff: string;
  added: number;
  removed: number;
}

/** The unified diff from `before` to `after` (both already hidden), with three lines of context; empty when equal. */
export function manifestDiff(before: string, after: string, label: string): ManifestDiff {
  if (before === after) return { diff: '', added: 0, removed: 0 };
  let added = 0;
  let removed = 0;
  for (const change of diffLines(before, after)) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  const patch = structuredPatch(`${label} (now)`, `${label} (after)`, before, after, undefined, undefined, { context: 3 });
  return { diff: formatPatch(patch), added, removed };
}
