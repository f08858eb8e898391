// The answers derived from the whole cluster (the diagnosis, the built-in checks' posture and
// findings, trivy-operator's reports) as the runtime hands them to handlers: already cut to the
// caller's visible namespaces (domain/scoped.ts), by the same rules as the cut functions they
// wrap, kept per source and per visible set. One table per boundary.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { diagnose, type ClusterDiagnosis } from '../../domain/diagnosis/engine.ts';
import type { DraftFinding } from '../../domain/diagnosis/input.ts';
import { detailFor, diagnosisFor, problemOf } from '../../domain/diagnosis/visible.ts';
import { isVisibleNamespace } from '../../domain/namespaces/visibility.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { evaluate, type Evaluation } from '../../domain/security/posture.ts';
import { namespaceCounts, summarize } from '../../domain/security/scan-summary.ts';
import type { ScannerReportStatus } from '../../domain/security/trivy-reports.ts';
import { postureFor } from '../../domain/security/visible.ts';
import type { CustomKind, CustomObject, CustomResourceCatalog } from '../../domain/resources/custom.ts';
import { scopeAnswers, type WholeCluster } from '../../domain/scoped.ts';
import { groupReleases, type HelmListAnswer, type HelmRevision } from '../../domain/helm/release.ts';
import type { VulnFinding } from '../../schema/security.ts';
import { draft, pod } from '../support/diagnosis.ts';
import { pvDefaults } from '../support/objects.ts';
import { emptyCluster } from '../support/services.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

const FOUND: DraftFinding[] = [
  // A root in a hidden namespace whose effects reach visible ones through a cluster-scoped node.
  draft('pod:kube-system/dns', 'CrashLoopBackOff', 'critical', [], ['pod:kube-system/dns']),
  draft('node:n1', 'NodeNetworkUnavailable', 'warning', ['pod:kube-system/dns'], ['pod:kube-system/dns', 'node:n1']),
  draft('pod:shop/web', 'PodOnUnhealthyNode', 'warning', ['node:n1'], ['node:n1']),
  // A visible root (a node) with effects in two namespaces.
  draft('node:n2', 'NodeNotReady', 'critical'),
  draft('pod:shop/api', 'PodOnUnhealthyNode', 'critical', ['node:n2']),
  draft('pod:blog/db', 'PodOnUnhealthyNode', 'critical', ['node:n2']),
  // A root in a namespace one tenant list hides, with its own effect.
  draft('pod:blog/cache', 'OOMKilled', 'critical'),
  // A volume bound to a hidden claim is as hidden as its claim.
  draft('pv:pv-dns', 'PvReleased', 'warning'),
  draft('pod:shop/old', 'RestartedPreviously', 'info'),
  draft('pod:kube-system/old', 'RestartedPreviously', 'info'),
];

const node = (name: string) => ({ name, ready: true, conditions: [], taints: [], unschedulable: false, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null, capacity: { cpuM: null, memBytes: null, pods: null }, allocatable: { cpuM: null, memBytes: null, pods: null } });
const cluster: ClusterView = {
  ...emptyCluster,
  pods: () => [pod('kube-system', 'dns'), pod('shop', 'web'), pod('shop', 'api'), pod('shop', 'old'), pod('blog', 'db'), pod('blog', 'cache'), pod('kube-system', 'old')],
  nodes: () => [node('n1'), node('n2')],
  pvs: () => [{ ...pvDefaults, name: 'pv-dns', phase: 'Released', claim: { namespace: 'kube-system', name: 'dns-data' }, storageClass: null, reason: null, message: null, capacityBytes: null, accessModes: [] }],
};
const WIDGET: CustomKind = { name: 'widgets.example.com', group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };
const widget = (namespace: string | null, name: string): CustomObject => ({ namespace, name, createdAt: null, labels: {}, owner: null, phase: null, conditions: [] });
const WIDGETS = [widget('shop', 'a'), widget('blog', 'b'), widget('kube-system', 'c'), widget(null, 'cluster-wide')];
const CUSTOM: CustomResourceCatalog = {
  kinds: () => Promise.resolve({ ok: true, kinds: [WIDGET] }),
  objects: (group, plural) => Promise.resolve(group === WIDGET.group && plural === WIDGET.plural ? { ok: true, kind: WIDGET, objects: WIDGETS, truncated: false, unreadable: null } : { ok: false, status: 'unknown_kind', reason: 'none' }),
};
const diagnosisOf = (found: DraftFinding[]): ClusterDiagnosis => diagnose(cluster, NOW, { analyzers: [{ name: 'test', reads: [], analyze: () => found }] });

