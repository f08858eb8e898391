// trivy-operator's reports on the real control plane (issue 16, "Real scanner in the tests"):
// its v0.29.0 CRDs installed, a Deployment, and the VulnerabilityReport and ConfigAuditReport
// the operator would write for its ReplicaSet, made from the real trivy binary's JSON (the
// offline DB's bookworm-before-fixes layout, and `trivy config` on the live ReplicaSet). The
// agent reads them through its informers like any other cluster's and serves them from
// GET /security/findings beside the built-in checks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import type { FindingsAnswer, PostureAnswer } from '../../schema/security.ts';
import { k, startTestAgent, waitFor } from '../support/cluster.ts';
import { applyOperatorReports, currentReplicaSet, installTrivyOperatorCrds, uninstallTrivyOperatorCrds } from '../support/trivy-reports.ts';
import { FIXTURE_VULN_ROWS, vulnRow } from '../support/trivy-fixture.ts';

const PASSWORD = 'security-trivy-admin-password';
const NS = 'trivy-shop';
/** Outside the agent's tenant namespaces: never shown to anyone. */
const HIDDEN = 'trivy-hidden';
const IMAGE = 'ghcr.io/acme/web:1.2.3';
let agent: RunningAgent;
let cookie = '';
let failedAuditChecks: string[] = [];
let vulnReportName = '';

function deployment(namespace: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: IMAGE, securityContext: { privileged: true } }] } },
    },
  });
}

async function call(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie } });
  return { status: res.status, body: await res.json() };
}
const findings = async (query: string) => {
  const { status, body } = await call(`/security/findings${query}`);
  return { status, body: body as FindingsAnswer };
};

