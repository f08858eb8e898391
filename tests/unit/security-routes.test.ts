// `/security/posture` and `/security/findings` through the real app and its policy chain, over
// objects slimmed from raw API objects by the informers' own slimmers: a clean workload grades
// A+, bad ones fail, a hidden namespace is refused and never counted, and every filter, sort
// and page of the findings behaves per spec §4 and §7.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, ControllerObject, PodObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { findingsFor } from '../../domain/security/findings.ts';
import { evaluate } from '../../domain/security/posture.ts';
import { judgedWorkloads } from '../../domain/security/visible.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimController, slimDaemonSet, slimDeployment } from '../../runtime/kube/slim.ts';
import type { FindingsAnswer, FindingsInput, PostureAnswer, VulnFinding } from '../../schema/security.ts';
import { SEVERITIES } from '../../schema/security.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;
/** Passes every built-in check (PSS restricted and hygiene). */
const cleanSpec = {
  serviceAccountName: 'api',
  automountServiceAccountToken: false,
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [
    {
      name: 'api',
      image: `ghcr.io/acme/api:1.4.2@${DIGEST}`,
      resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
      readinessProbe: { httpGet: { path: '/readyz', port: 8080 } },
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ],
};
/** Fails a lot: privileged, host network, :latest, a literal password, no requests or probes. */
const badSpec = (image: string) => ({
  hostNetwork: true,
  containers: [{ name: 'web', image, securityContext: { privileged: true }, env: [{ name: 'DB_PASSWORD', value: 'hunter2' }] }],
});
/** The default order's head: CRITICAL first, then namespace, workload and id. */
const FIRST_FIVE = [
  'blog/CronJob/backup#pss-baseline-privileged:web',
  'blog/Pod/debug#pss-baseline-privileged:web',
  'blog/Deployment/web#pss-baseline-privileged:web',
  'blog/CronJob/backup#hygiene-secret-env-literal:web',
  'blog/CronJob/backup#pss-baseline-host-namespaces',
];
const meta = (namespace: string, name: string, extra: Record<string, unknown> = {}) => ({ metadata: { namespace, name, ...extra } });
const must = <T>(x: T | null): T => {
  assert.ok(x !== null);
  return x;
};

const workloads: WorkloadObject[] = [
  must(slimDeployment({ ...meta('shop', 'api'), spec: { template: { spec: cleanSpec } } })),
  must(slimDeployment({ ...meta('blog', 'web'), spec: { template: { spec: badSpec('nginx:latest') } } })),
  must(slimDaemonSet({ ...meta('kube-system', 'hidden-agent-zz9'), spec: { template: { spec: badSpec('hidden.example/agent-zz9') } } })),
];
const controllers: ControllerObject[] = [
  must(slimController('CronJob')({ ...meta('blog', 'backup'), spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: badSpec('busybox') } } } } })),
  // Judged on its CronJob, not again here.
  must(slimController('Job')({ ...meta('blog', 'backup-2911', { ownerReferences: [{ kind: 'CronJob', name: 'backup', controller: true }] }), spec: { template: { spec: badSpec('busybox') } } })),
];
const pods: PodObject[] = [
  must(slimPod({ ...meta('blog', 'debug'), spec: badSpec('alpine:3.20') })),
  must(slimPod({ ...meta('blog', 'web-5c6d-abcde', { ownerReferences: [{ kind: 'ReplicaSet', name: 'web-5c6d', controller: true }] }), spec: badSpec('nginx:latest') })),
];
const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'blog', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  workloads: () => workloads,
  controllers: () => controllers,
  pods: () => pods,
};
const visible = evaluate(judgedWorkloads({ workloads: () => workloads.filter((w) => w.namespace !== 'kube-system'), controllers: () => controllers, pods: () => pods }));

