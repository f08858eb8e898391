// The rules that turn trivy-operator's reports into findings and posture results
// (domain/security/trivy-reports.ts, docs/security-posture.md "Scanner reports"): attribution,
// the per-image result, deduplication, the cap, and the slimmer's reading of labels.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerObject } from '../../domain/cluster/model.ts';
import { evaluate } from '../../domain/security/posture.ts';
import { attributeTo, controllerOwners, keepWorst, reportImage, scannerResults, vulnFindings, type ConfigAuditReportObject, type ReportVulnerability, type VulnerabilityReportObject } from '../../domain/security/trivy-reports.ts';
import { slimConfigAuditReport, slimVulnerabilityReport } from '../../runtime/kube/slim-reports.ts';
import type { SecuritySeverity } from '../../schema/security.ts';
import { zeroCounts } from '../../schema/security.ts';

const controller = (kind: ControllerObject['kind'], name: string, owner: { kind: string; name: string } | null): ControllerObject => ({ kind, namespace: 'shop', name, owner, createdAt: null, conditions: [], desired: 1, ready: 1, available: 1, revision: null, job: null, cronJob: null });
const OWNERS = controllerOwners([controller('ReplicaSet', 'web-abc', { kind: 'Deployment', name: 'web' }), controller('ReplicaSet', 'web-def', { kind: 'Deployment', name: 'web' }), controller('ReplicaSet', 'lone-rs', null), controller('Job', 'nightly-123', { kind: 'CronJob', name: 'nightly' }), controller('Job', 'own-job', { kind: 'Workflow', name: 'wf' })]);

describe('attribution: which workload a report names', () => {
  const rows: [string, { kind: string; name: string }, { kind: string; name: string }][] = [
    ['a Deployment\'s ReplicaSet: the Deployment', { kind: 'ReplicaSet', name: 'web-abc' }, { kind: 'Deployment', name: 'web' }],
    ['a ReplicaSet nothing owns: itself', { kind: 'ReplicaSet', name: 'lone-rs' }, { kind: 'ReplicaSet', name: 'lone-rs' }],
    ['a ReplicaSet the cache does not hold: itself', { kind: 'ReplicaSet', name: 'gone-rs' }, { kind: 'ReplicaSet', name: 'gone-rs' }],
    ['a CronJob\'s Job: the CronJob', { kind: 'Job', name: 'nightly-123' }, { kind: 'CronJob', name: 'nightly' }],
    ['a Job owned by something else: itself', { kind: 'Job', name: 'own-job' }, { kind: 'Job', name: 'own-job' }],
    ['a StatefulSet: itself', { kind: 'StatefulSet', name: 'db' }, { kind: 'StatefulSet', name: 'db' }],
    ['a bare Pod: itself', { kind: 'Pod', name: 'debug' }, { kind: 'Pod', name: 'debug' }],
    ['a ReplicaSet of the same name in another namespace: not confused', { kind: 'ReplicaSet', name: 'web-abc' }, { kind: 'ReplicaSet', name: 'web-abc' }],
  ];
  for (const [name, subject, want] of rows) it(name, () => assert.deepEqual(attributeTo(name.includes('another namespace') ? 'blog' : 'shop', subject, OWNERS), want));
});

const vuln = (cve: string, severity: SecuritySeverity, fixed: string | null, score: number | null = null, pkg = 'libc6'): ReportVulnerability => ({ cve, pkg, installed: '1.0', fixed, severity, score, title: '', link: null });
const vulnReport = (name: string, subject: string, vulnerabilities: ReportVulnerability[], image = 'ghcr.io/acme/web:1', container = 'app'): VulnerabilityReportObject => ({ namespace: 'shop', name, subject: { kind: 'ReplicaSet', name: subject }, container, image, summary: zeroCounts(), vulnerabilities, dropped: 0 });

