// The PromQL guard (domain/observability/promql-guard.ts) at its edges, table-driven in the
// manner of Prometheus' own parser tests: what a viewer's and an admin's query become, the
// hostile queries (each refused or confined), the bounds, and the printer reading back what it
// printed. The real Prometheus evaluating the guarded queries: tests/integration/observability.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printPromql, readPromql, unquote } from '../../domain/observability/promql-ast.ts';
import { guardPromql, type PromqlVisibility } from '../../domain/observability/promql-guard.ts';
import { minimumStep } from '../../handlers/observability/prom.ts';
import { historyQueries } from '../../handlers/metrics/prometheus-history.ts';
import { inFlightLimiter } from '../../runtime/observability/prometheus.ts';

const VIEWER: PromqlVisibility = { namespaces: ['shop', 'payments'], unnamespaced: false };
const ADMIN: PromqlVisibility = { namespaces: ['shop', 'payments'], unnamespaced: true };
const NS = 'namespace=~"shop|payments"';
const NS_ADMIN = 'namespace=~"shop|payments|"';

const guarded = (q: string, v: PromqlVisibility = VIEWER) => {
  const r = guardPromql(q, v);
  return r.ok ? r.query : `REFUSED: ${r.message}`;
};

describe('what a query becomes', () => {
  const TABLE: [string, string, PromqlVisibility?][] = [
    ['up', `up{${NS}}`],
    ['up', `up{${NS_ADMIN}}`, ADMIN],
    ['rate(http_requests_total{job="api"}[5m])', `rate(http_requests_total{job="api",${NS}}[5m])`],
    ['sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-.*"}[5m] offset 1h))', `sum by (pod) (rate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-.*",${NS}}[5m] offset 1h))`],
    ['avg(x) without (a, b)', `avg without (a,b) (x{${NS}})`],
    ['topk(3, x)', `topk(3, x{${NS}})`],
    ['count_values("version", build_info)', `count_values("version", build_info{${NS}})`],
    ['a / on(pod) group_left(node) b', `a{${NS}} / on(pod) group_left(node) b{${NS}}`],
    ['a > bool 1', `a{${NS}} > bool 1`],
    ['a unless ignoring(le) b', `a{${NS}} unless ignoring(le) b{${NS}}`],
    ['-x', `-x{${NS}}`],
    ['1 + 2 * 3', '1 + (2 * 3)'],
    ['(1 + 2) * 3', '(1 + 2) * 3'],
    ['2 ^ 3 ^ 2', '2 ^ (3 ^ 2)'],
    ['x @ 1609746000', `x{${NS}} @ 1609746000`],
    ['rate(x[5m] @ end())', `rate(x{${NS}}[5m] @ end())`],
    ['x offset -5m', `x{${NS}} offset -5m`],
    ['max_over_time(rate(x[1m])[1h:5m])', `max_over_time(rate(x{${NS}}[1m])[1h:5m])`],
    ['min_over_time(x[30m:])', `min_over_time(x{${NS}}[30m:])`],
    ["x{a='it''s'}", 'REFUSED'],
    ["x{a='tab\\there'}", `x{a="tab\\there",${NS}}`],
    ['x{a=`raw\\d+`}', `x{a="raw\\\\d+",${NS}}`],
    ['histogram_quantile(0.99, sum by (le) (rate(apiserver_request_duration_seconds_bucket{verb!~"WATCH|CONNECT"}[5m])))', `histogram_quantile(0.99, sum by (le) (rate(apiserver_request_duration_seconds_bucket{verb!~"WATCH|CONNECT",${NS_ADMIN}}[5m])))`, ADMIN],
    ['vector(1)', 'vector(1)'],
    ['time() - 0x10 + Inf', '(time() - 0x10) + Inf'],
    ['# a comment\nup', `up{${NS}}`],
  ];
  for (const [query, want, visibility] of TABLE) {
    it(`${JSON.stringify(query)}${visibility === ADMIN ? ' (admin)' : ''}`, () => {
      const got = guarded(query, visibility);
      if (want === 'REFUSED') assert.match(got, /^REFUSED/);
      else assert.equal(got, want);
    });
  }
});

