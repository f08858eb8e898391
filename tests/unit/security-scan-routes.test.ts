// POST /security/scan, GET /security/scan/{id}, GET /security/posture/trend and the
// scanner_source setting through the real app and its policy chain, with the collection run
// when the test says (a queued schedule, no timers): a run's summary matches the live
// posture as the caller sees it, a hidden namespace never counts, the trend re-adds per
// caller, and every refusal (disabled, self-scan tiers, role, scope, unknown id) answers its
// status and reason.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { slimVulnerabilityReport } from '../../runtime/kube/slim-reports.ts';
import { vulnerabilityReport, type TrivyImageReport } from '../../dev/trivy-reports.ts';
import type { ClusterView, ControllerObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { slimDeployment } from '../../runtime/kube/slim.ts';
import { SELF_SCAN_HARD_DISABLED, SELF_SCAN_NO_EXPERT_MODE, SELF_SCAN_NOT_LICENSED } from '../../domain/security/scan-mode.ts';
import type { ScanningConfig } from '../../schema/security-scan.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const DAY = 24 * 3600 * 1000;
const meta = (namespace: string, name: string) => ({ metadata: { namespace, name } });
const bad = { hostNetwork: true, containers: [{ name: 'web', image: 'nginx:latest', securityContext: { privileged: true } }] };
const soso = { containers: [{ name: 'api', image: 'ghcr.io/acme/api:1.2', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] };
const must = <T>(x: T | null): T => {
  assert.ok(x !== null);
  return x;
};
const workloads: WorkloadObject[] = [
  must(slimDeployment({ ...meta('shop', 'api'), spec: { template: { spec: soso } } })),
  must(slimDeployment({ ...meta('blog', 'web'), spec: { template: { spec: bad } } })),
  // kube-system is hidden by the system-namespace blocklist: a caller must never see its numbers.
  must(slimDeployment({ ...meta('kube-system', 'agent-zz9'), spec: { template: { spec: bad } } })),
];
const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'blog', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  workloads: () => workloads,
};

async function harness(options: { scanning?: Partial<ScanningConfig>; licensed?: boolean } = {}) {
  const queued: (() => void)[] = [];
  const h = await testApp({
    cluster,
    scanning: { enabled: true, mode: 'auto', retentionDays: 90, ...options.scanning },
    scanSchedule: (fn) => queued.push(fn),
    ...(options.licensed ? { licensing: { tier: 'pro', has: () => true } } : {}),
  });
  const admin = await h.signIn('admin');
  const viewer = await h.signIn('viewer');
  const runQueued = async () => {
    for (const fn of queued.splice(0)) fn();
    await h.services.scans.sweep();
  };
  return { ...h, admin, viewer, queued, runQueued };
}

describe('POST /security/scan and GET /security/scan/{id}', () => {
  it('answers running at once; the collected run summarizes the posture the caller sees', async () => {
    const h = await harness();
    const res = await h.call('POST', '/api/agent/security/scan', { cookie: h.admin });
    assert.equal(res.status, 200, res.text);
    const id = String(res.body.id);
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.deepEqual(res.body, { id, status: 'running', job_name: `capstan-scan-${id}`, source: 'none', started_at: h.clock.now().toISOString(), started: true });
    assert.equal(h.queued.length, 1);

    // One at a time: a second POST answers the running one.
    const again = await h.call('POST', '/api/agent/security/scan', { cookie: h.admin });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, id);
    assert.equal(again.body.started, false);

    h.clock.advance(2000);
    await h.runQueued();
    const got = await h.call('GET', `/api/agent/security/scan/${id}`, { cookie: h.viewer });
    assert.equal(got.status, 200, got.text);
    const posture = (await h.call('GET', '/api/agent/security/posture', { cookie: h.viewer })).body;
    const summary = got.body.summary as Record<string, unknown>;
    assert.equal(got.body.status, 'succeeded');
    assert.equal(got.body.finished_at, h.clock.now().toISOString());
    assert.equal(got.body.requested_by, 'admin');
    assert.equal(got.body.error, null);
    assert.equal(summary.score, posture.score);
    assert.equal(summary.grade, posture.grade);
    assert.deepEqual(summary.by_severity, posture.by_severity);
    assert.deepEqual(summary.checks, posture.checks);
    assert.equal(summary.workloads_covered, 2, 'shop and blog; kube-system is hidden');
    assert.equal(summary.vulns, 0);
    const findings = (await h.call('GET', '/api/agent/security/findings', { cookie: h.viewer })).body;
    assert.equal(summary.misconfigs, (findings.misconfigs as unknown[]).length);
    // Stored: the hidden namespace's rows are kept (the run is the whole cluster's), never shown.
    const stored = await h.services.db.selectFrom('scan_namespace_counts').select('namespace').where('run_id', '=', id).orderBy('namespace').execute();
    assert.deepEqual(stored.map((r) => r.namespace), ['blog', 'kube-system', 'shop']);

    // Audited as a write, with the run it started.
    const audit = await h.services.db.selectFrom('audit_log').select(['category', 'action', 'status', 'detail']).where('action', 'like', '%/security/scan').orderBy('id').execute();
    assert.deepEqual(audit.map((a) => [a.category, a.action, a.status]), [
      ['write', 'POST /security/scan', 200],
      ['write', 'POST /security/scan', 200],
    ]);
    assert.match(audit[0]?.detail ?? '', new RegExp(`"scan_id":"${id}"`));
    h.services.stop();
  });

  it('each run is a Task: running, then finished with who started it; the badge counts it until the tray is opened', async () => {
    const h = await harness();
    const res = await h.call('POST', '/api/agent/security/scan', { cookie: h.admin });
    const id = String(res.body.id);
    const tray = async () => (await h.call('GET', '/api/agent/tasks', { cookie: h.admin })).body as { tasks: { id: string; kind: string; actor: string; state: string; reason: string | null }[]; unseen: number };
    assert.deepEqual((await tray()).tasks.map((t) => [t.id, t.kind, t.actor, t.state]), [[`security_scan:${id}`, 'security_scan', 'admin', 'running']]);
    assert.equal((await tray()).unseen, 0, 'a running task is not news yet');
    h.clock.advance(1000);
    await h.runQueued();
    assert.equal((await tray()).tasks[0]?.state, 'finished');
    assert.equal((await tray()).unseen, 1);
    assert.equal((await tray()).unseen, 1, 'reading the tray does not clear the badge');
    h.clock.advance(1000);
    assert.deepEqual((await h.call('POST', '/api/agent/tasks/opened', { cookie: h.admin })).body, { unseen: 0 });
    assert.equal((await tray()).unseen, 0);
    assert.equal((await tray()).tasks.length, 1, 'opening the tray removes no row');
    // The dashboard polls the tray: its reads go to the access log, not a chained row each.
    assert.deepEqual(await h.services.db.selectFrom('audit_log').select('id').where('action', '=', 'GET /tasks').execute(), []);
    assert.equal((await h.call('GET', '/api/agent/tasks', { cookie: h.viewer })).status, 403, 'admins only');
    const key = String((await h.call('POST', '/api/agent/me/api-keys', { cookie: h.admin, body: { name: 'k', scopes: ['scanning:read'] } })).body.key);
    assert.equal((await h.call('GET', '/api/agent/tasks', { key })).status, 403, 'no API key reaches the tray');
    h.services.stop();
  });

  it('collects a run still running when it is read', async () => {
    const h = await harness();
    const id = String((await h.call('POST', '/api/agent/security/scan', { cookie: h.admin })).body.id);
    const got = await h.call('GET', `/api/agent/security/scan/${id}`, { cookie: h.admin });
    assert.equal(got.body.status, 'succeeded');
    h.services.stop();
  });

  it('refuses viewers, keys without scanning:write, and answers unknown or malformed ids', async () => {
    const h = await harness();
    const viewerPost = await h.call('POST', '/api/agent/security/scan', { cookie: h.viewer });
    assert.equal(viewerPost.status, 403);
    assert.equal(viewerPost.body.error, 'forbidden');
    const readKey = String((await h.call('POST', '/api/agent/me/api-keys', { cookie: h.admin, body: { name: 'read', scopes: ['scanning:read'] } })).body.key);
    const scoped = await h.call('POST', '/api/agent/security/scan', { key: readKey });
    assert.equal(scoped.status, 403);
    assert.deepEqual([scoped.body.error, scoped.body.scope], ['api_key_insufficient_scope', 'scanning:write']);
    const writeKey = String((await h.call('POST', '/api/agent/me/api-keys', { cookie: h.admin, body: { name: 'write', scopes: ['scanning:write'] } })).body.key);
    const byKey = await h.call('POST', '/api/agent/security/scan', { key: writeKey });
    assert.equal(byKey.status, 200, byKey.text);
    const wrongScope = String((await h.call('POST', '/api/agent/me/api-keys', { cookie: h.admin, body: { name: 'wl', scopes: ['workloads:read'] } })).body.key);
    assert.equal((await h.call('GET', `/api/agent/security/scan/${String(byKey.body.id)}`, { key: wrongScope })).status, 403);
    assert.equal((await h.call('GET', `/api/agent/security/scan/${String(byKey.body.id)}`, { key: readKey })).status, 200);

    const unknown = await h.call('GET', '/api/agent/security/scan/0123456789abcdef', { cookie: h.viewer });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'not_found');
    const malformed = await h.call('GET', '/api/agent/security/scan/nope', { cookie: h.viewer });
    assert.equal(malformed.status, 400);
    assert.deepEqual([malformed.body.error, malformed.body.field], ['invalid_input', 'id']);
    h.services.stop();
  });

  it('answers 403 with the reason while security.scanning.enabled=false', async () => {
    const h = await harness({ scanning: { enabled: false } });
    const res = await h.call('POST', '/api/agent/security/scan', { cookie: h.admin });
    assert.equal(res.status, 403);
    assert.equal(res.body.error, 'forbidden');
    assert.match(String(res.body.message), /security\.scanning\.enabled=false/);
    assert.equal(await h.services.db.selectFrom('scan_runs').select('id').executeTakeFirst(), undefined);
    h.services.stop();
  });

  it('self mode: 402 on the Free tier, 403 without expert mode when licensed, 403 when the chart says operator', async () => {
    const free = await harness({ scanning: { mode: 'self' } });
    const res = await free.call('POST', '/api/agent/security/scan', { cookie: free.admin });
    assert.equal(res.status, 402);
    assert.deepEqual([res.body.error, res.body.feature, res.body.message], ['feature_not_licensed', 'self_scan', SELF_SCAN_NOT_LICENSED]);
    assert.equal(typeof res.body.upgrade, 'string');
    free.services.stop();

    const pro = await harness({ scanning: { mode: 'self' }, licensed: true });
    const noExpert = await pro.call('POST', '/api/agent/security/scan', { cookie: pro.admin });
    assert.deepEqual([noExpert.status, noExpert.body.error, noExpert.body.message], [403, 'forbidden', SELF_SCAN_NO_EXPERT_MODE]);
    pro.services.stop();

    // The runtime override: scanner_source=self on a chart in operator mode is hard-disabled; back to null runs.
    const op = await harness({ scanning: { mode: 'operator' }, licensed: true });
    const put = await op.call('PUT', '/api/agent/admin/settings/scanning', { cookie: op.admin, body: { scanner_source: 'self' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, {
      scanner_source: 'self',
      chart: { enabled: true, mode: 'operator', retention_days: 90 },
      effective: { mode: 'self', source: 'none', self_scan: { allowed: false, status: 403, reason: SELF_SCAN_HARD_DISABLED } },
    });
    const hard = await op.call('POST', '/api/agent/security/scan', { cookie: op.admin });
    assert.deepEqual([hard.status, hard.body.message], [403, SELF_SCAN_HARD_DISABLED]);
    await op.call('PUT', '/api/agent/admin/settings/scanning', { cookie: op.admin, body: { scanner_source: null } });
    assert.equal((await op.call('POST', '/api/agent/security/scan', { cookie: op.admin })).status, 200);
    assert.equal((await op.call('PUT', '/api/agent/admin/settings/scanning', { cookie: op.viewer, body: { scanner_source: 'auto' } })).status, 403);
    const invalid = await op.call('PUT', '/api/agent/admin/settings/scanning', { cookie: op.admin, body: { scanner_source: 'trivy' } });
    assert.deepEqual([invalid.status, invalid.body.field], [400, 'scanner_source']);
    op.services.stop();
  });
});

describe('GET /security/posture/trend', () => {
  it('one point per succeeded run in the window, re-added from what the caller sees', async () => {
    const h = await harness();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // Days apart: sign in again each time (sessions expire while the clock jumps).
      ids.push(String((await h.call('POST', '/api/agent/security/scan', { cookie: await h.signIn('admin') })).body.id));
      await h.runQueued();
      h.clock.advance(10 * DAY);
    }
    h.viewer = await h.signIn('viewer');
    const posture = (await h.call('GET', '/api/agent/security/posture', { cookie: h.viewer })).body;
    const trend = await h.call('GET', '/api/agent/security/posture/trend', { cookie: h.viewer });
    assert.equal(trend.status, 200, trend.text);
    assert.equal(trend.body.days, 30);
    const points = trend.body.points as { ts: string; score: number; grade: string; scan_id: string }[];
    // Now is 30 days after the first run finished: all three are in the default window.
    assert.deepEqual(points.map((p) => p.scan_id), ids);
    for (const p of points) assert.deepEqual([p.score, p.grade], [posture.score, posture.grade]);
    assert.deepEqual(points.map((p) => p.ts), [30, 20, 10].map((d) => new Date(h.clock.now().getTime() - d * DAY).toISOString()));

    const shorter = (await h.call('GET', '/api/agent/security/posture/trend?days=15', { cookie: h.viewer })).body.points as { scan_id: string }[];
    assert.deepEqual(shorter.map((p) => p.scan_id), ids.slice(2));

    const blog = (await h.call('GET', '/api/agent/security/posture?namespace=blog', { cookie: h.viewer })).body;
    const blogTrend = await h.call('GET', '/api/agent/security/posture/trend?namespace=blog', { cookie: h.viewer });
    assert.equal(blogTrend.body.namespace, 'blog');
    for (const p of blogTrend.body.points as { score: number; grade: string }[]) assert.deepEqual([p.score, p.grade], [blog.score, blog.grade]);
    // blog fails much more than shop: a different number from the cluster's, so the filter is real.
    assert.notEqual(blog.score, posture.score);

    assert.equal((await h.call('GET', '/api/agent/security/posture/trend?namespace=kube-system', { cookie: h.viewer })).status, 403);
    for (const days of ['0', '91', 'x']) {
      const bad = await h.call('GET', `/api/agent/security/posture/trend?days=${days}`, { cookie: h.viewer });
      assert.deepEqual([bad.status, bad.body.field], [400, 'days'], days);
    }
    h.services.stop();
  });
});