describe('GET /security/posture', () => {
  it('grades the visible workloads once; the hidden namespace is counted nowhere and never named', async () => {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('viewer');
    const res = await h.call('GET', '/api/agent/security/posture', { cookie });
    assert.equal(res.status, 200, res.text);
    const body = res.body as unknown as PostureAnswer;
    assert.equal(body.workloads_covered, 4, 'api, web, the CronJob and the bare pod; not the replica pod or the CronJob\'s Job');
    assert.deepEqual(
      body.namespaces.map((n) => [n.namespace, n.workloads_covered]),
      [
        ['blog', 3],
        ['shop', 1],
      ],
    );
    // Re-added from the visible namespaces, it is exactly what evaluating only those gives.
    assert.deepEqual({ ...body, namespace: undefined, namespaces: undefined }, { ...visible.posture, namespace: undefined, namespaces: undefined });
    assert.deepEqual([body.grade, body.score, body.by_severity.CRITICAL], ['C', 76, 3], 'three privileged containers (web, backup, debug)');
    assert.ok(!res.text.includes('kube-system') && !res.text.includes('zz9'), 'the hidden DaemonSet is never named');
    assert.equal(h.services.posture.current(), h.services.posture.current(), 'one evaluation while the informer arrays are unchanged');
  });

  it('answers one namespace at the top level: the clean one is A+ with nothing failing', async () => {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('viewer');
    const shop = (await h.call('GET', '/api/agent/security/posture?namespace=shop', { cookie })).body as unknown as PostureAnswer;
    assert.deepEqual([shop.namespace, shop.grade, shop.score, shop.workloads_covered, shop.top_failing_checks], ['shop', 'A+', 100, 1, []]);
    assert.deepEqual(shop.by_severity, { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 });
    const blog = (await h.call('GET', '/api/agent/security/posture?namespace=blog', { cookie })).body as unknown as PostureAnswer;
    assert.deepEqual([blog.grade, blog.score], ['D+', 67]);
    assert.ok(blog.top_failing_checks.some((c) => c.check_id === 'pss-baseline-privileged' && c.workloads === 3));
    const empty = await h.call('GET', '/api/agent/security/posture?namespace=nothing-here', { cookie });
    assert.deepEqual([empty.status, empty.body.workloads_covered, empty.body.score, empty.body.namespaces], [200, 0, 100, []]);
    const hidden = await h.call('GET', '/api/agent/security/posture?namespace=kube-system', { cookie });
    assert.equal(hidden.status, 403, hidden.text);
    assert.ok(!hidden.text.includes('zz9'));
    assert.deepEqual([(await h.call('GET', '/api/agent/security/posture?namespace=Bad_Name', { cookie })).body.field], ['namespace']);
  });

  it('honours tenantNamespaces like a hidden system namespace', async () => {
    const h = await testApp({ cluster, tenantNamespaces: ['shop'] });
    const cookie = await h.signIn('viewer');
    const body = (await h.call('GET', '/api/agent/security/posture', { cookie })).body as unknown as PostureAnswer;
    assert.deepEqual([body.grade, body.workloads_covered, body.namespaces.map((n) => n.namespace)], ['A+', 1, ['shop']]);
    assert.equal((await h.call('GET', '/api/agent/security/findings?namespace=blog', { cookie })).status, 403);
    const findings = (await h.call('GET', '/api/agent/security/findings', { cookie })).body as unknown as FindingsAnswer;
    assert.deepEqual(findings.misconfigs, []);
  });

  it('needs scanning:read on a key', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    const mint = async (scope: string) => String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: scope, scopes: [scope] } })).body.key);
    const workloadsKey = await mint('workloads:read');
    for (const path of ['/security/posture', '/security/findings']) {
      const refused = await h.call('GET', path, { key: workloadsKey });
      assert.deepEqual([refused.status, refused.body.error, refused.body.scope], [403, 'api_key_insufficient_scope', 'scanning:read'], path);
    }
    const scanningKey = await mint('scanning:read');
    assert.equal((await h.call('GET', '/security/posture', { key: scanningKey })).status, 200);
    assert.equal((await h.call('GET', '/security/findings?page=1', { key: scanningKey })).status, 200);
    assert.equal((await h.call('GET', '/security/posture')).status, 401);
  });
});

