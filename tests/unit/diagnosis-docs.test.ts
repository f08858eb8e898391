// docs/diagnosis.md documents every code: its table is generated from CODES, and this fails
// when the two drift (run `npm run generate:diagnosis-docs`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CODES } from '../../domain/diagnosis/codes.ts';
import { DIAGNOSIS_DOC, codeTable, withCodeTable } from '../../scripts/generate-diagnosis-docs.ts';

describe('docs/diagnosis.md code table', () => {
  it('is what CODES generates', () => {
    const doc = readFileSync(DIAGNOSIS_DOC, 'utf8');
    assert.equal(doc, withCodeTable(doc, CODES), 'run `npm run generate:diagnosis-docs` after changing a code');
  });

  it('lists each code once, each with a rule', () => {
    const codes = CODES.map((c) => c.code);
    assert.deepEqual(codes.filter((c, i) => codes.indexOf(c) !== i), [], 'a code declared twice');
    for (const c of CODES) assert.ok(c.rule.trim().length > 0, `${c.code} has no rule`);
  });

  it('renders a row per code in rank order, escaping what would break the table', () => {
    const table = codeTable([
      { code: 'B', kind: 'Pod', severity: 'critical', rule: 'one | two\nthree' },
      { code: 'A', kind: 'Node', severity: 'info', rule: 'r', evidence: 'the node' },
    ]);
    assert.deepEqual(table.split('\n').slice(2), ['| 1 | `B` | Pod | critical | one \\| two three | – |', '| 2 | `A` | Node | info | r | the node |']);
    assert.deepEqual(codeTable([{ code: 'B', kind: 'Pod', severity: 'critical', rule: 'r' }]).split('\n'), ['| rank | code | object | severity | rule |', '|---|---|---|---|---|', '| 1 | `B` | Pod | critical | r |'], 'no evidence column while no code states one');
  });
});
