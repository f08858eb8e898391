// Custom resources through a real agent on the real control plane: a CRD created by the test
// is listed, its objects browsed (filters, pages, the live YAML redacted), a hidden
// namespace's objects never appear, the `discovery` rate class answers 429 past its limit,
// and an agent whose RBAC reads CRDs but not the group says so instead of failing.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { k, serviceAccountKubeconfig, startTestAgent, waitFor } from '../support/cluster.ts';

const GROUP = 'it-custom.example.com';
const SHOWN = 'it-custom-shown';
const HIDDEN = 'it-custom-hidden';
const PASSWORD = 'custom-admin-password';
/** Low enough to reach in a test, high enough for the reads before the 429 check. */
const DISCOVERY_PER_MIN = 40;

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${GROUP}
spec:
  group: ${GROUP}
  scope: Namespaced
  names: { kind: Widget, plural: widgets, singular: widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;

const widget = (namespace: string, name: string, labels: Record<string, string>) => `
apiVersion: ${GROUP}/v1
kind: Widget
metadata:
  name: ${name}
  namespace: ${namespace}
  labels: ${JSON.stringify(labels)}
spec:
  size: 3
  dbPassword: hunter2-not-for-eyes
`;

interface Row {
  id: string;
  kind: string;
  namespace: string | null;
  name: string;
  status: string;
  labels: Record<string, string>;
}

let agent: RunningAgent;
let cookie = '';

async function get(path: string, from = agent, as = cookie): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${from.url}/api/agent${path}`, { headers: { cookie: as } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function signIn(url: string): Promise<string> {
  const login = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  return (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('custom resources', () => {
  before(async () => {
    await k(['create', 'namespace', SHOWN]);
    await k(['create', 'namespace', HIDDEN]);
    await k(['apply', '-f', '-'], CRD);
    await k(['wait', '--for=condition=Established', `crd/widgets.${GROUP}`, '--timeout=60s']);
    await k(['apply', '-f', '-'], [widget(SHOWN, 'alpha', { app: 'web' }), widget(SHOWN, 'beta', { app: 'db' }), widget(SHOWN, 'gamma', { app: 'web' }), widget(HIDDEN, 'secret-plan', { app: 'web' })].join('\n---\n'));
    agent = await startTestAgent('custom-resources', { accounts: { adminPassword: PASSWORD }, settings: { tenantNamespaces: [SHOWN] }, rateLimits: { ...DEFAULT_RATE_LIMITS, discovery: DISCOVERY_PER_MIN } });
    cookie = await signIn(agent.url);
  });
  after(async () => {
    await agent.close();
    await k(['delete', 'crd', `widgets.${GROUP}`, '--ignore-not-found', '--wait=false']);
    await k(['delete', 'namespace', SHOWN, HIDDEN, '--ignore-not-found', '--wait=false']);
  });

  it('lists the CRD among the custom kinds', async () => {
    const kinds = await get('/custom-resources');
    assert.equal(kinds.status, 200, JSON.stringify(kinds.body));
    const items = kinds.body.items as { name: string; version: string; kind: string; namespaced: boolean }[];
    assert.deepEqual(items.find((i) => i.name === `widgets.${GROUP}`), { name: `widgets.${GROUP}`, group: GROUP, version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
  });

  it('browses its objects with filters and pages, never a hidden namespace\'s', async () => {
    const all = await get(`/custom-resources/${GROUP}/widgets`);
    assert.equal(all.status, 200, JSON.stringify(all.body));
    const rows = all.body.items as Row[];
    assert.deepEqual(rows.map((r) => `${r.namespace}/${r.name}`), [`${SHOWN}/alpha`, `${SHOWN}/beta`, `${SHOWN}/gamma`], `${HIDDEN} is not a tenant namespace`);
    const [alpha] = rows;
    assert.ok(alpha);
    assert.equal(alpha.kind, 'Widget');
    assert.equal(alpha.status, 'Present', 'no Ready condition, no phase');
    assert.equal(all.body.truncated, false);
    assert.equal(all.body.unreadable, null);

    const web = (await get(`/custom-resources/${GROUP}/widgets?labels=app%3Dweb`)).body.items as Row[];
    assert.deepEqual(web.map((r) => r.name), ['alpha', 'gamma']);
    const first = await get(`/custom-resources/${GROUP}/widgets?limit=2`);
    assert.equal((first.body.items as Row[]).length, 2);
    const second = await get(`/custom-resources/${GROUP}/widgets?limit=2&cursor=${String(first.body.next_cursor)}`);
    assert.deepEqual((second.body.items as Row[]).map((r) => r.name), ['gamma']);
    assert.equal(second.body.next_cursor, null);

    const hidden = await get(`/custom-resources/${GROUP}/widgets?namespace=${HIDDEN}`);
    assert.equal(hidden.status, 403, JSON.stringify(hidden.body));
    const hiddenDetail = await get(`/custom-resources/${GROUP}/widgets/secret-plan?namespace=${HIDDEN}`);
    assert.equal(hiddenDetail.status, 403);
    assert.ok(!JSON.stringify(hiddenDetail.body).includes('hunter2'));
  });

  it('sees a new object without a LIST per request (the watch), and shows one object live with its secrets redacted', async () => {
    await k(['apply', '-f', '-'], widget(SHOWN, 'delta', { app: 'db' }));
    await waitFor('delta in the cache', async () => ((await get(`/custom-resources/${GROUP}/widgets?q=delt`)).body.items as Row[] | undefined)?.length === 1, 30_000, 500);
    const detail = await get(`/custom-resources/${GROUP}/widgets/alpha?namespace=${SHOWN}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const yaml = String(detail.body.yaml);
    assert.match(yaml, /size: 3/);
    assert.ok(!yaml.includes('hunter2'), yaml);
    assert.ok(!yaml.includes('managedFields'), 'managed fields dropped');
    assert.equal((await get(`/custom-resources/${GROUP}/widgets/alpha`)).status, 400, 'a namespaced kind needs its namespace');
    assert.equal((await get(`/custom-resources/${GROUP}/gadgets`)).status, 404);
  });

  it('refuses a caller past security.discoveryRateLimitPerMin with 429', async () => {
    let last = 0;
    for (let i = 0; i < DISCOVERY_PER_MIN + 1 && last !== 429; i++) last = (await get('/custom-resources')).status;
    assert.equal(last, 429);
    assert.equal((await get('/resources/pods?limit=1')).status, 200, 'other reads are another class');
  });

  it('an agent that may read CRDs but not the group says why, and lists nothing', async () => {
    const account = 'it-custom-reader';
    await k(['create', 'serviceaccount', account, '-n', SHOWN]);
    await k(['create', 'clusterrole', account, '--verb=get,list,watch', '--resource=customresourcedefinitions.apiextensions.k8s.io']);
    await k(['create', 'clusterrolebinding', account, `--clusterrole=${account}`, `--serviceaccount=${SHOWN}:${account}`]);
    const limited = await startTestAgent('custom-resources-limited', { kubeconfig: await serviceAccountKubeconfig(account, SHOWN), accounts: { adminPassword: PASSWORD }, settings: { tenantNamespaces: [SHOWN] } });
    try {
      const as = await signIn(limited.url);
      const read = await get(`/custom-resources/${GROUP}/widgets`, limited, as);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(read.body.items, []);
      assert.match(String(read.body.unreadable), /rbac\.customResourceGroups/);
    } finally {
      await limited.close();
      await k(['delete', 'clusterrolebinding', account, '--ignore-not-found']);
      await k(['delete', 'clusterrole', account, '--ignore-not-found']);
    }
  });
});