const hostNetwork = (namespace: string, name: string) => ({ kind: 'Deployment', namespace, name, spec: podSecuritySpec({ hostNetwork: true, containers: [{ name: 'app', image: 'nginx:1' }] }) });
const EVALUATION = evaluate([hostNetwork('shop', 'web'), hostNetwork('blog', 'db'), hostNetwork('kube-system', 'dns')]);
const vuln = (namespace: string): VulnFinding => ({
  id: `${namespace}/Deployment/app#CVE-1:openssl:img`, namespace, workload: 'app', workload_kind: 'Deployment', image: 'img', cve: 'CVE-1', severity: 'HIGH', cvss: 7.5,
  pkg: 'openssl', installed_ver: '1', fixed_ver: '2', fix_available: true, source: 'trivy',
});
const STATUS: ScannerReportStatus = { vulnerabilityreports: 'read', configauditreports: 'read' };

/** The whole cluster as the runtime's services hand it out: `state` swaps a source for a new object. */
const revision = (namespace: string, name: string): HelmRevision => ({ name, namespace, revision: 1, status: 'deployed', chart: 'c', chartVersion: '1.0.0', appVersion: '1', updated: null, description: '' });
const HELM: HelmListAnswer = { ok: true, releases: groupReleases([revision('shop', 'web'), revision('blog', 'db'), revision('kube-system', 'dns')]), truncated: false };

function whole(state: { diagnosis: ClusterDiagnosis; evaluation: Evaluation; vulns: VulnFinding[]; helm?: HelmListAnswer }): WholeCluster {
  return {
    cluster,
    diagnosis: { current: () => state.diagnosis },
    posture: { current: () => state.evaluation },
    scannerReports: { current: () => ({ vulns: state.vulns, status: STATUS }) },
    customResources: CUSTOM,
    helmReleases: { list: () => Promise.resolve(state.helm ?? HELM) },
  };
}

const source = () => ({ diagnosis: diagnosisOf(FOUND), evaluation: EVALUATION, vulns: [vuln('shop'), vuln('blog'), vuln('kube-system')] });
const HIDDEN = /kube-system|pv-dns/;
const VISIBILITIES: { name: string; tenant: string[]; hidden: RegExp }[] = [
  { name: 'every non-system namespace', tenant: [], hidden: HIDDEN },
  { name: 'tenantNamespaces [shop]', tenant: ['shop'], hidden: /kube-system|pv-dns|blog/ },
  { name: 'tenantNamespaces naming a system namespace', tenant: ['shop', 'kube-system'], hidden: /kube-system|pv-dns|blog/ },
];

describe('scoped diagnosis: the same cut as domain/diagnosis/visible.ts, and nothing hidden', () => {
  for (const row of VISIBILITIES) {
    const state = source();
    const d = state.diagnosis;
    const inScope = (ns: string) => isVisibleNamespace(ns, row.tenant);
    const scoped = scopeAnswers(whole(state), row.tenant).diagnosis;

    it(`${row.name}: GET /diagnosis, whole and per namespace`, () => {
      for (const ns of [null, 'shop', 'blog', 'kube-system', 'empty']) assert.deepEqual(scoped.answer(ns), diagnosisFor(d, inScope, ns), String(ns));
      const text = JSON.stringify(scoped.answer(null));
      assert.doesNotMatch(text, row.hidden, 'no finding, evidence or link names a hidden object');
    });

    it(`${row.name}: details, root causes and problems`, () => {
      for (const id of ['pod:shop/web', 'pod:shop/api', 'node:n1', 'node:n2', 'pod:blog/db', 'pod:shop/old']) {
        const visible = inScope(id.slice(id.indexOf(':') + 1, id.indexOf('/') < 0 ? undefined : id.indexOf('/'))) || !id.includes('/');
        assert.deepEqual(scoped.detail(id), visible ? detailFor(d, inScope, id) : null, id);
        assert.deepEqual(scoped.problem(id), problemOf(d, inScope, id), id);
      }
      for (const id of ['pod:kube-system/dns', 'pv:pv-dns', 'pod:shop/absent']) assert.equal(scoped.detail(id), null, `${id}: hidden or absent`);
      const problems = scoped.problems();
      assert.doesNotMatch(JSON.stringify([[...problems.byObject], problems.causes]), row.hidden);
      assert.ok([...problems.byObject.values()].flat().every((f) => d.findings.get(f.id)?.severity !== 'info'), 'history is no problem');
    });
  }

  // The chain rule of visible.ts, kept exactly: an effect whose root is hidden is shown without
  // naming the root; the link to a visible cluster-scoped cause stays, the one into the hidden
  // namespace is cut; a detail's chain stops where it leaves what the caller may see.
  it('a root in a hidden namespace: its visible effects are hidden causes, their chain cut at the boundary', () => {
    const scoped = scopeAnswers(whole(source()), []).diagnosis;
    const answer = scoped.answer(null);
    assert.deepEqual(answer.root_causes.map((r) => r.finding.id), ['node:n2#NodeNotReady', 'pod:blog/cache#OOMKilled']);
    assert.deepEqual(answer.hidden_causes.map((h) => [h.effect.id, h.effect.caused_by]), [
      ['node:n1#NodeNetworkUnavailable', null],
      ['pod:shop/web#PodOnUnhealthyNode', 'node:n1#NodeNetworkUnavailable'],
    ]);
    assert.deepEqual(answer.hidden_causes.map((h) => h.effect.evidence.map((e) => e.node_id)), [['node:n1'], ['node:n1']], 'evidence about the hidden pod is dropped');
    const web = scoped.detail('pod:shop/web');
    assert.deepEqual([web?.chain.map((f) => f.id), web?.cause_hidden, web?.root_cause], [['pod:shop/web#PodOnUnhealthyNode', 'node:n1#NodeNetworkUnavailable'], true, null]);
    assert.equal(scoped.problem('pod:shop/web')?.root, null, 'an incident never names a hidden root');
    assert.deepEqual(scoped.problem('pod:shop/api')?.root, { code: 'NodeNotReady', summary: 'NodeNotReady on n2', node_id: 'node:n2' });
    const byFrom = (causes: readonly { from: string; to: string }[]) => [...causes].sort((x, y) => x.from.localeCompare(y.from));
    assert.deepEqual(byFrom(scoped.problems().causes), [
      { from: 'pod:blog/db#PodOnUnhealthyNode', to: 'node:n2#NodeNotReady' },
      { from: 'pod:shop/api#PodOnUnhealthyNode', to: 'node:n2#NodeNotReady' },
      { from: 'pod:shop/web#PodOnUnhealthyNode', to: 'node:n1#NodeNetworkUnavailable' },
    ], 'no link into the hidden namespace');
  });
});

