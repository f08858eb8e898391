// Browsing by kind (domain/resources/browse.ts): the label selector's grammar, and pages at
// their boundaries: every row exactly once over the pages, whatever the page size and sort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, PodObject } from '../../domain/cluster/model.ts';
import { BROWSABLE_KINDS, pageOf as pageOfRows, parseLabelSelector, ROW_SOURCES, rowsOf, sortRows, type BrowseQuery, type ResourceRow } from '../../domain/resources/browse.ts';
import { podDefaults } from '../support/objects.ts';
import { emptyCluster } from '../support/services.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const ago = (secs: number) => new Date(NOW.getTime() - secs * 1000).toISOString();

function pod(namespace: string, name: string, createdSecsAgo: number, labels: Record<string, string> = {}): PodObject {
  return {
    ...podDefaults, namespace, name, phase: 'Running', createdAt: ago(createdSecsAgo), startedAt: ago(createdSecsAgo), nodeName: 'n1', labels, workload: { kind: 'Deployment', name: 'web' }, owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] }, ready: true, readySince: null, unschedulable: null, containers: [], statuses: [],
  };
}

const pods = [pod('shop', 'web-2', 30, { app: 'web', tier: 'front' }), pod('shop', 'web-1', 60, { app: 'web' }), pod('pay', 'api-0', 10, { app: 'api' }), pod('shop', 'db-0', 60, { app: 'db' }), pod('pay', 'api-1', 90, { app: 'api' })];
const view: ClusterView = { ...emptyCluster, pods: () => pods };
const rows = rowsOf('pods', view);
/** Pages as the handler makes them: over the rows sorted once in the query's order. */
const pageOf = (all: readonly ResourceRow[], q: BrowseQuery, hasProblem: (id: string) => boolean) => pageOfRows(sortRows(all, q.sort), q, hasProblem);
const query = (q: Partial<BrowseQuery> = {}): BrowseQuery => ({ namespace: null, text: null, labels: [], status: null, owner: null, sort: 'name', limit: 100, after: null, ...q });
const names = (items: ResourceRow[]) => items.map((r) => `${r.namespace ?? ''}/${r.name}`);

describe('parseLabelSelector', () => {
  const rows: [string, ReturnType<typeof parseLabelSelector>][] = [
    ['', { ok: true, terms: [] }],
    ['app=web', { ok: true, terms: [{ key: 'app', value: 'web' }] }],
    ['app=web, tier', { ok: true, terms: [{ key: 'app', value: 'web' }, { key: 'tier', value: null }] }],
    ['app.kubernetes.io/name=shop', { ok: true, terms: [{ key: 'app.kubernetes.io/name', value: 'shop' }] }],
    ['a=b=c', { ok: false, message: '"a=b=c" is not key or key=value' }],
    ['=web', { ok: false, message: '"=web" is not key or key=value' }],
  ];
  for (const [text, want] of rows) it(JSON.stringify(text), () => assert.deepEqual(parseLabelSelector(text), want));
});

describe('pageOf', () => {
  it('sorts by namespace then name, or newest first', () => {
    assert.deepEqual(names(pageOf(rows, query(), () => false).items), ['pay/api-0', 'pay/api-1', 'shop/db-0', 'shop/web-1', 'shop/web-2']);
    assert.deepEqual(names(pageOf(rows, query({ sort: 'age' }), () => false).items), ['pay/api-0', 'shop/web-2', 'shop/db-0', 'shop/web-1', 'pay/api-1']);
  });

  it('filters by namespace, name text, labels and problem', () => {
    assert.deepEqual(names(pageOf(rows, query({ namespace: 'shop', text: 'WEB' }), () => false).items), ['shop/web-1', 'shop/web-2']);
    assert.deepEqual(names(pageOf(rows, query({ labels: [{ key: 'app', value: 'web' }, { key: 'tier', value: null }] }), () => false).items), ['shop/web-2']);
    const sick = (id: string) => id === 'pod:shop/db-0';
    assert.deepEqual(names(pageOf(rows, query({ status: 'problem' }), sick).items), ['shop/db-0']);
    assert.equal(pageOf(rows, query({ status: 'ok' }), sick).total, 4);
    assert.equal(pageOf(rows, query({ owner: 'Deployment/web' }), sick).total, 5);
    assert.equal(pageOf(rows, query({ owner: 'Deployment/other' }), sick).total, 0);
  });

  for (const sort of ['name', 'age'] as const) {
    for (const limit of [1, 2, 4, 5, 6]) {
      it(`pages of ${limit} by ${sort} hold every row once, and the last says so`, () => {
        const seen: string[] = [];
        let after: string[] | null = null;
        for (let guard = 0; guard < 10; guard++) {
          const page = pageOf(rows, query({ sort, limit, after }), () => false);
          assert.equal(page.total, 5);
          seen.push(...names(page.items));
          if (page.next === null) break;
          after = page.next;
        }
        assert.deepEqual(seen, names(pageOf(rows, query({ sort }), () => false).items));
      });
    }
  }

  it('a cursor past the last row gives an empty last page', () => {
    const page = pageOf(rows, query({ after: ['zzz', 'zzz', 'zzz'] }), () => false);
    assert.deepEqual([page.items, page.next], [[], null]);
  });
});

describe('ROW_SOURCES', () => {
  // The handler keeps a kind's rows while these listings are unchanged: a listing rowsOf reads
  // but ROW_SOURCES does not name would serve stale rows.
  for (const kind of BROWSABLE_KINDS) {
    it(`${kind} reads only what it names`, () => {
      const read = new Set<string>();
      const watched = new Proxy(view, { get: (target, key: string): unknown => (read.add(key), Reflect.get(target, key)) });
      rowsOf(kind, watched);
      assert.deepEqual([...read].sort(), [...ROW_SOURCES[kind]].sort());
    });
  }
});