describe('trivy-operator reports read like any other cluster\'s', () => {
  before(async () => {
    await installTrivyOperatorCrds();
    for (const ns of [NS, HIDDEN]) {
      await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      await k(['apply', '-f', '-'], deployment(ns));
    }
    // The operator scans a Deployment through its current ReplicaSet and labels the reports with it.
    for (const ns of [NS, HIDDEN]) {
      const rs = await currentReplicaSet(ns, 'web');
      const { vuln, audit } = await applyOperatorReports('ReplicaSet', ns, rs, [{ name: 'app', image: IMAGE }]);
      if (ns === NS) {
        vulnReportName = (vuln[0] as { metadata: { name: string } }).metadata.name;
        failedAuditChecks = (audit as { report: { checks: { checkID: string; success: boolean }[] } }).report.checks.filter((c) => !c.success).map((c) => c.checkID).sort();
      }
    }
    agent = await startTestAgent('security-trivy', { accounts: { adminPassword: PASSWORD }, settings: { tenantNamespaces: [NS] } });
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    // Reports never hold readiness back: wait for them to be listed and mapped.
    await waitFor('the trivy findings served', async () => (await findings(`?kind=vuln&namespace=${NS}`)).body.vulns.length > 0, 60_000, 500);
  });
  after(async () => {
    await agent.close();
    await k(['delete', 'namespace', NS, HIDDEN, '--wait=false']);
    await uninstallTrivyOperatorCrds();
  });

  it('serves every vulnerability of the report with its fields, attributed to the Deployment', async () => {
    const { status, body } = await findings(`?kind=vuln&namespace=${NS}`);
    assert.equal(status, 200);
    assert.deepEqual(body.scanner_reports, { vulnerabilityreports: 'read', configauditreports: 'read' });
    assert.deepEqual(body.vulns.map(vulnRow).sort(), FIXTURE_VULN_ROWS);
    for (const f of body.vulns) {
      assert.deepEqual([f.namespace, f.workload, f.image, f.source], [NS, 'web', IMAGE, 'trivy']);
      assert.equal(f.id, `${NS}/Deployment/web#${f.cve}:${f.pkg}:${IMAGE}`);
    }
    assert.deepEqual(body.misconfigs, []);
  });

  it('serves the ConfigAuditReport\'s failed checks as trivy misconfigurations beside the built-in ones', async () => {
    const { body } = await findings(`?kind=misconfig&namespace=${NS}`);
    const trivy = body.misconfigs.filter((f) => f.source === 'trivy');
    assert.deepEqual(trivy.map((f) => f.check_id).sort(), failedAuditChecks);
    assert.ok(failedAuditChecks.includes('KSV017'), 'the privileged container fails trivy\'s KSV017');
    const privileged = trivy.find((f) => f.check_id === 'KSV017');
    assert.deepEqual([privileged?.workload, privileged?.workload_kind, privileged?.resource, privileged?.container, privileged?.severity], ['web', 'Deployment', 'Deployment/web', 'app', 'HIGH']);
    assert.match(privileged?.message ?? '', /Container 'app' of ReplicaSet 'web-/);
    assert.ok(body.misconfigs.some((f) => f.source === 'capstan' && f.check_id === 'pss-baseline-privileged' && f.workload === 'web'), 'the built-in checks judge the same Deployment');
  });

  it('filters by severity, fixable and search, sorts by cvss and groups by image', async () => {
    const high = await findings(`?kind=vuln&severity=HIGH&namespace=${NS}`);
    assert.deepEqual(high.body.vulns.map((f) => f.cve), ['CVE-2023-4911']);
    const fixable = await findings(`?kind=vuln&fixable=true&namespace=${NS}`);
    assert.deepEqual(fixable.body.vulns.map(vulnRow).sort(), FIXTURE_VULN_ROWS.filter((r) => r.endsWith(' true')));
    const searched = await findings(`?search=LIBC6&namespace=${NS}`);
    assert.deepEqual(searched.body.vulns.map((f) => f.cve).sort(), ['CVE-2019-9192', 'CVE-2023-4911', 'CVE-2025-0395']);
    const byCvss = await findings(`?kind=vuln&sort=cvss&namespace=${NS}`);
    assert.deepEqual(byCvss.body.vulns.map((f) => f.cvss), [7.8, 5.5, 5.5, 5.5, 4.8, 4.8, 4.8, null, null]);
    const grouped = await findings(`?kind=vuln&group_by=image&namespace=${NS}`);
    assert.deepEqual(grouped.body.groups, [{ image: IMAGE, findings: 9, by_severity: { CRITICAL: 0, HIGH: 1, MEDIUM: 0, LOW: 7, UNKNOWN: 1 }, fixable: 5, workloads: 1 }]);
  });

  it('keeps a namespace the caller cannot see hidden', async () => {
    const all = await findings('');
    assert.ok(all.body.vulns.length === 9 && all.body.vulns.every((f) => f.namespace === NS), 'only the visible namespace\'s report');
    assert.ok(all.body.misconfigs.every((f) => f.namespace !== HIDDEN));
    const refused = await findings(`?namespace=${HIDDEN}`);
    assert.equal(refused.status, 403);
  });

  it('counts the reports in the posture: the image fails (a fixable HIGH) and each failed check counts', async () => {
    const [{ body: posture }, { body: found }] = await Promise.all([call(`/security/posture?namespace=${NS}`).then((r) => ({ body: r.body as PostureAnswer })), findings(`?kind=misconfig&namespace=${NS}`)]);
    // Every failed result is a finding, except the image's, which the vulnerabilities list.
    assert.equal(posture.checks.warnings + posture.checks.dangers, found.misconfigs.length + 1);
    assert.ok(posture.top_failing_checks.some((c) => c.check_id === 'KSV017'));
  });

  it('forgets a report deleted from the cluster', async () => {
    await k(['delete', 'vulnerabilityreport', vulnReportName, '-n', NS]);
    await waitFor('the deleted report\'s vulnerabilities gone', async () => (await findings(`?kind=vuln&namespace=${NS}`)).body.vulns.length === 0, 30_000, 500);
    const { body } = await findings(`?kind=misconfig&namespace=${NS}`);
    assert.ok(body.misconfigs.some((f) => f.source === 'trivy'), 'the ConfigAuditReport stays');
  });
});
