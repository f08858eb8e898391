// docs/security-posture.md lists every built-in check with its family, severity and title,
// and nothing else: a check added, renamed or re-rated without the docs fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CHECKS } from '../../domain/security/checks/index.ts';

const doc = readFileSync(new URL('../../docs/security-posture.md', import.meta.url), 'utf8');

/** Each check table row, with the family of the section it sits under. */
function documented(): { id: string; family: string; severity: string; title: string }[] {
  const rows: { id: string; family: string; severity: string; title: string }[] = [];
  let family = '';
  for (const line of doc.split('\n')) {
    const section = /\(family `([a-z-]+)`\)/.exec(line);
    if (line.startsWith('#') && section?.[1]) family = section[1];
    const row = /^\| `([a-z-]+)` \| ([A-Z]+) \| ([^|]+) \|/.exec(line);
    if (row?.[1] && row[2] && row[3]) rows.push({ id: row[1], family, severity: row[2], title: row[3].trim() });
  }
  return rows;
}

describe('docs/security-posture.md', () => {
  it('lists every check once, under its family, with its severity and title', () => {
    assert.deepEqual(
      documented(),
      CHECKS.map((c) => ({ id: c.id, family: c.family, severity: c.severity, title: c.title })),
    );
  });

  it('states the formula and cites Polaris\' source', () => {
    assert.match(doc, /score = ⌊ 100 · 2P \/ \(2P \+ W \+ 2D\) ⌋/);
    assert.match(doc, /pkg\/validator\/summary\.go/);
    assert.match(doc, /pkg\/dashboard\/helpers\.go/);
  });
});