describe('GET /security/findings', () => {
  const all = visible.findings;
  async function reader() {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('viewer');
    return async (query: string) => {
      const res = await h.call('GET', `/api/agent/security/findings${query}`, { cookie });
      return { ...res, answer: res.body as unknown as FindingsAnswer };
    };
  }

  it('answers every visible misconfiguration, severity first, and no vulnerabilities yet', async () => {
    const get = await reader();
    const { status, answer, text } = await get('');
    assert.equal(status, 200, text);
    assert.deepEqual(answer.vulns, []);
    assert.deepEqual(answer.misconfigs.slice(0, 5).map((f) => f.id), FIRST_FIVE);
    assert.deepEqual(SEVERITIES.map((s) => answer.misconfigs.filter((f) => f.severity === s).length), [3, 12, 14, 13, 0]);
    assert.ok(!text.includes('kube-system') && !text.includes('zz9') && !text.includes('hunter2'));
    assert.equal(all.length, 42);
  });

  it('filters by namespace, severity, kind, fixable, search; group_by=image has no vulnerabilities to group', async () => {
    const get = await reader();
    assert.deepEqual((await get('?namespace=shop')).answer.misconfigs, []);
    assert.equal((await get('?namespace=blog')).answer.misconfigs.length, all.length);
    const critical = (await get('?severity=CRITICAL')).answer.misconfigs;
    assert.ok(critical.length > 0 && critical.every((f) => f.severity === 'CRITICAL'));
    // No trivy-operator reports in this cluster: the answer says they are not watched.
    assert.deepEqual((await get('?kind=vuln')).answer, { vulns: [], misconfigs: [], scanner_reports: { vulnerabilityreports: 'off', configauditreports: 'off' } });
    assert.equal((await get('?kind=misconfig')).answer.misconfigs.length, all.length);
    assert.equal((await get('?fixable=true')).answer.misconfigs.length, all.length, 'fixable filters vulnerabilities only');
    const searched = (await get('?search=PASSWORD')).answer.misconfigs;
    assert.deepEqual(
      searched.map((f) => [f.check_id, f.workload]),
      [
        ['hygiene-secret-env-literal', 'backup'],
        ['hygiene-secret-env-literal', 'debug'],
        ['hygiene-secret-env-literal', 'web'],
      ],
    );
    const grouped = (await get('?group_by=image')).answer;
    assert.deepEqual([grouped.groups, grouped.misconfigs.length], [[], all.length]);
  });

  it('sorts by each key, ties broken by severity', async () => {
    const get = await reader();
    // vulns stay empty until scanner reports are read, so cvss and fixable tie on every
    // misconfiguration and leave the severity order (their vulnerability order: findingsFor below).
    for (const sort of ['severity', 'cvss', 'fixable'] as const) assert.deepEqual((await get(`?sort=${sort}`)).answer.misconfigs.slice(0, 5).map((f) => f.id), FIRST_FIVE, sort);
    const byNs = (await get('?sort=namespace&page=1&page_size=500')).answer;
    assert.equal(byNs.sort, 'namespace');
    const byWorkload = (await get('?sort=workload')).answer.misconfigs.map((f) => f.workload);
    assert.deepEqual(byWorkload, byWorkload.slice().sort());
    assert.deepEqual([...new Set(byWorkload)], ['backup', 'debug', 'web']);
  });

  it('pages: rows, total, has_more; an out-of-range page clamps to the last; page_size defaults to 50', async () => {
    const get = await reader();
    const first = (await get('?page=1&page_size=5')).answer;
    assert.deepEqual([first.page, first.page_size, first.total, first.has_more, first.sort, first.rows?.length], [1, 5, all.length, true, 'severity', 5]);
    assert.deepEqual(first.misconfigs.map((f) => f.id), FIRST_FIVE);
    assert.deepEqual(first.rows?.map((r) => [r.kind, r.id]), first.misconfigs.map((f) => ['misconfig', f.id]));
    const clamped = (await get('?page=9999&page_size=5')).answer;
    assert.deepEqual([clamped.page, clamped.has_more, clamped.misconfigs.map((f) => f.id)], [9, false, ['blog/Deployment/web#hygiene-memory-request-missing:web', 'blog/Deployment/web#hygiene-readiness-probe-missing:web']]);
    assert.equal((await get('?page=0&page_size=5')).answer.page, 1);
    const defaults = (await get('?page=1')).answer;
    assert.deepEqual([defaults.page_size, defaults.rows?.length], [50, Math.min(50, all.length)]);
    const none = (await get('?page=3&namespace=shop')).answer;
    assert.deepEqual([none.page, none.total, none.has_more, none.rows], [1, 0, false, []]);
  });

  it('refuses bad values with 400 naming the field, and a hidden namespace with the standard 403', async () => {
    const get = await reader();
    const bad: [string, string][] = [
      ['?severity=critical', 'severity'],
      ['?kind=cve', 'kind'],
      ['?workload=Web', 'workload'],
      ['?workload_kind=deployment', 'workload_kind'],
      ['?fixable=false', 'fixable'],
      ['?group_by=namespace', 'group_by'],
      ['?sort=cvs', 'sort'],
      ['?page=abc', 'page'],
      ['?page=-1', 'page'],
      ['?page=1&page_size=0', 'page_size'],
      ['?page=1&page_size=501', 'page_size'],
      ['?namespace=Not_A_Name', 'namespace'],
      [`?search=${'x'.repeat(201)}`, 'search'],
    ];
    for (const [query, field] of bad) {
      const res = await get(query);
      assert.deepEqual([res.status, res.body.error, res.body.field], [400, 'invalid_input', field], query);
    }
    const hidden = await get('?namespace=kube-system');
    assert.equal(hidden.status, 403, hidden.text);
    assert.ok(!hidden.text.includes('zz9'));
  });
});