describe('hostile queries: each refused or confined', () => {
  // Confined: the answer can only hold series of the caller's namespaces.
  const CONFINED: [string, string][] = [
    ['{__name__=~".+"}', `{__name__=~".+",${NS}}`],
    ['{__name__=~".+"} or up', `{__name__=~".+",${NS}} or up{${NS}}`],
    ['up or on() vector(1)', `up{${NS}} or on() vector(1)`],
    ['x{namespace=~".*"}', `x{namespace=~".*",${NS}}`],
    ['x{namespace=~"kube-system|shop"}', `x{namespace=~"kube-system|shop",${NS}}`],
    ['x{namespace!="shop"}', `x{namespace!="shop",${NS}}`],
    ['x{namespace!~"shop"}', `x{namespace!~"shop",${NS}}`],
    ['label_replace(x, "namespace", "kube-system", "", "")', `label_replace(x{${NS}}, "namespace", "kube-system", "", "")`],
    ['label_join(x, "namespace", "", "pod")', `label_join(x{${NS}}, "namespace", "", "pod")`],
    ['absent(secret_metric{namespace=~"kube.*"})', `absent(secret_metric{namespace=~"kube.*",${NS}})`],
    ['sum(rate(x[5m]))[1h:1m]', `sum(rate(x{${NS}}[5m]))[1h:1m]`],
    ['x offset 1h @ start()', `x{${NS}} offset 1h @ start()`],
    ['x{namespace=~"shop",namespace=~"payments"}', `x{namespace=~"shop",namespace=~"payments",${NS}}`],
  ];
  for (const [query, want] of CONFINED) it(`confined: ${query}`, () => assert.equal(guarded(query), want));

  const REFUSED: [string, RegExp, PromqlVisibility?][] = [
    ['x{namespace="kube-system"}', /namespace "kube-system" is not one you may see/],
    ['x{namespace="other-team"}', /not one you may see/],
    ['x{namespace=""}', /without a namespace are for admins only/],
    ['info(up)', /info is not allowed/],
    ['holt_winters(x[5m], 0.5, 0.5)', /syntax error/],
    ['{"up", job="a"}', /not supported/],
    ['x[5m+1m]', /not supported|syntax error/],
    ['x[8d]', /reaches back more than 7 days/],
    ['max_over_time(x[8d:1h])', /reaches back more than 7 days/],
    ['max_over_time(x[7d:1s])', /more than 11000 points/],
    ['x offset 30d', /reaches back more than 7 days/],
    ['x offset 1h offset 2h', /syntax error|twice/],
    ['-x offset 5m', /must follow a selector/],
    ['sum(x) offset 5m', /must follow a selector|syntax error/],
    ['x{', /syntax error at position 2/],
    ['up; drop', /syntax error/],
    ['', /empty/],
    ['x'.repeat(17 * 1024), /longer than/],
    ['up', /you may see no namespace/, { namespaces: [], unnamespaced: false }],
    ["x{a='\\q'}", /not an escape/],
    ['x{a="\\ud800"}', /not a character/],
  ];
  for (const [query, want, visibility] of REFUSED) it(`refused: ${query.slice(0, 60)}`, () => assert.match(guarded(query, visibility), new RegExp(`^REFUSED: .*${want.source}`)));

  it('an admin may ask for series without a namespace; a viewer may not', () => {
    assert.equal(guarded('apiserver_request_total{namespace=""}', ADMIN), `apiserver_request_total{namespace="",${NS_ADMIN}}`);
    assert.match(guarded('apiserver_request_total{namespace=""}'), /^REFUSED/);
  });
  it('regex metacharacters in a namespace name are escaped in the matcher', () => {
    assert.equal(guarded('up', { namespaces: ['a.b'], unnamespaced: false }), 'up{namespace=~"a\\\\.b"}');
  });
});

