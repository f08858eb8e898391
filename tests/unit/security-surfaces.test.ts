// The findings where an agent or a model reads them: MCP `get_findings` (the same visible
// findings as GET /security/findings, bounded), and the cluster model's workload nodes carrying
// their CRITICAL and HIGH findings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, PodObject, WorkloadObject } from '../../domain/cluster/model.ts';
import { workloadSecurity } from '../../domain/security/workload-security.ts';
import { scopeAnswers } from '../../domain/scoped.ts';
import type { HandlerContext } from '../../handlers/context.ts';
import { posture } from '../../handlers/security/security.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimDeployment } from '../../runtime/kube/slim.ts';
import type { FindingsAnswer, MisconfigFinding, VulnFinding } from '../../schema/security.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const misconfig = (namespace: string, kind: string, name: string, check_id: string, severity: MisconfigFinding['severity']): MisconfigFinding => ({
  id: `${namespace}/${kind}/${name}#${check_id}:c`,
  namespace,
  workload: name,
  workload_kind: kind,
  check_id,
  severity,
  message: 'm',
  remediation: 'r',
  resource: `${kind}/${name}`,
  container: 'c',
  source: 'capstan',
});
const vuln = (namespace: string, kind: string, name: string, cve: string, severity: VulnFinding['severity']): VulnFinding => ({
  id: `${namespace}/${kind}/${name}#${cve}:openssl:img`,
  namespace,
  workload: name,
  workload_kind: kind,
  image: 'img',
  cve,
  severity,
  cvss: null,
  pkg: 'openssl',
  installed_ver: '1',
  fixed_ver: null,
  fix_available: false,
  source: 'trivy',
});

describe('workloadSecurity', () => {
  it('counts CRITICAL and HIGH per workload node, names the CRITICAL ones first, and ignores the rest', () => {
    const got = workloadSecurity(
      [vuln('shop', 'Deployment', 'api', 'CVE-2024-9', 'CRITICAL'), vuln('shop', 'Deployment', 'api', 'CVE-2024-2', 'LOW')],
      [
        misconfig('shop', 'Deployment', 'api', 'pss-baseline-privileged', 'CRITICAL'),
        misconfig('shop', 'Deployment', 'api', 'hygiene-secret-env-literal', 'HIGH'),
        misconfig('shop', 'Deployment', 'api', 'hygiene-secret-env-literal', 'HIGH'),
        misconfig('shop', 'Deployment', 'api', 'hygiene-image-latest', 'MEDIUM'),
        misconfig('shop', 'Pod', 'debug', 'pss-baseline-host-namespaces', 'HIGH'),
        misconfig('shop', 'Deployment', 'quiet', 'hygiene-image-digest', 'LOW'),
        misconfig('shop', 'Widget', 'odd', 'pss-baseline-privileged', 'CRITICAL'),
      ],
    );
    assert.deepEqual(Object.fromEntries(got), {
      'deployment:shop/api': { critical: 2, high: 2, top: ['CVE-2024-9', 'pss-baseline-privileged', 'hygiene-secret-env-literal'] },
      'pod:shop/debug': { critical: 0, high: 1, top: ['pss-baseline-host-namespaces'] },
    });
  });

  it('names at most five', () => {
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((c) => misconfig('shop', 'Deployment', 'api', c, 'HIGH'));
    assert.deepEqual(workloadSecurity([], many).get('deployment:shop/api'), { critical: 0, high: 7, top: ['a', 'b', 'c', 'd', 'e'] });
  });
});

const must = <T>(x: T | null): T => {
  assert.ok(x !== null);
  return x;
};
const bad = { hostNetwork: true, containers: [{ name: 'web', image: 'nginx:latest', securityContext: { privileged: true }, env: [{ name: 'DB_PASSWORD', value: 'hunter2' }] }] };
const workloads: WorkloadObject[] = [
  must(slimDeployment({ metadata: { namespace: 'blog', name: 'web' }, spec: { template: { spec: bad } } })),
  must(slimDeployment({ metadata: { namespace: 'kube-system', name: 'hidden-zz9' }, spec: { template: { spec: bad } } })),
];
const pods: PodObject[] = [must(slimPod({ metadata: { namespace: 'shop', name: 'debug' }, spec: { containers: [{ name: 'c', image: 'alpine:3.20', securityContext: { privileged: true } }] } }))];
const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['blog', 'shop', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  workloads: () => workloads,
  pods: () => pods,
};

async function harness() {
  const h = await testApp({ cluster });
  const admin = await h.signIn();
  const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'mcp', scopes: ['mcp:read'] } })).body.key);
  const tool = async (args: Record<string, unknown>) => h.call('POST', '/mcp/tools/call', { key, body: { name: 'get_findings', arguments: args } });
  const result = async (args: Record<string, unknown>) => {
    const res = await tool(args);
    assert.equal(res.status, 200, res.text);
    return (res.body as { structuredContent: Record<string, unknown> }).structuredContent;
  };
  return { h, admin, tool, result };
}

