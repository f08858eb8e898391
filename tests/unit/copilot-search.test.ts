// AI Context search at its boundaries: no words, title weight, ties, excerpts around the first match.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryWords, searchDocuments, type SearchableDocument } from '../../domain/copilot/search.ts';

const docs: SearchableDocument[] = [
  { id: 1, title: 'Payments runbook', body: 'When checkout fails, look at the payments queue first.' },
  { id: 2, title: 'Maintenance windows', body: 'The batch namespace restarts every night; payments are not affected.' },
  { id: 3, title: 'Long', body: `${'x'.repeat(1000)} the needle is here ${'y'.repeat(1000)}` },
];
const opts = { limit: 5, excerptChars: 200 };

describe('AI Context search', () => {
  const cases: [string, string, number[]][] = [
    ['no words at all', '  ?! ', []],
    ['a one-letter word is not a word', 'a', []],
    ['nothing matches', 'kafka', []],
    ['a title match outranks a body match', 'payments', [1, 2]],
    ['case does not matter', 'PAYMENTS Queue', [1, 2]],
    ['equal scores keep id order', 'night checkout', [1, 2]],
  ];
  for (const [name, query, ids] of cases) {
    it(name, () => assert.deepEqual(searchDocuments(docs, query, opts).map((h) => h.id), ids));
  }

  it('a short body is the excerpt whole; a long one is cut around the first match', () => {
    const short = searchDocuments(docs, 'checkout', opts).at(0);
    assert.ok(short);
    assert.equal(short.whole, true);
    assert.equal(short.excerpt, docs[0]?.body);
    const long = searchDocuments(docs, 'needle', opts).at(0);
    assert.ok(long);
    assert.equal(long.whole, false);
    assert.ok(long.excerpt.includes('the needle is here'), long.excerpt);
    assert.ok(long.excerpt.length <= opts.excerptChars + 2);
  });

  it('limit keeps the best', () => assert.deepEqual(searchDocuments(docs, 'payments', { ...opts, limit: 1 }).map((h) => h.id), [1]));
  it('query words are de-duplicated and lower-cased', () => assert.deepEqual(queryWords('Pod pod POD-1 x'), ['pod', 'pod-1']));
});
