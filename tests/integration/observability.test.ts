// The observability connector on the real control plane and a real Prometheus (Debian's,
// scraping the test API server and KWOK node kwok-node-1's container metrics through the API
// server's node proxy; tests/support/prometheus.ts): the source saved, masked and tested; the
// outbound rules on its URL; GET /metrics/apiserver from real series; and the guarded PromQL
// proxy confining real namespaced series to what the caller may see, with the same queries
// sent straight to Prometheus as the control.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { RunningAgent } from '../../runtime/agent.ts';
import { agentSession, signInAs } from '../support/agent-session.ts';
import { k, startTestAgent, waitFor } from '../support/cluster.ts';
import { testIssuer } from '../support/license-keys.ts';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus.ts';
import { promtool } from '../support/promtool.ts';

const SEEN = 'it-obs-seen';
/** Where the generated scraper account is applied. */
const MONITORING = 'it-obs-monitoring';
const HIDDEN = 'it-obs-hidden';
const ADMIN_PASSWORD = 'observability-admin-password';
const VIEWER_PASSWORD = 'observability-viewer-password';
const TOKEN = 'prom-bearer-token-never-shown';
const issuer = testIssuer();
const run = promisify(execFile);

let prometheus: RunningPrometheus;
let agent: RunningAgent;
let dataDir = '';
let scraperKey = '';
const cookies = { admin: '', viewer: '' };
let as: 'admin' | 'viewer' = 'admin';
const { call, answers } = agentSession(() => ({ url: agent.url, cookie: cookies[as] }));
const asAdmin = (method: string, path: string, body?: unknown) => ((as = 'admin'), call(method, path, body));
const asViewer = (method: string, path: string, body?: unknown) => ((as = 'viewer'), call(method, path, body));

const pod = (namespace: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'worker', namespace }, spec: { nodeName: 'kwok-node-1', containers: [{ name: 'app', image: 'busybox:1.36' }] } });

type Series = { metric: Record<string, string> };
const namespacesOf = (result: unknown) => [...new Set((result as Series[]).map((s) => s.metric.namespace ?? '(none)'))].sort();