describe('the printer', () => {
  const QUERIES = ['sum by (pod) (rate(x{a="b\\n\\"q\\""}[5m] offset 1h))', 'a + on(job) group_right() b', 'quantile(0.9, x) > bool 3', 'max_over_time(rate(x[1m])[1h:5m] @ 100)', '-(a - b)'];
  for (const q of QUERIES) {
    it(`reads back what it printed: ${q}`, () => {
      const printed = printPromql(readPromql(q));
      assert.deepEqual(readPromql(printed), readPromql(q));
      assert.equal(printPromql(readPromql(printed)), printed);
    });
  }
  const STRINGS: [string, string][] = [
    ['"plain"', 'plain'],
    ["'single \\' quote'", "single ' quote"],
    ['"\\x41\\101\\u00e9\\U0001F600"', 'AAé😀'],
    ['`raw \\n`', 'raw \\n'],
  ];
  for (const [raw, want] of STRINGS) it(`unquotes ${raw}`, () => assert.equal(unquote(raw, 0), want));
});

describe("the proxy's bounds", () => {
  const STEPS: [number, number][] = [
    [60, 15],
    [3600, 15],
    [165_000, 15],
    [165_001, 16],
    [7 * 86400, 55],
  ];
  for (const [range, want] of STEPS) it(`a ${String(range)} s range steps at least ${String(want)} s`, () => assert.equal(minimumStep(range), want));

  it('gives each user four query slots, released once each', () => {
    const acquire = inFlightLimiter(4);
    const held = [1, 2, 3, 4].map(() => acquire('7'));
    assert.ok(held.every((r) => r !== null));
    assert.equal(acquire('7'), null, 'a fifth waits');
    assert.notEqual(acquire('8'), null, 'another user is not held up');
    held[0]?.();
    held[0]?.();
    const again = acquire('7');
    assert.notEqual(again, null, 'a released slot is free again');
    assert.equal(acquire('7'), null, 'releasing twice frees one slot, not two');
  });
});

describe('history queries from Prometheus', () => {
  it('per scope, real containers only for CPU and memory, the pod for network; a rate window of two buckets or two minutes', () => {
    assert.deepEqual(historyQueries({ scope: 'pod', namespace: 'shop', pod: 'web-1', bucketSecs: 30 }), {
      cpu: '1000 * sum(rate(container_cpu_usage_seconds_total{namespace="shop",pod="web-1",container!="",container!="POD"}[120s]))',
      mem: 'sum(container_memory_working_set_bytes{namespace="shop",pod="web-1",container!="",container!="POD"})',
      rx: 'sum(rate(container_network_receive_bytes_total{namespace="shop",pod="web-1"}[120s]))',
      tx: 'sum(rate(container_network_transmit_bytes_total{namespace="shop",pod="web-1"}[120s]))',
    });
    assert.equal(historyQueries({ scope: 'cluster', namespace: null, pod: null, bucketSecs: 5040 }).mem, 'sum(container_memory_working_set_bytes{container!="",container!="POD"})');
    assert.match(historyQueries({ scope: 'namespace', namespace: 'shop', pod: null, bucketSecs: 720 }).rx, /\{namespace="shop"\}\[1440s\]/);
  });
  it('each goes through the guard: a viewer\'s cluster history is confined to their namespaces', () => {
    const cluster = historyQueries({ scope: 'cluster', namespace: null, pod: null, bucketSecs: 30 });
    assert.equal(guarded(cluster.mem), `sum(container_memory_working_set_bytes{container!="",container!="POD",${NS}})`);
    assert.equal(guarded(cluster.rx), `sum(rate(container_network_receive_bytes_total{${NS}}[120s]))`);
  });
});
