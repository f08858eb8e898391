// Scans on the real agent over the demo scenario: POST /security/scan answers `running` at
// once and the background collection alone (no GET) marks it succeeded; its summary matches
// GET /security/posture; the rows are stored; a run past the 90-day retention is pruned when
// the next one is inserted; one run at a time; every refusal answers its status and reason:
// a viewer, a key without scanning:write, an unknown id, self mode on the Free tier (402), and
// an agent whose chart disabled scanning (403, through the real CLI's CAPSTAN_SCANNING_*).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../domain/clock.ts';
import type { RunningAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase, type Db } from '../../runtime/store/database.ts';
import { spawnAgent } from '../support/agent-process.ts';
import { startTestAgent, testCluster, waitFor } from '../support/cluster.ts';

const ADMIN = 'scan-test-admin-password';
const VIEWER = 'scan-test-viewer-password';
const DAY = 24 * 3600 * 1000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(url: string, method: string, path: string, auth: { cookie?: string; key?: string }, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth.cookie) headers.cookie = auth.cookie;
  if (auth.key) headers['x-api-key'] = auth.key;
  const res = await fetch(`${url}/api/agent${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function signIn(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  assert.equal(res.status, 200, `${username} signs in`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('scans on the demo scenario', () => {
  let agent: RunningAgent;
  let db: Db;
  let admin = '';
  let viewer = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-scans-'));

  before(async () => {
    agent = await startTestAgent('scans', { dataDir, accounts: { adminPassword: ADMIN, viewerPassword: VIEWER }, log: silentLogger });
    // A second connection to the agent's own database, to read what a scan stored and to plant old runs.
    db = await openDatabase(dataDir, systemClock);
    admin = await signIn(agent.url, 'admin', ADMIN);
    viewer = await signIn(agent.url, 'viewer', VIEWER);
    await waitFor('the demo workloads judged', async () => Number((await call(agent.url, 'GET', '/security/posture', { cookie: admin })).body.workloads_covered) > 5, 120_000, 1000);
  });
  after(async () => {
    await db.destroy();
    await agent.close();
  });

  it('answers running at once; the background sweep alone finishes it; GET reports the posture it stored', async () => {
    const started = await call(agent.url, 'POST', '/security/scan', { cookie: admin });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const id = String(started.body.id);
    assert.equal(started.body.status, 'running');
    assert.equal(started.body.job_name, `capstan-scan-${id}`);
    assert.equal(started.body.source, 'none', 'auto mode, no trivy-operator CRDs in this cluster, no self-scan on the Free tier');
    assert.equal(started.body.started, true);

    // No GET yet: the run reaches succeeded by the background collection.
    await waitFor('the run collected in the background', async () => (await db.selectFrom('scan_runs').select('status').where('id', '=', id).executeTakeFirst())?.status === 'succeeded', 60_000, 200);

    const scan = await call(agent.url, 'GET', `/security/scan/${id}`, { cookie: admin });
    assert.equal(scan.status, 200);
    assert.equal(scan.body.status, 'succeeded');
    assert.equal(scan.body.requested_by, 'admin');
    assert.equal(scan.body.error, null);
    assert.ok(Date.parse(String(scan.body.finished_at)) >= Date.parse(String(scan.body.started_at)));
    const summary = scan.body.summary as Record<string, unknown>;
    // The demo's templates do not change while the test runs: the stored snapshot is the live posture.
    const posture = (await call(agent.url, 'GET', '/security/posture', { cookie: admin })).body;
    assert.deepEqual([summary.score, summary.grade, summary.by_severity, summary.checks, summary.workloads_covered], [posture.score, posture.grade, posture.by_severity, posture.checks, posture.workloads_covered]);
    const findings = (await call(agent.url, 'GET', '/security/findings', { cookie: admin })).body;
    assert.equal(summary.misconfigs, (findings.misconfigs as unknown[]).length);
    assert.equal(summary.vulns, (findings.vulns as unknown[]).length);

    // Stored: the whole cluster's run (the system namespaces the blocklist hides from every
    // caller included), one posture_findings row per finding and one counts row per namespace;
    // the visible part is exactly what the caller is served.
    const visible = new Set((posture.namespaces as { namespace: string }[]).map((n) => n.namespace));
    const rows = await db.selectFrom('posture_findings').select(['finding_id', 'namespace']).where('run_id', '=', id).execute();
    const counted = await db.selectFrom('scan_namespace_counts').select(['namespace', 'misconfigs']).where('run_id', '=', id).orderBy('namespace').execute();
    assert.equal(rows.length, counted.reduce((n, c) => n + c.misconfigs, 0));
    assert.ok(counted.some((c) => !visible.has(c.namespace)), 'the demo has judged workloads in hidden system namespaces');
    assert.deepEqual(counted.map((c) => c.namespace).filter((ns) => visible.has(ns)), [...visible].sort());
    const liveIds = (findings.misconfigs as { id: string }[]).map((f) => f.id).sort();
    assert.deepEqual(rows.filter((r) => visible.has(r.namespace)).map((r) => r.finding_id).sort(), liveIds, 'the stored visible findings are the live ones');

    // The viewer reads the same run and its trend point.
    assert.equal((await call(agent.url, 'GET', `/security/scan/${id}`, { cookie: viewer })).body.status, 'succeeded');
    const trend = await call(agent.url, 'GET', '/security/posture/trend?days=1', { cookie: viewer });
    const point = (trend.body.points as { scan_id: string; score: number; grade: string }[]).find((p) => p.scan_id === id);
    assert.deepEqual([point?.score, point?.grade], [posture.score, posture.grade]);
  });

  it('prunes runs older than 90 days, with their rows, when the next run is inserted', async () => {
    const now = Date.now();
    const plant = async (id: string, ageDays: number) => {
      const at = now - ageDays * DAY;
      await db.insertInto('scan_runs').values({ id, started_at: at, finished_at: at + 1000, status: 'succeeded', job_name: `capstan-scan-${id}`, source: 'none', requested_by: 'admin', error: null }).execute();
      await db.insertInto('scan_namespace_counts').values({ run_id: id, namespace: 'shop', passed: 1, warnings: 0, dangers: 0, critical: 0, high: 0, medium: 0, low: 0, unknown: 0, workloads: 1, misconfigs: 0, vulns: 0 }).execute();
      await db.insertInto('posture_findings').values({ run_id: id, finding_id: 'shop/Deployment/x#c', namespace: 'shop', workload: 'x', workload_kind: 'Deployment', check_id: 'c', severity: 'LOW', container: null, message: 'm', source: 'capstan' }).execute();
    };
    await plant('00000000000000a1', 91);
    await plant('00000000000000b2', 89);
    // Planted rows are visible to the agent (same database), and nothing prunes until an insert.
    assert.equal((await call(agent.url, 'GET', '/security/scan/00000000000000a1', { cookie: admin })).status, 200);

    const started = await call(agent.url, 'POST', '/security/scan', { cookie: admin });
    assert.equal(started.status, 200);
    assert.equal((await call(agent.url, 'GET', '/security/scan/00000000000000a1', { cookie: admin })).status, 404);
    assert.equal((await call(agent.url, 'GET', '/security/scan/00000000000000b2', { cookie: admin })).status, 200);
    for (const table of ['scan_namespace_counts', 'posture_findings'] as const) {
      assert.deepEqual(await db.selectFrom(table).select('run_id').where('run_id', '=', '00000000000000a1').execute(), [], `${table} of the pruned run`);
    }
    assert.equal((await db.selectFrom('scan_namespace_counts').select('run_id').where('run_id', '=', '00000000000000b2').execute()).length, 1);
    await waitFor('the run collected', async () => (await call(agent.url, 'GET', `/security/scan/${String(started.body.id)}`, { cookie: admin })).body.status === 'succeeded', 60_000, 200);
  });

  it('refuses a viewer, a key without scanning:write, and answers 404 for an unknown scan', async () => {
    const byViewer = await call(agent.url, 'POST', '/security/scan', { cookie: viewer });
    assert.equal(byViewer.status, 403);
    assert.equal(byViewer.body.error, 'forbidden');
    const key = String((await call(agent.url, 'POST', '/me/api-keys', { cookie: admin }, { name: 'scan-reader', scopes: ['scanning:read'] })).body.key);
    const byKey = await call(agent.url, 'POST', '/security/scan', { key });
    assert.deepEqual([byKey.status, byKey.body.error, byKey.body.scope], [403, 'api_key_insufficient_scope', 'scanning:write']);
    const unknown = await call(agent.url, 'GET', '/security/scan/ffffffffffffffff', { key });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'not_found']);
    assert.equal(typeof unknown.body.message, 'string');
  });

  it('self mode on the Free tier is 402 with the feature; back to the chart mode it runs again', async () => {
    const put = await call(agent.url, 'PUT', '/admin/settings/scanning', { cookie: admin }, { scanner_source: 'self' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const refused = await call(agent.url, 'POST', '/security/scan', { cookie: admin });
    assert.deepEqual([refused.status, refused.body.error, refused.body.feature], [402, 'feature_not_licensed', 'self_scan']);
    assert.match(String(refused.body.message), /Pro/);
    await call(agent.url, 'PUT', '/admin/settings/scanning', { cookie: admin }, { scanner_source: null });
    assert.equal((await call(agent.url, 'POST', '/security/scan', { cookie: admin })).status, 200);
  });
});

describe('security.scanning.enabled=false', () => {
  it('refuses POST /security/scan with 403 and the reason (the real CLI reading CAPSTAN_SCANNING_ENABLED)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-scans-off-'));
    const proc = await spawnAgent({ kubeconfig: testCluster().kubeconfig, dataDir, env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: ADMIN, CAPSTAN_SCANNING_ENABLED: 'false' } });
    try {
      const cookie = await signIn(proc.url, 'admin', ADMIN);
      const res = await call(proc.url, 'POST', '/security/scan', { cookie });
      assert.equal(res.status, 403);
      assert.equal(res.body.error, 'forbidden');
      assert.match(String(res.body.message), /security\.scanning\.enabled=false/);
      const settings = await call(proc.url, 'GET', '/admin/settings/scanning', { cookie });
      assert.deepEqual(settings.body.chart, { enabled: false, mode: 'auto', retention_days: 90 });
    } finally {
      await proc.stop();
    }
  });
});
