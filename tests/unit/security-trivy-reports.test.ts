// trivy's real JSON (tests/fixtures/trivy: `trivy image` on the bookworm-before-fixes layout,
// `trivy config` on bad-deployment.yaml, both v0.74.0 on the offline DB) through the whole
// read path without a cluster: written as trivy-operator v0.29.0 writes its reports
// (dev/trivy-reports.ts), slimmed as the informer keeps them (runtime/kube/slim-reports.ts),
// mapped to findings (domain/security/trivy-reports.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ControllerObject } from '../../domain/cluster/model.ts';
import { evaluate } from '../../domain/security/posture.ts';
import { controllerOwners, scannerResults, vulnFindings } from '../../domain/security/trivy-reports.ts';
import { slimConfigAuditReport, slimVulnerabilityReport } from '../../runtime/kube/slim-reports.ts';
import { FIXTURE_VULN_ROWS, vulnRow } from '../support/trivy-fixture.ts';
import { configAuditReport, parseImageRef, vulnerabilityReport, type TrivyConfigReport, type TrivyImageReport } from '../../dev/trivy-reports.ts';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/trivy/${name}`, import.meta.url), 'utf8'));
const image = fixture('image-bookworm-before-fixes.json') as TrivyImageReport;
const config = fixture('config-bad-deployment.json') as TrivyConfigReport;
const NOW = new Date('2026-11-24T12:00:00.123Z');
const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'shop', name: 'web-7d9f8c', uid: '0b1c-uid' };
const rs = (name: string, deployment: string): ControllerObject => ({ kind: 'ReplicaSet', namespace: 'shop', name, owner: { kind: 'Deployment', name: deployment }, createdAt: null, conditions: [], desired: 1, ready: 1, available: 1, revision: 1, job: null, cronJob: null });

type Json = Record<string, unknown> & { metadata: { name: string; namespace: string; labels: Record<string, string>; ownerReferences: object[] }; report: Record<string, unknown> };

describe('a VulnerabilityReport from trivy image JSON, as trivy-operator writes it', () => {
  const report = vulnerabilityReport(image, owner, 'app', 'ghcr.io/acme/web:1.2.3', NOW) as Json;

  it('is named and labelled after the scanned object and container, and owned by it', () => {
    assert.equal(report.metadata.name, 'replicaset-web-7d9f8c-app');
    assert.equal(report.metadata.namespace, 'shop');
    assert.deepEqual(report.metadata.labels, {
      'app.kubernetes.io/managed-by': 'trivy-operator',
      'trivy-operator.container.name': 'app',
      'trivy-operator.resource.kind': 'ReplicaSet',
      'trivy-operator.resource.name': 'web-7d9f8c',
      'trivy-operator.resource.namespace': 'shop',
    });
    assert.deepEqual(report.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c', uid: '0b1c-uid', controller: true, blockOwnerDeletion: false }]);
  });

  it('carries the scanner, image, OS and summary fields, timestamps to the second', () => {
    assert.equal(report.report.updateTimestamp, '2026-11-24T12:00:00Z');
    assert.deepEqual(report.report.scanner, { name: 'Trivy', vendor: 'Aqua Security', version: '0.74.0' });
    assert.deepEqual(report.report.registry, { server: 'ghcr.io' });
    assert.deepEqual(report.report.artifact, { repository: 'acme/web', tag: '1.2.3' });
    assert.deepEqual(report.report.os, { family: 'debian', name: '12.2' });
    assert.deepEqual(report.report.summary, { criticalCount: 0, highCount: 1, mediumCount: 0, lowCount: 7, unknownCount: 1, noneCount: 0 });
  });

  it('maps every trivy vulnerability field by field: score is NVD CVSS v3, an unfixed one has fixedVersion ""', () => {
    const vulns = report.report.vulnerabilities as Record<string, unknown>[];
    assert.equal(vulns.length, 9);
    const looney = vulns.find((v) => v.vulnerabilityID === 'CVE-2023-4911');
    assert.deepEqual(looney, {
      vulnerabilityID: 'CVE-2023-4911',
      resource: 'libc6',
      installedVersion: '2.36-9+deb12u2',
      fixedVersion: '2.36-9+deb12u3',
      publishedDate: looney?.publishedDate,
      lastModifiedDate: looney?.lastModifiedDate,
      severity: 'HIGH',
      title: looney?.title,
      primaryLink: 'https://avd.aquasec.com/nvd/cve-2023-4911',
      links: [],
      score: 7.8,
      target: '',
      packagePURL: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u2?arch=amd64&distro=debian-12.2',
    });
    assert.match(String(looney.title), /^glibc: buffer overflow in ld\.so/);
    const unscored = vulns.find((v) => v.vulnerabilityID === 'CVE-2025-0395');
    assert.equal(unscored?.score, undefined, 'no CVSS in the DB: no score field');
    assert.equal(vulns.find((v) => v.vulnerabilityID === 'CVE-2019-9192')?.fixedVersion, '');
  });
});

describe('image references read as go-containerregistry does (the operator\'s registry and artifact)', () => {
  const rows: [string, ReturnType<typeof parseImageRef>][] = [
    ['nginx:1.25', { server: 'index.docker.io', repository: 'library/nginx', tag: '1.25', digest: '' }],
    ['docker.io/library/alpine:v2.3.4', { server: 'index.docker.io', repository: 'library/alpine', tag: 'v2.3.4', digest: '' }],
    ['quay.io/centos/centos', { server: 'quay.io', repository: 'centos/centos', tag: 'latest', digest: '' }],
    ['acme/web', { server: 'index.docker.io', repository: 'acme/web', tag: 'latest', digest: '' }],
    ['localhost:5000/tools/x@sha256:abc', { server: 'localhost:5000', repository: 'tools/x', tag: '', digest: 'sha256:abc' }],
    ['registry.example:5000/a/b:2.0@sha256:def', { server: 'registry.example:5000', repository: 'a/b', tag: '2.0', digest: 'sha256:def' }],
  ];
  for (const [ref, want] of rows) it(ref, () => assert.deepEqual(parseImageRef(ref), want));
});

describe('the informer\'s slim report and the findings it maps to', () => {
  const slim = slimVulnerabilityReport(vulnerabilityReport(image, owner, 'app', 'ghcr.io/acme/web:1.2.3', NOW));

  it('keeps the subject, container, image and summary', () => {
    assert.ok(slim);
    assert.deepEqual(slim.subject, { kind: 'ReplicaSet', name: 'web-7d9f8c' });
    assert.equal(slim.container, 'app');
    assert.equal(slim.image, 'ghcr.io/acme/web:1.2.3');
    assert.deepEqual(slim.summary, { CRITICAL: 0, HIGH: 1, MEDIUM: 0, LOW: 7, UNKNOWN: 1 });
    assert.equal(slim.dropped, 0);
  });

  it('gives one finding per CVE and package, attributed to the Deployment that owns the ReplicaSet', () => {
    assert.ok(slim);
    const found = vulnFindings([slim], controllerOwners([rs('web-7d9f8c', 'web')]));
    assert.deepEqual(found.map(vulnRow).sort(), FIXTURE_VULN_ROWS);
    for (const f of found) {
      assert.deepEqual([f.namespace, f.workload, f.image, f.source], ['shop', 'web', 'ghcr.io/acme/web:1.2.3', 'trivy']);
      assert.equal(f.id, `shop/Deployment/web#${f.cve}:${f.pkg}:ghcr.io/acme/web:1.2.3`);
    }
  });

  it('without the ReplicaSet in the cache, names the ReplicaSet', () => {
    assert.ok(slim);
    assert.ok(vulnFindings([slim], new Map()).every((f) => f.workload === 'web-7d9f8c' && f.id.startsWith('shop/ReplicaSet/web-7d9f8c#')));
  });
});

