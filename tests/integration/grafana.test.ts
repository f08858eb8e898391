// Grafana through Capstan (docs/observability.md, "Grafana"), against the FAKE Grafana of
// tests/support/grafana-fake.ts (Grafana cannot run here; the fake speaks its HTTP API's paths,
// auth header, status codes and error bodies): the source saved with its token sealed and
// masked, tested, the dashboards listed, the Overview embed answered without the token, and an
// exported dashboard imported through /api/dashboards/import with ${DS_PROMETHEUS} bound to
// Grafana's Prometheus data source.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { agentSession, signInAs } from '../support/agent-session.ts';
import { startTestAgent } from '../support/cluster.ts';
import { FAKE_DATASOURCE_UID, startFakeGrafana, type FakeGrafana } from '../support/grafana-fake.ts';

const ADMIN_PASSWORD = 'grafana-admin-password';
const VIEWER_PASSWORD = 'grafana-viewer-password';
const TOKEN = 'glsa_fakeServiceAccountToken_never_shown';

let grafana: FakeGrafana;
let agent: RunningAgent;
let dataDir = '';
const cookies = { admin: '', viewer: '' };
let as: 'admin' | 'viewer' = 'admin';
const { call, answers } = agentSession(() => ({ url: agent.url, cookie: cookies[as] }));
const asAdmin = (method: string, path: string, body?: unknown) => ((as = 'admin'), call(method, path, body));
const asViewer = (method: string, path: string, body?: unknown) => ((as = 'viewer'), call(method, path, body));

/** A dashboard as Grafana's "Export for sharing externally" writes it: a datasource input, and panels naming it. */
const EXPORTED = {
  __inputs: [{ name: 'DS_PROMETHEUS', label: 'Prometheus', type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus' }],
  uid: 'capstan-api',
  title: 'Capstan / API server',
  panels: [{ id: 1, type: 'timeseries', title: 'Requests', datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' }, targets: [{ expr: 'sum(rate(apiserver_request_total[5m]))', datasource: { uid: '${DS_PROMETHEUS}' } }] }],
};

describe('Grafana: the source, the dashboards, the Overview embed and the import', () => {
  before(async () => {
    grafana = await startFakeGrafana(TOKEN);
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-grafana-'));
    agent = await startTestAgent('grafana', { dataDir, accounts: { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD }, outbound: { allowLoopback: true, kubernetesApiHosts: [] } });
    cookies.admin = await signInAs(agent.url, 'admin', ADMIN_PASSWORD);
    cookies.viewer = await signInAs(agent.url, 'viewer', VIEWER_PASSWORD);
  });
  after(async () => {
    await agent.close();
    await grafana.close();
  });

  it('without Grafana: the Overview embed says not configured, the list is a 409', async () => {
    assert.deepEqual((await asViewer('GET', '/observability/grafana/overview')).body, { configured: false, uid: null, url: null, origin: null });
    assert.equal((await asAdmin('GET', '/observability/grafana/dashboards')).status, 409);
  });

  it('tests and saves the source with its token sealed and masked; a wrong token tests as refused', async () => {
    const wrong = await asAdmin('POST', '/admin/observability/sources/test', { source: 'grafana', grafana: { url: grafana.url, token: 'wrong' } });
    assert.deepEqual([wrong.body.ok, wrong.body.version], [false, '11.3.0']);
    assert.match(String(wrong.body.message), /Grafana: Unauthorized/);
    const right = await asAdmin('POST', '/admin/observability/sources/test', { source: 'grafana', grafana: { url: grafana.url, token: TOKEN } });
    assert.deepEqual([right.body.ok, right.body.version, right.body.message], [true, '11.3.0', null]);
    const saved = await asAdmin('PUT', '/admin/observability/sources', { prometheus: null, grafana: { url: grafana.url, token: TOKEN, overview_uid: 'capstan-k8s' } });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.deepEqual(saved.body.grafana, { url: grafana.url, token: '••••', overview_uid: 'capstan-k8s' });
    const moved = await asAdmin('PUT', '/admin/observability/sources', { prometheus: null, grafana: { url: grafana.url.replace('127.0.0.1', 'localhost'), token: '••••' } });
    assert.deepEqual([moved.status, moved.body.field], [400, 'grafana.token']);
    assert.equal((await asAdmin('PUT', '/admin/observability/sources', { prometheus: null, grafana: { url: 'http://169.254.169.254/', token: 'x' } })).body.field, 'grafana.url');
    assert.deepEqual((await asViewer('GET', '/observability/status')).body.grafana, { configured: true });
  });

  it('lists the dashboards (admins), and answers the Overview embed to anyone signed in without the token', async () => {
    const list = await asAdmin('GET', '/observability/grafana/dashboards');
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual((list.body.dashboards as { uid: string; url: string }[]).map((d) => [d.uid, d.url]), [['capstan-k8s', `${grafana.url}/d/capstan-k8s/kubernetes-compute-resources-cluster`]]);
    assert.equal((await asViewer('GET', '/observability/grafana/dashboards')).status, 403);
    const overview = await asViewer('GET', '/observability/grafana/overview');
    assert.deepEqual(overview.body, { configured: true, uid: 'capstan-k8s', url: `${grafana.url}/d/capstan-k8s?kiosk`, origin: grafana.url });
    // Every call but the health check carried the token, and Grafana got it from Capstan alone.
    assert.ok(grafana.requests.filter((r) => r.path !== '/api/health').every((r) => r.authorization === `Bearer ${TOKEN}` || r.authorization === 'Bearer wrong'));
  });

  it('imports an exported dashboard with ${DS_PROMETHEUS} bound to Grafana\'s Prometheus data source', async () => {
    const res = await asAdmin('POST', '/observability/grafana/import', { dashboard: EXPORTED });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { uid: 'capstan-api', title: 'Capstan / API server', url: `${grafana.url}/d/capstan-api/capstan-api-server`, datasource_uid: FAKE_DATASOURCE_UID });
    const stored = grafana.dashboards.get('capstan-api') as { panels: { datasource: { uid: string }; targets: { datasource: { uid: string } }[] }[] };
    const [panel] = stored.panels;
    assert.ok(panel);
    assert.deepEqual([panel.datasource.uid, panel.targets.map((t) => t.datasource.uid)], [FAKE_DATASOURCE_UID, [FAKE_DATASOURCE_UID]]);
    assert.ok(!JSON.stringify(stored).includes('${DS_PROMETHEUS}'), 'no unresolved input is left');
    const loki = await asAdmin('POST', '/observability/grafana/import', { dashboard: { ...EXPORTED, __inputs: [{ name: 'DS_LOKI', type: 'datasource', pluginId: 'loki' }] } });
    assert.deepEqual([loki.status, loki.body.field], [400, 'dashboard.__inputs']);
    assert.equal((await asViewer('POST', '/observability/grafana/import', { dashboard: EXPORTED })).status, 403);
  });

  it('the token never appears in an answer, and is sealed in the database', () => {
    for (const a of answers) assert.ok(!a.includes(TOKEN), 'an answer carried the token');
    for (const file of readdirSync(dataDir)) if (!file.endsWith('-shm')) assert.ok(!readFileSync(join(dataDir, file)).includes(TOKEN), `${file} holds the token in the clear`);
  });
});