describe('scoped posture, findings and scanner reports', () => {
  for (const row of VISIBILITIES) {
    const state = source();
    const inScope = (ns: string) => isVisibleNamespace(ns, row.tenant);
    const scoped = scopeAnswers(whole(state), row.tenant);

    it(`${row.name}: the same posture as postureFor, and no hidden namespace's finding`, () => {
      assert.deepEqual(scoped.posture.answer(null), postureFor(state.evaluation, inScope, null));
      assert.deepEqual(scoped.posture.answer('shop'), postureFor(state.evaluation, inScope, 'shop'));
      assert.ok(scoped.posture.findings().length > 0);
      assert.ok(scoped.posture.findings().every((f) => inScope(f.namespace)));
      assert.deepEqual(scoped.scannerReports.vulns().map((f) => f.namespace), ['shop', 'blog'].filter(inScope));
      assert.equal(scoped.scannerReports.status(), STATUS);
      assert.doesNotMatch(JSON.stringify([scoped.posture.answer(null), scoped.posture.findings(), scoped.scannerReports.vulns()]), row.hidden);
      const counts = namespaceCounts(state.evaluation, state.vulns);
      assert.deepEqual(scoped.posture.scanSummary(counts, null), summarize(counts, inScope, null));
      assert.deepEqual(scoped.posture.scanSummary(counts, 'shop'), summarize(counts, inScope, 'shop'));
    });
  }
});

describe('scoped custom resources', () => {
  const TENANTS: { name: string; tenants: string[]; names: string[] }[] = [
    { name: 'no tenant list: every non-system namespace, and cluster-scoped objects', tenants: [], names: ['a', 'b', 'cluster-wide'] },
    { name: 'tenant list [shop]', tenants: ['shop'], names: ['a', 'cluster-wide'] },
    { name: 'tenant list naming a system namespace: still hidden', tenants: ['kube-system'], names: ['cluster-wide'] },
  ];
  for (const row of TENANTS) {
    it(row.name, async () => {
      const scoped = scopeAnswers(whole({ diagnosis: diagnosisOf([]), evaluation: EVALUATION, vulns: [] }), row.tenants).customResources;
      const read = await scoped.objects('example.com', 'widgets');
      assert.ok(read.ok);
      assert.deepEqual(read.objects.map((o) => o.name), row.names);
      const again = await scoped.objects('example.com', 'widgets');
      assert.ok(again.ok);
      assert.equal(again.objects, read.objects, 'the cut is kept while the cache hands out the same array');
    });
  }
  it('passes refusals through unchanged', async () => {
    const scoped = scopeAnswers(whole({ diagnosis: diagnosisOf([]), evaluation: EVALUATION, vulns: [] }), []).customResources;
    assert.deepEqual(await scoped.objects('example.com', 'gadgets'), { ok: false, status: 'unknown_kind', reason: 'none' });
  });
});

