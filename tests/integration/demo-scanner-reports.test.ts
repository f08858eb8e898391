// `capstan demo`'s scanner reports (dev/localcluster/scanner-reports.ts) on the suite's
// cluster, which runs the demo scenario: the CRDs go in, each scanned Deployment gets trivy's
// nine findings on the fixture image under its own image, and the agent reads them as it reads
// any cluster's. The CRDs (and with them every report) are removed afterwards, as the other
// test files expect a cluster without them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { applyDemoScannerReports, DEMO_SCANNED } from '../../dev/localcluster/scanner-reports.ts';
import type { FindingsAnswer } from '../../schema/security.ts';
import { startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { uninstallTrivyOperatorCrds } from '../support/trivy-reports.ts';

const PASSWORD = 'demo-scanner-reports-admin-password';
let agent: RunningAgent;
let cookie = '';
let written = 0;

async function findings(query: string): Promise<FindingsAnswer> {
  const res = await fetch(`${agent.url}/api/agent/security/findings${query}`, { headers: { cookie } });
  assert.equal(res.status, 200);
  return (await res.json()) as FindingsAnswer;
}

/** trivy v0.74.0 on bookworm-before-fixes (tests/fixtures/trivy/image-bookworm-before-fixes.json): nine package findings over five CVEs. */
const FIXTURE_FINDINGS = [
  'CVE-2019-9192:libc6',
  'CVE-2022-27943:gcc-12-base',
  'CVE-2022-27943:libgcc-s1',
  'CVE-2022-27943:libstdc++6',
  'CVE-2023-4039:gcc-12-base',
  'CVE-2023-4039:libgcc-s1',
  'CVE-2023-4039:libstdc++6',
  'CVE-2023-4911:libc6',
  'CVE-2025-0395:libc6',
];

describe("the demo's scanner reports", () => {
  before(async () => {
    written = await applyDemoScannerReports(testCluster());
    agent = await startTestAgent('demo-scanner-reports', { accounts: { adminPassword: PASSWORD } });
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => {
    await agent.close();
    await uninstallTrivyOperatorCrds();
  });

  it('writes one report per container of each scanned Deployment', () => {
    // Each scanned demo Deployment has one container and one ReplicaSet.
    assert.equal(written, DEMO_SCANNED.length);
  });

  it("attributes the fixture scan to each Deployment, under that Deployment's image, with the advisory's fields", async () => {
    await waitFor('the demo reports served', async () => (await findings('?kind=vuln')).vulns.length >= DEMO_SCANNED.length * FIXTURE_FINDINGS.length, 60_000, 500);
    for (const { namespace, deployment } of DEMO_SCANNED) {
      const { vulns } = await findings(`?kind=vuln&namespace=${namespace}&workload=${deployment}&workload_kind=Deployment`);
      assert.deepEqual(vulns.map((v) => `${v.cve}:${v.pkg}`).sort(), FIXTURE_FINDINGS, `${namespace}/${deployment}`);
      assert.equal(new Set(vulns.map((v) => v.image)).size, 1, 'one image per scanned Deployment');
      const glibc = vulns.find((v) => v.cve === 'CVE-2023-4911');
      assert.ok(glibc);
      assert.deepEqual([glibc.severity, glibc.installed_ver, glibc.fixed_ver, glibc.fix_available, glibc.source], ['HIGH', '2.36-9+deb12u2', '2.36-9+deb12u3', true, 'trivy']);
    }
    const frontend = await findings('?kind=vuln&namespace=shop&workload=frontend');
    assert.match(frontend.vulns[0]?.image ?? '', /shop-frontend:3\.14\.0$/);
  });

  it('groups them by image, one group per scanned Deployment', async () => {
    const { groups } = await findings('?kind=vuln&group_by=image');
    assert.ok(groups);
    assert.equal(groups.length, DEMO_SCANNED.length);
    for (const g of groups) assert.deepEqual([g.findings, g.by_severity.HIGH, g.fixable, g.workloads], [FIXTURE_FINDINGS.length, 1, 5, 1]);
  });
});