describe('each scanned image is one posture result', () => {
  const rows: [string, ReportVulnerability[], SecuritySeverity | null][] = [
    ['no vulnerability: passes', [], null],
    ['only unfixed ones, CRITICAL included: passes (nothing to upgrade to)', [vuln('CVE-1', 'CRITICAL', null), vuln('CVE-2', 'LOW', null)], null],
    ['a fixable HIGH: fails at danger, counted HIGH', [vuln('CVE-1', 'HIGH', '1.1'), vuln('CVE-2', 'LOW', '1.1')], 'HIGH'],
    ['a fixable CRITICAL beats a fixable HIGH', [vuln('CVE-1', 'HIGH', '1.1'), vuln('CVE-2', 'CRITICAL', '2.0')], 'CRITICAL'],
    ['an unfixed CRITICAL and a fixable LOW: fails at warning, counted LOW', [vuln('CVE-1', 'CRITICAL', null), vuln('CVE-2', 'LOW', '1.1')], 'LOW'],
    ['fixable MEDIUM and UNKNOWN: counted MEDIUM', [vuln('CVE-1', 'UNKNOWN', '1.1'), vuln('CVE-2', 'MEDIUM', '1.2')], 'MEDIUM'],
  ];
  for (const [name, vulns, want] of rows) {
    it(name, () => {
      const [result, ...rest] = scannerResults([vulnReport('r', 'web-abc', vulns)], [], OWNERS);
      assert.deepEqual(rest, []);
      assert.deepEqual(result, { namespace: 'shop', failure: want === null ? null : { severity: want, finding: null } });
    });
  }
});

describe('duplicates count once', () => {
  const a = vulnReport('replicaset-web-abc-app', 'web-abc', [vuln('CVE-1', 'HIGH', '1.1')]);
  const b = vulnReport('replicaset-web-def-app', 'web-def', [vuln('CVE-1', 'HIGH', '1.1')]);
  const sidecar = vulnReport('replicaset-web-abc-sidecar', 'web-abc', [vuln('CVE-1', 'HIGH', '1.1')], 'ghcr.io/acme/web:1', 'sidecar');
  const other = vulnReport('replicaset-web-abc-proxy', 'web-abc', [vuln('CVE-1', 'HIGH', '1.1')], 'envoyproxy/envoy:1.30', 'proxy');

  it('two ReplicaSets of one Deployment, or two containers of one image: one finding, one result', () => {
    assert.deepEqual(vulnFindings([a, b, sidecar], OWNERS).map((f) => f.id), ['shop/Deployment/web#CVE-1:libc6:ghcr.io/acme/web:1']);
    assert.equal(scannerResults([a, b, sidecar], [], OWNERS).length, 1);
  });

  it('another image of the same workload is another finding and another result', () => {
    assert.deepEqual(vulnFindings([a, other], OWNERS).map((f) => f.image), ['ghcr.io/acme/web:1', 'envoyproxy/envoy:1.30']);
    assert.equal(scannerResults([a, other], [], OWNERS).length, 2);
  });

  it('a report whose labels name no object is not attributed, so not shown', () => {
    assert.deepEqual(vulnFindings([{ ...a, subject: null }], OWNERS), []);
  });
});

describe('ConfigAuditReport checks in the posture, through evaluate()', () => {
  const audit: ConfigAuditReportObject = {
    namespace: 'shop',
    name: 'replicaset-web-abc',
    subject: { kind: 'ReplicaSet', name: 'web-abc' },
    checks: [
      { id: 'KSV001', title: 'Can elevate its own privileges', severity: 'MEDIUM', success: false, messages: ["Container 'web' of ReplicaSet 'web-abc' should set 'securityContext.allowPrivilegeEscalation' to false"], remediation: 'Set it to false.' },
      { id: 'KSV017', title: 'Privileged container', severity: 'HIGH', success: false, messages: [], remediation: '' },
      { id: 'KSV012', title: 'Runs as root user', severity: 'MEDIUM', success: true, messages: [], remediation: '' },
    ],
  };
  const e = evaluate([], undefined, scannerResults([vulnReport('r', 'web-abc', [vuln('CVE-1', 'LOW', '1.1')])], [audit], OWNERS));

  it('counts every check and each image like a built-in result, and adds no covered workload', () => {
    assert.deepEqual(e.posture.checks, { passed: 1, warnings: 2, dangers: 1 });
    // ⌊200·1 / (2·1 + 2 + 2·1)⌋
    assert.equal(e.posture.score, 33);
    assert.equal(e.posture.grade, 'F');
    assert.deepEqual(e.posture.by_severity, { CRITICAL: 0, HIGH: 1, MEDIUM: 1, LOW: 1, UNKNOWN: 0 });
    assert.equal(e.posture.workloads_covered, 0);
    assert.deepEqual(e.posture.namespaces.map((n) => [n.namespace, n.score]), [['shop', 33]]);
  });

  it('lists the failed checks as findings, the worst first; a check with no message reads its title', () => {
    assert.deepEqual(e.findings.map((f) => [f.id, f.severity, f.container, f.message]), [
      ['shop/Deployment/web#KSV017', 'HIGH', null, 'Privileged container'],
      ['shop/Deployment/web#KSV001', 'MEDIUM', 'web', "Container 'web' of ReplicaSet 'web-abc' should set 'securityContext.allowPrivilegeEscalation' to false"],
    ]);
    assert.deepEqual(e.posture.top_failing_checks.map((c) => c.check_id), ['KSV017', 'KSV001']);
  });
});