describe('trivy-operator reports and the mode in force', () => {
  // A Deployment's ReplicaSet scanned by trivy-operator: the real trivy JSON fixture, written as the operator writes it.
  const image = JSON.parse(readFileSync(new URL('../fixtures/trivy/image-bookworm-before-fixes.json', import.meta.url), 'utf8')) as TrivyImageReport;
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'shop', name: 'api-7d9f8c', uid: 'rs-uid' };
  const report = must(slimVulnerabilityReport(vulnerabilityReport(image, owner, 'api', 'ghcr.io/acme/api:1.2', new Date('2026-11-21T11:00:00Z'))));
  const rs: ControllerObject = { kind: 'ReplicaSet', namespace: 'shop', name: 'api-7d9f8c', owner: { kind: 'Deployment', name: 'api' }, createdAt: null, conditions: [], desired: 1, ready: 1, available: 1, revision: 1, job: null, cronJob: null };
  const withReports: ClusterView = {
    ...cluster,
    controllers: () => [rs],
    vulnerabilityReports: () => [report],
    scannerReportStatus: () => ({ vulnerabilityreports: 'read', configauditreports: 'read' }),
  };

  it('auto: a scan reads the operator and keeps its vulnerabilities; self hides the reports (and is refused); back to auto shows them', async () => {
    const h = await testApp({ cluster: withReports, scanning: { enabled: true, mode: 'auto', retentionDays: 90 } });
    const admin = await h.signIn('admin');
    const vulns = async () => ((await h.call('GET', '/api/agent/security/findings?kind=vuln', { cookie: admin })).body.vulns as unknown[]).length;
    assert.equal(await vulns(), 9);
    const started = await h.call('POST', '/api/agent/security/scan', { cookie: admin });
    assert.equal(started.body.source, 'operator');
    const scan = await h.call('GET', `/api/agent/security/scan/${String(started.body.id)}`, { cookie: admin });
    assert.equal((scan.body.summary as { vulns: number }).vulns, 9);
    assert.equal((await h.services.db.selectFrom('vuln_findings').select('cve').where('run_id', '=', String(started.body.id)).execute()).length, 9);

    assert.equal((await h.call('PUT', '/api/agent/admin/settings/scanning', { cookie: admin, body: { scanner_source: 'self' } })).status, 200);
    // The posture is re-evaluated at most every 5 s (POSTURE_MIN_AGE_MS).
    h.clock.advance(6000);
    assert.equal(await vulns(), 0, 'self mode: the operator\'s reports do not count');
    assert.equal((await h.call('POST', '/api/agent/security/scan', { cookie: admin })).status, 402);

    await h.call('PUT', '/api/agent/admin/settings/scanning', { cookie: admin, body: { scanner_source: null } });
    h.clock.advance(6000);
    assert.equal(await vulns(), 9);
    h.services.stop();
  });
});