describe('observability: the Prometheus source, the API server metrics and the guarded proxy', () => {
  before(async () => {
    for (const ns of [SEEN, HIDDEN]) {
      await k(['create', 'namespace', ns]);
      await k(['apply', '-f', '-'], pod(ns));
    }
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-observability-'));
    agent = await startTestAgent('observability', {
      dataDir,
      accounts: { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD },
      settings: { tenantNamespaces: [SEEN] },
      license: { publicKeyPem: issuer.publicKeyPem },
      // The documented development switch: Prometheus is on loopback here. Never set by the chart.
      outbound: { allowLoopback: true, kubernetesApiHosts: ['kubernetes.default.svc'] },
    });
    cookies.admin = await signInAs(agent.url, 'admin', ADMIN_PASSWORD);
    cookies.viewer = await signInAs(agent.url, 'viewer', VIEWER_PASSWORD);
    // Prometheus also scrapes Capstan's own metrics, with an API key as its bearer token.
    scraperKey = String((await asAdmin('POST', '/me/api-keys', { name: 'prometheus', scopes: ['metrics:read'] })).body.key);
    prometheus = await startPrometheus({ extraJobs: [{ job_name: 'capstan', metrics_path: '/api/agent/observability/metrics', params: { format: ['prometheus'] }, static_configs: [{ targets: [new URL(agent.url).host] }], authorization: { credentials: scraperKey } }] });
    // Both pods' container series, straight from Prometheus (the control for every guarded answer).
    const deadline = Date.now() + 60_000;
    while (namespacesOf(await prometheus.query(`container_cpu_usage_seconds_total{namespace=~"${SEEN}|${HIDDEN}"}`)).length < 2) {
      if (Date.now() > deadline) throw new Error(`Prometheus never scraped both pods from kwok-node-1: ${JSON.stringify(await (await fetch(`${prometheus.url}/api/v1/targets`)).json()).slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });
  after(async () => {
    await agent.close();
    await prometheus.close();
    for (const ns of [SEEN, HIDDEN, MONITORING]) await k(['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
    for (const kind of ['clusterrole', 'clusterrolebinding']) await k(['delete', kind, 'capstan-metrics-scraper', '--ignore-not-found']);
  });

  it('without a source: setup_required, not an error; the status says not configured', async () => {
    assert.deepEqual((await asViewer('GET', '/metrics/apiserver')).body, { source: 'none', setup_required: true });
    assert.deepEqual((await asViewer('GET', '/observability/status')).body, { prometheus: { configured: false }, grafana: { configured: false }, metrics_source: 'builtin' });
    assert.equal((await asAdmin('PUT', '/metrics/source', { source: 'prometheus' })).status, 409);
  });

  it('refuses a source URL in the metadata, link-local and Kubernetes API ranges, naming the field', async () => {
    for (const url of ['http://169.254.169.254/', 'http://[fe80::1]:9090/', 'http://[fd00:ec2::254]/', 'https://kubernetes.default.svc/', 'http://prometheus:9090/?x=1']) {
      const res = await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url } });
      assert.deepEqual([res.status, res.body.error, res.body.field], [400, 'invalid_input', 'prometheus.url'], url);
    }
  });

  it('saves the source with its token sealed and masked, keeps it for the same host, asks again for another', async () => {
    const saved = await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url: prometheus.url, auth: 'bearer', secret: TOKEN } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(saved.body.prometheus, { url: prometheus.url, auth: 'bearer', username: null, secret: '••••' });
    const kept = await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url: `${prometheus.url}/`, auth: 'bearer', secret: '••••' } });
    assert.equal(kept.status, 200, 'the same host keeps the stored token');
    const moved = await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url: prometheus.url.replace('127.0.0.1', 'localhost'), auth: 'bearer', secret: '••••' } });
    assert.deepEqual([moved.status, moved.body.field], [400, 'prometheus.secret']);
    assert.deepEqual((await asAdmin('GET', '/admin/observability/sources')).body.prometheus, { url: `${prometheus.url}/`, auth: 'bearer', username: null, secret: '••••' });
    const tested = await asAdmin('POST', '/admin/observability/sources/test', { source: 'prometheus' });
    assert.equal(tested.body.ok, true, JSON.stringify(tested.body));
    assert.match(String(tested.body.version), /^2\./);
    assert.equal(tested.body.apiserver_series, true);
    const nothing = await asAdmin('POST', '/admin/observability/sources/test', { source: 'prometheus', prometheus: { url: 'http://127.0.0.1:9/' } });
    assert.deepEqual([nothing.body.ok, nothing.body.version], [false, null]);
    assert.deepEqual((await asViewer('GET', '/observability/status')).body.prometheus, { configured: true });
    assert.equal((await asViewer('GET', '/admin/observability/sources')).status, 403, 'admins only');
  });

  it('reads the API server\'s request rate, error rate, p99 latency and verbs from its real series', async () => {
    const res = await asViewer('GET', '/metrics/apiserver');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const m = res.body as { source: string; requests_per_sec?: number; error_rate_pct?: number; p99_latency_ms?: number; by_verb?: { verb: string; rate: number }[] };
    assert.equal(m.source, 'prometheus');
    assert.ok((m.requests_per_sec ?? 0) > 0, JSON.stringify(m));
    assert.ok((m.p99_latency_ms ?? 0) > 0, JSON.stringify(m));
    assert.equal(typeof m.error_rate_pct, 'number');
    const verbs = m.by_verb ?? [];
    assert.ok(verbs.some((v) => v.rate > 0) && verbs.some((v) => v.verb === 'LIST'), JSON.stringify(verbs));
    assert.deepEqual(verbs.map((v) => v.rate), [...verbs.map((v) => v.rate)].sort((a, b) => b - a), 'busiest first');
  });

  it('on the Free tier the proxy answers 402 with the upgrade hint', async () => {
    const res = await asViewer('POST', '/observability/prom/query', { query: 'up' });
    assert.deepEqual([res.status, res.body.error, res.body.feature, typeof res.body.upgrade], [402, 'feature_not_licensed', 'observability', 'string']);
  });

  it('confines every selector to the namespaces the caller may see: real series, Prometheus straight as the control', async () => {
    assert.equal((await asAdmin('PUT', '/admin/license', { key: issuer.key({ id: 'lic_obs', tier: 'pro', licensee: 'Observability test' }) })).status, 200);
    const direct = namespacesOf(await prometheus.query('container_cpu_usage_seconds_total'));
    assert.ok(direct.includes(HIDDEN) && direct.includes(SEEN), `Prometheus itself holds both: ${direct.join(', ')}`);

    const query = async (q: string, who: 'admin' | 'viewer' = 'viewer') => (who === 'admin' ? asAdmin : asViewer)('POST', '/observability/prom/query', { query: q });
    const plain = await query('container_cpu_usage_seconds_total');
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual(namespacesOf(plain.body.result), [SEEN]);
    assert.equal(plain.body.query, `container_cpu_usage_seconds_total{namespace=~"${SEEN}"}`);

    // Hostile: each confined (only SEEN comes back) or refused.
    for (const q of ['{__name__=~"container_cpu.+"}', `container_cpu_usage_seconds_total{namespace=~"${HIDDEN}|${SEEN}"}`, 'container_cpu_usage_seconds_total or on() container_memory_working_set_bytes', `label_replace(container_cpu_usage_seconds_total, "namespace", "${HIDDEN}", "", "")`, 'sum by (namespace) (container_cpu_usage_seconds_total offset 1s)']) {
      const res = await query(q);
      assert.equal(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
      assert.ok(!namespacesOf(res.body.result).includes(HIDDEN) || q.startsWith('label_replace'), `${q} leaked ${HIDDEN}`);
      assert.ok((res.body.result as Series[]).length > 0, `${q} answered the visible series: ${JSON.stringify(res.body).slice(0, 800)}`);
    }
    const relabelled = await query(`label_replace(container_cpu_usage_seconds_total, "namespace", "${HIDDEN}", "", "")`);
    assert.equal((relabelled.body.result as Series[]).length, (plain.body.result as Series[]).length, 'a relabel renames the visible series; it adds none');
    const named = await query(`container_cpu_usage_seconds_total{namespace="${HIDDEN}"}`);
    assert.deepEqual([named.status, named.body.field], [400, 'query']);
    assert.match(String(named.body.message), new RegExp(`namespace "${HIDDEN}" is not one you may see`));
    const broken = await query('sum(rate(container_cpu_usage_seconds_total[5m])');
    assert.deepEqual([broken.status, typeof broken.body.position], [400, 'number']);

    // Series without a namespace: the admin's, not the viewer's.
    assert.deepEqual((await query('apiserver_request_total')).body.result, []);
    assert.ok(((await query('apiserver_request_total', 'admin')).body.result as Series[]).length > 0);
  });

  it('bounds a range query: at most 7 days, the step raised to at least 15 s', async () => {
    const now = Math.floor(Date.now() / 1000);
    const long = await asViewer('POST', '/observability/prom/query_range', { query: 'container_cpu_usage_seconds_total', start: now - 8 * 86400, end: now, step: 3600 });
    assert.deepEqual([long.status, long.body.field], [400, 'end']);
    const res = await asViewer('POST', '/observability/prom/query_range', { query: 'container_cpu_usage_seconds_total', start: now - 120, end: now, step: 1 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.result_type, res.body.step_secs], ['matrix', 15]);
    assert.deepEqual(namespacesOf(res.body.result), [SEEN]);
  });

  it('reads history from Prometheus once it is the metrics source, and falls back to its own samples, saying why, when it does not answer', async () => {
    assert.equal((await asAdmin('PUT', '/metrics/source', { source: 'prometheus' })).status, 200);
    const history = await asViewer('GET', `/metrics/history?scope=namespace&namespace=${SEEN}&window=1h`);
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const h = history.body as { source: string; available: boolean; bucket_secs: number; series: { ts: number; cpu_millicores: number | null; mem_bytes: number | null }[] };
    assert.deepEqual([h.source, h.available], ['prometheus', true], JSON.stringify(h).slice(0, 500));
    assert.ok(h.series.some((p) => p.mem_bytes !== null), 'the pod\'s working set, from Prometheus');
    assert.ok(h.series.every((p) => p.ts % h.bucket_secs === 0), 'points on bucket starts, as the built-in history\'s');
    assert.equal((await asViewer('GET', `/metrics/history?scope=namespace&namespace=${HIDDEN}&window=1h`)).status, 403, 'a namespace the caller may not see');
    // A Prometheus that stops answering: the agent's own samples, and why.
    assert.equal((await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url: 'http://127.0.0.1:9/' } })).status, 200);
    const fallback = (await asViewer('GET', `/metrics/history?scope=namespace&namespace=${SEEN}&window=1h`)).body as { source: string; reason?: string };
    assert.equal(fallback.source, 'builtin');
    assert.match(fallback.reason ?? '', /^Prometheus did not answer/);
    assert.equal((await asAdmin('PUT', '/admin/observability/sources', { prometheus: { url: prometheus.url } })).status, 200);
  });

  it('generates a scrape config promtool accepts and RBAC that grants get on nodes/proxy and nodes/metrics, nothing more', async () => {
    assert.equal((await asViewer('GET', `/observability/scrape-config?namespace=${MONITORING}`)).status, 403);
    const res = await asAdmin('GET', `/observability/scrape-config?namespace=${MONITORING}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await asAdmin('GET', '/observability/scrape-config')).body.namespace, 'monitoring');
    const config = join(mkdtempSync(join(tmpdir(), 'capstan-scrape-')), 'prometheus.yml');
    writeFileSync(config, `global:\n  scrape_interval: 30s\nscrape_configs:\n${String(res.body.scrape_config)}`);
    // --syntax-only: the token and CA files are the paths inside the Prometheus pod, not here.
    const checked = await run(await promtool(), ['check', 'config', '--syntax-only', config]);
    assert.match(checked.stdout, /SUCCESS/);
    assert.match(String(res.body.rbac), /WARNING: nodes\/proxy is powerful/);

    await k(['create', 'namespace', MONITORING]);
    await k(['create', 'serviceaccount', 'baseline', '-n', MONITORING]);
    await k(['apply', '-f', '-'], String(res.body.rbac));
    const rules = async (account: string) => (await k(['auth', 'can-i', '--list', `--as=system:serviceaccount:${MONITORING}:${account}`, '--as-group=system:serviceaccounts', '--as-group=system:authenticated'])).split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l !== '');
    const baseline = new Set(await rules('baseline'));
    const added = (await rules('capstan-metrics-scraper')).filter((l) => !baseline.has(l));
    assert.deepEqual(added.sort(), ['nodes/metrics [] [] [get]', 'nodes/proxy [] [] [get]']);
    // The token Secret is a real one: the API server's token controller fills it.
    await waitFor('the scraper token', async () => (await k(['get', 'secret', 'capstan-metrics-scraper-token', '-n', MONITORING, '-o', 'jsonpath={.data.token}'])).trim() !== '', 30_000, 500);
  });

  it("serves Capstan's own metrics, which the real Prometheus scrapes with an API key", async () => {
    const text = await (await fetch(`${agent.url}/api/agent/observability/metrics?format=prometheus`, { headers: { authorization: `Bearer ${scraperKey}` } })).text();
    const json = (await (await fetch(`${agent.url}/api/agent/observability/metrics`, { headers: { authorization: `Bearer ${scraperKey}` } })).json()) as { metrics: string };
    assert.match(json.metrics, /^capstan_http_requests_total/m, 'the JSON form holds the same text');
    for (const name of ['capstan_http_requests_total', 'capstan_http_request_duration_seconds_bucket', 'capstan_informer_synced', 'capstan_informer_failing_seconds', 'capstan_diagnosis_duration_seconds', 'capstan_audit_export_lag_seconds']) assert.match(text, new RegExp(`^${name}`, 'm'), name);
    assert.equal((await fetch(`${agent.url}/api/agent/observability/metrics`)).status, 401);
    // Prometheus parsed it: the requests this test made, by route template (never the path asked).
    await waitFor('Prometheus to scrape Capstan', async () => (await prometheus.query('capstan_http_requests_total{route="/admin/observability/sources",method="PUT"}')).length > 0, 30_000, 500);
    const refused = await prometheus.query('sum(capstan_outbound_failures_total)');
    assert.ok(Number(refused[0]?.value[1]) >= 1, 'the failed source test counted as an outbound failure');
    assert.equal((await prometheus.query('up{job="capstan"}'))[0]?.value[1], '1');
  });

  it('the token never appears in an answer, and is sealed in the database', () => {
    for (const a of answers) assert.ok(!a.includes(TOKEN), 'an answer carried the token');
    for (const file of readdirSync(dataDir)) if (!file.endsWith('-shm')) assert.ok(!readFileSync(join(dataDir, file)).includes(TOKEN), `${file} holds the token in the clear`);
  });
});