describe('a ConfigAuditReport from trivy config JSON', () => {
  const report = configAuditReport(config, owner, NOW) as Json;
  const checks = report.report.checks as { checkID: string; success: boolean; messages?: string[]; severity: string; category: string }[];

  it('names the object, not a container, and lists the failed checks under the operator\'s check ids', () => {
    assert.equal(report.metadata.name, 'replicaset-web-7d9f8c');
    assert.equal(report.metadata.labels['trivy-operator.container.name'], undefined);
    assert.equal(checks.length, 24);
    assert.ok(checks.every((c) => /^KSV\d{3}$/.test(c.checkID) && !c.success && c.category === 'Kubernetes Security Check' && c.messages?.length === 1), 'KSV001 as the operator spells it, not v0.74\'s KSV-0001');
    const failed = (s: string) => checks.filter((c) => c.severity === s).length;
    assert.deepEqual(report.report.summary, { criticalCount: failed('CRITICAL'), highCount: failed('HIGH'), mediumCount: failed('MEDIUM'), lowCount: failed('LOW') });
    assert.equal(failed('HIGH'), 7);
  });

  it('maps to misconfiguration findings with source trivy, the container read from the message', () => {
    const slim = slimConfigAuditReport(report);
    assert.ok(slim);
    // As the posture takes them: scannerResults carry each failed check's finding into evaluate's findings.
    const found = evaluate([], [], scannerResults([], [slim], controllerOwners([rs('web-7d9f8c', 'web')]))).findings;
    assert.equal(found.length, 24);
    const ksv001 = found.find((f) => f.check_id === 'KSV001');
    assert.deepEqual(ksv001, {
      id: 'shop/Deployment/web#KSV001',
      namespace: 'shop',
      workload: 'web',
      workload_kind: 'Deployment',
      check_id: 'KSV001',
      severity: 'MEDIUM',
      message: "Container 'web' of Deployment 'bad-web' should set 'securityContext.allowPrivilegeEscalation' to false",
      remediation: "Set 'set containers[].securityContext.allowPrivilegeEscalation' to 'false'.",
      resource: 'Deployment/web',
      container: 'web',
      source: 'trivy',
    });
  });
});