describe('MCP get_findings', () => {
  it('answers the visible findings, worst first, bounded by limit, with counts and the posture', async () => {
    const { h, admin, result } = await harness();
    const route = (await h.call('GET', '/api/agent/security/findings', { cookie: admin })).body as unknown as FindingsAnswer;
    const all = await result({});
    assert.equal(all.namespace, null);
    assert.equal(all.total, route.misconfigs.length + route.vulns.length);
    const listed = all.findings as { id: string; kind: string; remediation?: string }[];
    assert.deepEqual(listed.map((f) => f.id), route.misconfigs.slice(0, 20).map((f) => f.id), 'the default 20, in the findings route order');
    assert.ok(listed.every((f) => f.kind === 'misconfig' && typeof f.remediation === 'string'));
    assert.equal(all.truncated, true);
    const counts = all.counts as { vulns: Record<string, number>; misconfigs: Record<string, number> };
    assert.equal(counts.misconfigs.CRITICAL, 2, 'web and debug run privileged; the hidden one is not counted');
    assert.equal(Object.values(counts.misconfigs).reduce((a, b) => a + b, 0), all.total);
    assert.ok(!JSON.stringify(all).includes('zz9'), 'a hidden namespace is never named');
    const posture = all.posture as { grade: string; workloads_covered: number };
    assert.equal(posture.workloads_covered, 2);

    const shop = await result({ namespace: 'shop', severity: 'CRITICAL', limit: 1 });
    assert.deepEqual([shop.namespace, shop.total, shop.truncated, (shop.findings as { id: string }[]).map((f) => f.id)], ['shop', 1, false, ['shop/Pod/debug#pss-baseline-privileged:c']]);
    assert.deepEqual(shop.counts, { vulns: { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 }, misconfigs: { CRITICAL: 1, HIGH: 0, MEDIUM: 0, LOW: 0, UNKNOWN: 0 } });
    const vulnsOnly = await result({ kind: 'vuln' });
    assert.deepEqual([vulnsOnly.total, vulnsOnly.findings], [0, []]);
  });

  it('refuses a hidden namespace and a bad limit as tool errors', async () => {
    const { tool } = await harness();
    assert.equal((await tool({ namespace: 'kube-system' })).status, 403);
    const bad = await tool({ limit: 500 });
    assert.deepEqual([bad.status, bad.body.field], [400, 'arguments.limit']);
  });
});

describe('GET /security/posture handler', () => {
  it('answers the same object while the evaluation is the same, so its JSON is serialised once', async () => {
    const { h } = await harness();
    const ctx: HandlerContext = { ...h.services, ...scopeAnswers(h.services, h.services.settings.tenantNamespaces), request: { ip: '192.0.2.10', origin: 'http://capstan.test', noteAudit: () => undefined }, principal: null };
    const first = posture({}, ctx);
    const second = posture({}, ctx);
    assert.ok(first.ok && second.ok);
    assert.equal(first.value, second.value);
    assert.equal(first.value.workloads_covered, 2, 'the hidden namespace is not in it');
    const shop = posture({ namespace: 'shop' }, ctx);
    assert.ok(shop.ok && shop.value.namespace === 'shop' && shop.value.workloads_covered === 1);
  });
});

describe('the cluster model links a workload to its CRITICAL and HIGH findings', () => {
  it('sets security on the workload and bare-pod nodes, and on nothing hidden or clean', async () => {
    const { h, admin } = await harness();
    const entity = async (id: string) => h.call('GET', `/api/agent/graph/entity/${encodeURIComponent(id)}`, { cookie: admin });
    const web = await entity('deployment:blog/web');
    assert.equal(web.status, 200, web.text);
    assert.deepEqual((web.body.node as { security?: unknown }).security, {
      critical: 1,
      high: 4,
      top: ['pss-baseline-privileged', 'hygiene-secret-env-literal', 'pss-baseline-host-namespaces', 'pss-restricted-privilege-escalation', 'pss-restricted-run-as-non-root'],
    });
    const debug = (await entity('pod:shop/debug')).body.node as { security?: { critical: number; top: string[] } };
    assert.deepEqual([debug.security?.critical, debug.security?.top[0]], [1, 'pss-baseline-privileged']);
    assert.equal(((await entity('namespace:blog')).body.node as { security?: unknown }).security, undefined, 'only workloads and bare pods carry it');
    assert.equal((await entity('deployment:kube-system/hidden-zz9')).status, 403, 'the hidden namespace is refused');
  });
});