describe('findingsFor with vulnerabilities (the shape scanner reports will fill)', () => {
  const vuln = (image: string, cve: string, severity: VulnFinding['severity'], cvss: number | null, fixed: string | null, workload = 'api'): VulnFinding => ({
    id: `shop/Deployment/${workload}#${cve}:libc6:${image}`,
    namespace: 'shop',
    workload,
    workload_kind: 'Deployment',
    image,
    cve,
    severity,
    cvss,
    pkg: 'libc6',
    installed_ver: '2.36-9+deb12u1',
    fixed_ver: fixed,
    fix_available: fixed !== null,
    source: 'trivy',
  });
  const vulns = [vuln('api:1', 'CVE-2023-4911', 'HIGH', 7.8, '2.36-9+deb12u3'), vuln('api:1', 'CVE-2024-0001', 'CRITICAL', null, null), vuln('db:2', 'CVE-2024-0002', 'LOW', 9.1, null, 'db'), vuln('api:1', 'CVE-2024-0003', 'MEDIUM', 5.0, '1.2', 'worker')];
  const misconfig = visible.findings.slice(0, 1);
  const input = (extra: Partial<FindingsInput> = {}): FindingsInput => ({ sort: 'severity', ...extra });

  it('sorts by cvss (none last), fixable first, and filters fixable vulnerabilities only', () => {
    assert.deepEqual(findingsFor(vulns, misconfig, input({ sort: 'cvss' })).vulns.map((f) => f.cve), ['CVE-2024-0002', 'CVE-2023-4911', 'CVE-2024-0003', 'CVE-2024-0001']);
    const paged = findingsFor(vulns, misconfig, input({ sort: 'cvss', page: 1, page_size: 10 }));
    assert.deepEqual(
      paged.rows?.map((r) => (r.kind === 'vuln' ? r.cve : r.kind)),
      ['CVE-2024-0002', 'CVE-2023-4911', 'CVE-2024-0003', 'misconfig', 'CVE-2024-0001'],
      'no CVSS (a misconfiguration never has one): after every finding with one, by severity then namespace',
    );
    assert.deepEqual(findingsFor(vulns, [], input({ sort: 'fixable' })).vulns.map((f) => f.cve), ['CVE-2023-4911', 'CVE-2024-0003', 'CVE-2024-0001', 'CVE-2024-0002']);
    const fixable = findingsFor(vulns, misconfig, input({ fixable: 'true' }));
    assert.deepEqual([fixable.vulns.map((f) => f.cve), fixable.misconfigs.length], [['CVE-2023-4911', 'CVE-2024-0003'], 1]);
    assert.deepEqual(findingsFor(vulns, misconfig, input({ search: 'cve-2024-0001' })).vulns.map((f) => f.cve), ['CVE-2024-0001']);
  });

  it('workload keeps exactly that workload (never a name that merely contains it); workload_kind narrows to one kind', () => {
    const apiJob: VulnFinding = { ...vuln('api:1', 'CVE-2024-0009', 'LOW', null, null), id: 'shop/Job/api#CVE-2024-0009:libc6:api:1', workload_kind: 'Job' };
    const all = [...vulns, apiJob, vuln('api:1', 'CVE-2024-0010', 'LOW', null, null, 'api-gateway')];
    const rows = [
      { filter: { workload: 'api' }, want: ['CVE-2023-4911', 'CVE-2024-0001', 'CVE-2024-0009'] },
      { filter: { workload: 'api', workload_kind: 'Deployment' }, want: ['CVE-2023-4911', 'CVE-2024-0001'] },
      { filter: { workload: 'api', workload_kind: 'Job' }, want: ['CVE-2024-0009'] },
      { filter: { workload: 'api-gateway' }, want: ['CVE-2024-0010'] },
      { filter: { workload: 'ap' }, want: [] },
    ];
    for (const row of rows) assert.deepEqual(findingsFor(all, [], input(row.filter)).vulns.map((f) => f.cve).sort(), row.want, JSON.stringify(row.filter));
  });

  it('group_by=image counts every matching vulnerability per image, most critical first', () => {
    const answer = findingsFor(vulns, misconfig, input({ group_by: 'image', page: 1, page_size: 1 }));
    assert.deepEqual(answer.groups, [
      { image: 'api:1', findings: 3, by_severity: { CRITICAL: 1, HIGH: 1, MEDIUM: 1, LOW: 0, UNKNOWN: 0 }, fixable: 2, workloads: 2 },
      { image: 'db:2', findings: 1, by_severity: { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 1, UNKNOWN: 0 }, fixable: 0, workloads: 1 },
    ]);
    assert.equal(answer.rows?.length, 1, 'the groups are not paged; the rows are');
  });
});
