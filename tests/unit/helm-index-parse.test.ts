// A repository index.yaml parsed in a worker thread (runtime/helm/index-parse.ts): the chart's
// versions as `helm repo index` writes them, a refusal for YAML that is not, and the agent's
// event loop turning all the while (a parse on its own thread would let it turn not once).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { parseIndexEntries } from '../../runtime/helm/index-parse.ts';

/** An index shaped like `helm repo index` output: `charts` charts of `versions` versions each, newest first. */
function index(charts: number, versions: number): string {
  const entries: Record<string, object[]> = {};
  for (let c = 0; c < charts; c++) {
    const name = `chart-${String(c)}`;
    entries[name] = Array.from({ length: versions }, (_, i) => {
      const version = `1.${String(versions - 1 - i)}.0`;
      return { apiVersion: 'v2', appVersion: version, created: '2026-11-27T10:00:00Z', description: `The ${name} chart, with a description long enough to be realistic for a public repository.`, digest: 'a'.repeat(64), name, type: 'application', urls: [`charts/${name}-${version}.tgz`], version };
    });
  }
  return stringify({ apiVersion: 'v1', entries, generated: '2026-11-27T10:00:00Z' });
}

describe('a repository index parsed off the event loop', () => {
  it("answers the chart's versions, newest first, with their URLs and digests", async () => {
    const entries = await parseIndexEntries(index(3, 4), 'chart-1');
    assert.deepEqual(entries.map((e) => e.version), ['1.3.0', '1.2.0', '1.1.0', '1.0.0']);
    assert.deepEqual(entries[0], { version: '1.3.0', urls: ['charts/chart-1-1.3.0.tgz'], digest: 'a'.repeat(64) });
  });
  it('answers none for a chart the index does not list, or an index without entries', async () => {
    assert.deepEqual(await parseIndexEntries(index(2, 1), 'absent'), []);
    assert.deepEqual(await parseIndexEntries('apiVersion: v1\n', 'chart-0'), []);
    assert.deepEqual(await parseIndexEntries('entries:\n  chart-0: not-a-list\n', 'chart-0'), []);
  });
  it("refuses YAML that is not, with the parser's words", async () => {
    await assert.rejects(parseIndexEntries('entries: [unclosed\n', 'chart-0'), /flow sequence|Missing|unclosed|end/i);
  });
  it('the event loop keeps turning while a large index is parsed', async () => {
    const text = index(100, 40);
    assert.ok(text.length > 1024 * 1024, `${String(text.length)} bytes`);
    let turns = 0;
    let parsing = true;
    const turn = () => {
      turns++;
      if (parsing) setImmediate(turn);
    };
    setImmediate(turn);
    const entries = await parseIndexEntries(text, 'chart-99');
    parsing = false;
    assert.equal(entries.length, 40);
    assert.ok(turns > 10, `the loop turned ${String(turns)} times during the parse`);
  });
});