describe('the cap on vulnerabilities kept per report', () => {
  it('keeps the worst: severity, then fixable, then CVSS; says how many it dropped', () => {
    const all = [vuln('CVE-L', 'LOW', '1'), vuln('CVE-H1', 'HIGH', null, 9.1), vuln('CVE-C', 'CRITICAL', null), vuln('CVE-H2', 'HIGH', '2', 7.0), vuln('CVE-H3', 'HIGH', null, 9.8)];
    const { kept, dropped } = keepWorst(all, 3);
    assert.deepEqual(kept.map((v) => v.cve), ['CVE-C', 'CVE-H2', 'CVE-H3']);
    assert.equal(dropped, 2);
  });

  it('the slimmer applies it and keeps the full summary', () => {
    const vulnerabilities = Array.from({ length: 350 }, (_, i) => ({ vulnerabilityID: `CVE-2024-${1000 + i}`, resource: 'openssl', installedVersion: '3.0', fixedVersion: '', severity: i === 349 ? 'CRITICAL' : 'LOW' }));
    const slim = slimVulnerabilityReport({ metadata: { name: 'r', namespace: 'shop', labels: { 'trivy-operator.resource.kind': 'Pod', 'trivy-operator.resource.name': 'p' } }, report: { summary: { criticalCount: 1, lowCount: 349 }, vulnerabilities } });
    assert.ok(slim);
    assert.equal(slim.vulnerabilities.length, 300);
    assert.equal(slim.dropped, 50);
    assert.equal(slim.vulnerabilities[0]?.cve, 'CVE-2024-1349', 'the one CRITICAL is kept, first');
    assert.deepEqual(slim.summary, { CRITICAL: 1, HIGH: 0, MEDIUM: 0, LOW: 349, UNKNOWN: 0 });
  });
});

describe('the slimmer reads what the operator writes', () => {
  it('a name too long for a label: the name-hash label and the name in the annotation', () => {
    const long = 'a-very-long-deployment-name-that-goes-on-and-on-past-sixty-three-characters-7d9f8c';
    const slim = slimConfigAuditReport({ metadata: { name: 'replicaset-hash', namespace: 'shop', labels: { 'trivy-operator.resource.kind': 'ReplicaSet', 'trivy-operator.resource.name-hash': 'x7b9' }, annotations: { 'trivy-operator.resource.name': long } }, report: { checks: [] } });
    assert.deepEqual(slim?.subject, { kind: 'ReplicaSet', name: long });
  });

  it('no resource labels: no subject; an unknown severity reads UNKNOWN; a passed check keeps no message', () => {
    const slim = slimConfigAuditReport({ metadata: { name: 'x', namespace: 'shop' }, report: { checks: [{ checkID: 'KSV1', severity: 'SEVERE', success: false, messages: ['m'] }, { checkID: 'KSV2', severity: 'LOW', success: true, messages: ['fine'] }, { title: 'no id' }] } });
    assert.ok(slim);
    assert.equal(slim.subject, null);
    assert.deepEqual(slim.checks.map((c) => [c.id, c.severity, c.messages]), [['KSV1', 'UNKNOWN', ['m']], ['KSV2', 'LOW', []]]);
  });

  it('a cluster-scoped object (no namespace) is not a namespaced report: dropped', () => {
    assert.equal(slimVulnerabilityReport({ metadata: { name: 'x' } }), null);
  });
});

describe('the image a report names', () => {
  const rows: [string, [string, string, string, string], string][] = [
    ['tag', ['index.docker.io', 'library/nginx', '1.25', 'sha256:aa'], 'index.docker.io/library/nginx:1.25'],
    ['digest only', ['ghcr.io', 'acme/web', '', 'sha256:bb'], 'ghcr.io/acme/web@sha256:bb'],
    ['neither', ['ghcr.io', 'acme/web', '', ''], 'ghcr.io/acme/web'],
    ['no registry', ['', 'acme/web', '2', ''], 'acme/web:2'],
  ];
  for (const [name, args, want] of rows) it(name, () => assert.equal(reportImage(...args), want));
});