describe('scoped Helm releases', () => {
  const TENANTS: { name: string; tenants: string[]; releases: string[] }[] = [
    { name: 'no tenant list: every non-system namespace', tenants: [], releases: ['blog/db', 'shop/web'] },
    { name: 'tenant list [shop]', tenants: ['shop'], releases: ['shop/web'] },
    { name: 'tenant list naming a system namespace: still hidden', tenants: ['kube-system'], releases: [] },
  ];
  for (const row of TENANTS) {
    it(row.name, async () => {
      const listed = await scopeAnswers(whole({ diagnosis: diagnosisOf([]), evaluation: EVALUATION, vulns: [] }), row.tenants).helmReleases.list();
      assert.ok(listed.ok);
      assert.deepEqual(listed.releases.map((r) => `${r.current.namespace}/${r.current.name}`), row.releases);
    });
  }
  it('passes a refusal through unchanged', async () => {
    const refused: HelmListAnswer = { ok: false, reason: 'the expert pod did not answer', notInstalled: false };
    assert.deepEqual(await scopeAnswers(whole({ diagnosis: diagnosisOf([]), evaluation: EVALUATION, vulns: [], helm: refused }), []).helmReleases.list(), refused);
  });
});

describe('kept per source and per visible set', () => {
  it('answers the same object while the whole-cluster answer is the same one, and a new one when it changes', () => {
    const state = source();
    const scoped = scopeAnswers(whole(state), []);
    const first = { diagnosis: scoped.diagnosis.answer(null), problems: scoped.diagnosis.problems(), posture: scoped.posture.answer(null), findings: scoped.posture.findings(), vulns: scoped.scannerReports.vulns() };
    assert.equal(scoped.diagnosis.answer(null), first.diagnosis);
    assert.equal(scoped.diagnosis.problems(), first.problems);
    assert.equal(scoped.posture.answer(null), first.posture);
    assert.equal(scoped.posture.findings(), first.findings);
    assert.equal(scoped.scannerReports.vulns(), first.vulns);

    state.diagnosis = diagnosisOf(FOUND.filter((f) => f.object !== 'node:n2' && !f.suspects.includes('node:n2')));
    state.evaluation = evaluate([hostNetwork('shop', 'web')]);
    state.vulns = [vuln('shop')];
    assert.notEqual(scoped.diagnosis.answer(null), first.diagnosis);
    assert.ok(!scoped.diagnosis.answer(null).root_causes.some((r) => r.finding.id === 'node:n2#NodeNotReady'), 'the new diagnosis is read at once');
    assert.notEqual(scoped.diagnosis.problems(), first.problems);
    assert.notEqual(scoped.posture.answer(null), first.posture);
    assert.notEqual(scoped.posture.findings(), first.findings);
    assert.deepEqual(scoped.scannerReports.vulns().map((f) => f.namespace), ['shop']);
  });

  it('narrows within what the caller may see, never beyond it, and keeps one narrowing per visible set', () => {
    const state = source();
    const scoped = scopeAnswers(whole(state), ['shop', 'blog']);
    const narrowed = scoped.diagnosis.narrow(['blog']);
    assert.equal(scoped.diagnosis.narrow(['blog']), narrowed, 'the same list gives the same narrowing');
    assert.equal(narrowed.answer(null), narrowed.answer(null));
    assert.deepEqual(narrowed.answer(null), diagnosisFor(state.diagnosis, (ns) => ns === 'blog', null));
    assert.equal(scoped.posture.narrow(['blog']), scoped.posture.narrow(['blog']));
    assert.ok(scoped.posture.narrow(['blog']).findings().every((f) => f.namespace === 'blog'));
    assert.deepEqual(scoped.scannerReports.narrow(['blog', 'shop']).vulns().map((f) => f.namespace), ['shop', 'blog']);
    // Naming a namespace the caller may not see does not show it.
    const wider = scopeAnswers(whole(state), ['shop']);
    assert.deepEqual(wider.scannerReports.narrow(['blog', 'kube-system']).vulns(), []);
    assert.deepEqual(wider.posture.narrow(['blog']).findings(), []);
    assert.equal(wider.diagnosis.narrow(['blog']).detail('pod:blog/db'), null);
    assert.equal(wider.diagnosis.narrow(['\u0000']).answer(null).root_causes.some((r) => r.finding.namespace !== null), false, 'the empty scope shows no namespace');
  });
});
