import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleContext } from '../../domain/copilot/context.ts';
import { containsFact, containsId, groundingOf } from '../../domain/copilot/grounding.ts';
import type { Diagnosis, Finding } from '../../schema/diagnosis.ts';

const root = (object: string, facts: string[]): Finding => ({
  id: `${object}#CrashLoopBackOff`,
  code: 'CrashLoopBackOff',
  severity: 'critical',
  object,
  namespace: 'shop',
  summary: `CrashLoopBackOff on ${object}`,
  evidence: facts.map((fact) => ({ node_id: object, fact, source: 'status' as const, link: null })),
  since: null,
  caused_by: null,
  attributes: {},
});

describe('grounding recall: a whole node id in the context text', () => {
  const cases: [string, string, string, boolean][] = [
    ['a JSON string value', '{"object":"pod:shop/api-1","code":"X"}', 'pod:shop/api-1', true],
    ['an edge line', 'pod:shop/api-1 owned_by replicaset:shop/api', 'pod:shop/api-1', true],
    ['at the very end', 'root pod:shop/api-1', 'pod:shop/api-1', true],
    ['a longer id is another object', '{"object":"pod:shop/api-10"}', 'pod:shop/api-1', false],
    ['a longer prefix is another object', '{"object":"xpod:shop/api-1"}', 'pod:shop/api-1', false],
    ['inside a problem id only', '"problem:pod:shop/api-1#CrashLoopBackOff"', 'pod:shop/api-1', false],
    ['cut off mid-id', '{"object":"pod:shop/api-', 'pod:shop/api-1', false],
    ['found at its second occurrence', 'pod:shop/api-10 then "pod:shop/api-1"', 'pod:shop/api-1', true],
    ['absent', 'nothing here', 'pod:shop/api-1', false],
    ['an empty id is never inside', 'anything', '', false],
  ];
  for (const [name, text, id, want] of cases) it(name, () => assert.equal(containsId(text, id), want));
});

describe('grounding recall: an evidence fact verbatim', () => {
  const cases: [string, string, string, boolean][] = [
    ['as written', 'exit code 1: "boom"', 'exit code 1', true],
    ['JSON-escaped quotes', JSON.stringify({ fact: 'Back-off pulling image "ghcr.io/x:1"' }), 'Back-off pulling image "ghcr.io/x:1"', true],
    ['JSON-escaped newline', JSON.stringify({ fact: 'line one\nline two' }), 'line one\nline two', true],
    ['a changed word is not the fact', 'exit code 2', 'exit code 1', false],
    ['cut short', '{"fact":"0/3 nodes are avail', '0/3 nodes are available', false],
  ];
  for (const [name, text, fact, want] of cases) it(name, () => assert.equal(containsFact(text, fact), want));
});

describe('grounding recall: object and every evidence fact of the root cause', () => {
  const crash = root('pod:shop/api-1', ['container app exited with code 1', 'restarted 7 times']);
  const line = JSON.stringify({ id: crash.id, object: crash.object, evidence: crash.evidence.map((e) => ({ node: e.node_id, fact: e.fact })) });
  const cases: [string, string, Finding, { object: boolean; present: number; missing: string[]; grounded: boolean }][] = [
    ['id and every fact present', line, crash, { object: true, present: 2, missing: [], grounded: true }],
    ['id present, one fact missing', line.replace('restarted 7 times', 'restarted 6 times'), crash, { object: true, present: 1, missing: ['restarted 7 times'], grounded: false }],
    ['facts present, the id only as a longer one', line.replaceAll('pod:shop/api-1"', 'pod:shop/api-12"'), crash, { object: false, present: 2, missing: [], grounded: false }],
    ['the object shown only as a model node, without its finding', '{"id":"pod:shop/api-1","status":"CrashLoopBackOff"}', crash, { object: true, present: 0, missing: ['container app exited with code 1', 'restarted 7 times'], grounded: false }],
    ['truncated after the first fact', line.slice(0, line.indexOf('restarted')), crash, { object: true, present: 1, missing: ['restarted 7 times'], grounded: false }],
    ['a finding without evidence has none to miss', '"pod:shop/api-1"', root('pod:shop/api-1', []), { object: true, present: 0, missing: [], grounded: true }],
    ['empty context', '', crash, { object: false, present: 0, missing: ['container app exited with code 1', 'restarted 7 times'], grounded: false }],
  ];
  for (const [name, text, finding, want] of cases) {
    it(name, () => {
      const g = groundingOf(text, finding);
      assert.deepEqual({ object: g.object, present: g.evidence.present, missing: g.evidence.missing, grounded: g.grounded }, want);
      assert.equal(g.evidence.total, finding.evidence.length);
    });
  }
});

describe('grounding recall on an assembled context', () => {
  // Longer than any noise line, so what a full budget leaves over cannot take it.
  const crash = root('pod:shop/api-1', ['container app exited with code 1: "panic: config not found"', 'the last log lines were: '.repeat(30)]);
  const noise = (i: number) => root(`pod:lab/p-${i}`, [`lab pod ${i} exited with code 2 `.repeat(8)]);
  const diagnosis = (roots: Finding[]): Diagnosis => ({
    namespace: null,
    root_causes: roots.map((finding) => ({ finding, effects: [], also: [] })),
    notes: [],
    hidden_causes: [],
    silent: [],
    total_findings: roots.length,
    generated_at: '2026-11-23T10:00:00.000Z',
  });
  // The shop root comes after a hundred noisy ones (some 100 tokens each); with no focus nothing brings it forward.
  const crowded = diagnosis([...Array.from({ length: 100 }, (_, i) => noise(i)), crash]);
  const cases: [string, Diagnosis, string | null, number, boolean][] = [
    ['the only root, 8k', diagnosis([crash]), null, 8000, true],
    ['behind a hundred others with no focus, 8k: dropped for the budget', crowded, null, 8000, false],
    ['behind a hundred others but touching the focus, 4k: brought first', crowded, 'pod:shop/api-1', 4000, true],
    ['a budget too small for its line', diagnosis([crash]), null, 40, false],
  ];
  for (const [name, d, focus, budgetTokens, want] of cases) {
    it(name, () => {
      const ctx = assembleContext({ focus, diagnosis: d, detail: null, subgraph: null, documents: [], budgetTokens });
      assert.equal(groundingOf(ctx.text, crash).grounded, want);
    });
  }
});
