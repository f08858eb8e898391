// The built-in checks on the real cluster (issue 16): they fire on the demo scenario's
// deliberately insecure workload, stay quiet on its restricted-compliant one, follow a fix
// applied to a live Deployment, and the findings route filters, sorts and clamps on real data.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { polarisGrade, polarisScore } from '../../domain/security/posture.ts';
import type { FindingsAnswer, MisconfigFinding, PostureAnswer } from '../../schema/security.ts';
import { k, startTestAgent, waitFor } from '../support/cluster.ts';

const PASSWORD = 'security-posture-admin-password';
/** A namespace of this test's own: the live-fix case edits a Deployment no other test reads. */
const SCRATCH = 'security-posture-scratch';
let agent: RunningAgent;
let cookie = '';

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie } });
  return { status: res.status, body: await res.json() };
}
const findings = async (query: string) => {
  const { status, body } = await get(`/security/findings${query}`);
  return { status, body: body as FindingsAnswer };
};
const postureOf = async (query: string) => {
  const { status, body } = await get(`/security/posture${query}`);
  return { status, body: body as PostureAnswer };
};

const checksOf = (findings: readonly MisconfigFinding[], workload: string) =>
  findings
    .filter((f) => f.workload === workload)
    .map((f) => f.check_id)
    .sort();

/** What platform/node-debugger (tests/scenarios/demo.yaml) sets, and the check each setting breaks. */
const NODE_DEBUGGER_CHECKS = [
  'hygiene-cpu-request-missing', // no requests
  'hygiene-default-service-account-token', // default SA, token mounted
  'hygiene-image-digest', // busybox:latest, no digest
  'hygiene-image-latest',
  'hygiene-liveness-probe-missing',
  'hygiene-memory-limit-missing',
  'hygiene-memory-request-missing',
  'hygiene-readiness-probe-missing',
  'hygiene-secret-env-literal', // AWS_SECRET_ACCESS_KEY as a literal value
  'pss-baseline-capabilities', // adds SYS_ADMIN, NET_ADMIN
  'pss-baseline-host-namespaces', // hostPID, hostNetwork
  'pss-baseline-host-path-volumes', // hostPath /
  'pss-baseline-privileged',
  'pss-restricted-capabilities', // does not drop ALL
  'pss-restricted-privilege-escalation',
  'pss-restricted-run-as-non-root',
  'pss-restricted-seccomp',
  'pss-restricted-volume-types',
].sort();

function scratchDeployment(privileged: boolean): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'probe-target', namespace: SCRATCH },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'probe-target' } },
      template: {
        metadata: { labels: { app: 'probe-target' } },
        spec: { containers: [{ name: 'main', image: 'ghcr.io/acme/probe-target:1.0.0', securityContext: { privileged } }] },
      },
    },
  });
}

describe('built-in security checks on the real cluster', () => {
  before(async () => {
    await k(['create', 'namespace', SCRATCH]);
    await k(['apply', '-f', '-'], scratchDeployment(true));
    agent = await startTestAgent('security-posture', { accounts: { adminPassword: PASSWORD } });
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => {
    await agent.close();
    await k(['delete', 'namespace', SCRATCH, '--wait=false']);
  });

  it('fires every check the insecure demo workload breaks, and nothing else', async () => {
    const { status, body } = await findings('?namespace=platform&kind=misconfig');
    assert.equal(status, 200);
    assert.deepEqual(checksOf(body.misconfigs, 'node-debugger'), NODE_DEBUGGER_CHECKS);
    const privileged = body.misconfigs.find((f) => f.workload === 'node-debugger' && f.check_id === 'pss-baseline-privileged');
    assert.ok(privileged);
    assert.equal(privileged.severity, 'CRITICAL');
    assert.equal(privileged.source, 'capstan');
    assert.equal(privileged.resource, 'Deployment/node-debugger');
    assert.equal(privileged.container, 'shell');
    assert.match(privileged.message, /shell/);
    assert.ok(privileged.remediation.length > 0);
    // The literal secret is named, never repeated.
    assert.ok(!JSON.stringify(body).includes('wJalrXUtnFEMI'), 'a secret env value leaked into the findings');
  });

  it('stays quiet on the restricted-compliant workload, which still counts as covered', async () => {
    const { body } = await findings('?namespace=identity');
    assert.deepEqual(checksOf(body.misconfigs, 'token-service'), []);
    assert.ok(body.misconfigs.length > 0, 'identity has other, non-compliant workloads');
    const posture = await postureOf('?namespace=identity');
    assert.equal(posture.status, 200);
    // auth, session-cache, ldap-sync and token-service.
    assert.equal(posture.body.workloads_covered, 4);
  });

  it('scores with the Polaris formula over its own counts, and counts by severity what it lists', async () => {
    const [{ body: posture }, { body: all }] = await Promise.all([postureOf(''), findings('?kind=misconfig')]);
    assert.equal(posture.score, polarisScore(posture.checks));
    assert.equal(posture.grade, polarisGrade(posture.score));
    const counted = Object.values(posture.by_severity).reduce((a, b) => a + b, 0);
    assert.equal(counted, posture.checks.warnings + posture.checks.dangers);
    assert.ok(posture.by_severity.CRITICAL >= 1, 'node-debugger is privileged');
    assert.ok(posture.top_failing_checks.length > 0);
    // Hidden system namespaces (kube-system) are not in the caller's numbers.
    assert.ok(posture.namespaces.every((n) => n.namespace !== 'kube-system'));
    assert.ok(all.misconfigs.every((f) => f.namespace !== 'kube-system'));
  });

  it('filters, sorts and clamps an out-of-range page on real findings', async () => {
    const critical = await findings('?severity=CRITICAL');
    assert.ok(critical.body.misconfigs.length >= 1);
    assert.ok(critical.body.misconfigs.every((f) => f.severity === 'CRITICAL'));
    const search = await findings('?search=NODE-DEBUGGER');
    assert.deepEqual([...new Set(search.body.misconfigs.map((f) => f.workload))], ['node-debugger']);
    const first = await findings('?page=1&page_size=10&sort=workload');
    assert.ok(first.body.total !== undefined && first.body.total > 10);
    const names = (first.body.rows ?? []).map((r) => r.workload);
    assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b)));
    const last = Math.ceil((first.body.total ?? 0) / 10);
    const clamped = await findings('?page=99999&page_size=10&sort=workload');
    assert.equal(clamped.status, 200);
    assert.equal(clamped.body.page, last);
    assert.equal(clamped.body.has_more, false);
    const bad = await findings('?severity=critical');
    assert.equal(bad.status, 400);
  });

  it('follows a fix applied to a live Deployment', async () => {
    const privilegedIn = async () => (await findings(`?namespace=${SCRATCH}`)).body.misconfigs.some((f) => f.workload === 'probe-target' && f.check_id === 'pss-baseline-privileged');
    await waitFor('the privileged scratch Deployment to be judged', privilegedIn, 30_000, 500);
    await k(['apply', '-f', '-'], scratchDeployment(false));
    await waitFor('the fix to clear pss-baseline-privileged', async () => !(await privilegedIn()), 30_000, 500);
  });
});
