// Browsing by kind through a real agent on the demo scenario: what each kind lists, its
// filters and keyset pages, and visibility (a hidden namespace's objects never appear, a
// Secret is a name only).
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startTestAgent, waitFor } from '../support/cluster.ts';

const PASSWORD = 'resources-admin-password';
let agent: RunningAgent;
let cookie = '';

interface Row {
  id: string;
  kind: string;
  namespace: string | null;
  name: string;
  status: string;
  problem: boolean;
  labels: Record<string, string>;
  columns: Record<string, string | number | null>;
}
interface Page {
  items: Row[];
  total: number;
  next_cursor: string | null;
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const page = async (path: string) => (await get(path)).body as unknown as Page;

describe('browsing resources by kind', () => {
  before(async () => {
    // The tenant list hides marketing: its objects must never appear.
    agent = await startTestAgent('resources', { accounts: { adminPassword: PASSWORD }, settings: { tenantNamespaces: ['shop', 'payments', 'identity', 'platform', 'analytics'] } });
    const login = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    await waitFor('the checkout problem', async () => (await page('/resources/pods?namespace=shop&status=problem')).items.some((r) => r.name.startsWith('checkout-')), 120_000, 1000);
  });
  after(() => agent.close());

  it('lists Deployments with their readiness, and Nodes cluster-wide', async () => {
    const deployments = await page('/resources/deployments?namespace=shop');
    const checkout = deployments.items.find((r) => r.name === 'checkout');
    assert.ok(checkout, JSON.stringify(deployments.items.map((r) => r.name)));
    assert.equal(checkout.id, 'deployment:shop/checkout');
    assert.match(String(checkout.columns.ready), /^\d+\/\d+$/);
    const nodes = await page('/resources/nodes?q=kwok-node');
    assert.ok(nodes.items.length >= 6);
    assert.ok(nodes.items.every((n) => n.namespace === null && n.status.startsWith('Ready')));
    // The demo's nodes offer 32 CPUs and 110 pods each; their load counts every pod bound to them.
    const node1 = nodes.items.find((n) => n.name === 'kwok-node-1');
    assert.ok(node1);
    assert.equal(node1.columns.cpu_allocatable_m, 32_000);
    assert.equal(node1.columns.memory_allocatable_bytes, 128 * 1024 ** 3);
    assert.match(String(node1.columns.pods), /^\d+\/110$/);
    assert.ok(Number(node1.columns.cpu_requested_m) > 0);
  });

  it("sums the cluster's capacity on the overview", async () => {
    const capacity = (await get('/overview')).body.capacity as { nodes: number; cpu_m: { allocatable: number; requested: number; used: number | null }; pods: { allocatable: number; scheduled: number } };
    assert.ok(capacity.nodes >= 6);
    assert.ok(capacity.cpu_m.allocatable >= 6 * 32_000);
    assert.ok(capacity.cpu_m.requested > 0 && capacity.cpu_m.requested < capacity.cpu_m.allocatable);
    assert.ok(capacity.pods.scheduled > 50 && capacity.pods.scheduled <= capacity.pods.allocatable);
  });

  it('filters pods by label and by problem', async () => {
    const labelled = await page('/resources/pods?namespace=shop&labels=app%3Dcheckout');
    assert.ok(labelled.total > 0);
    assert.ok(labelled.items.every((r) => r.labels.app === 'checkout'));
    const sick = await page('/resources/pods?status=problem');
    assert.ok(sick.items.every((r) => r.problem));
    assert.ok(sick.items.some((r) => r.name.startsWith('checkout-')));
  });

  it('pages with a cursor: every pod once, in the same order as one big page', async () => {
    const whole = await page('/resources/pods?limit=500');
    assert.ok(whole.total > 50, `${whole.total} pods`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page(`/resources/pods?limit=37${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      seen.push(...next.items.map((r) => r.id));
      cursor = next.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(seen, whole.items.map((r) => r.id));
  });

  it('never shows a hidden namespace, and names the field of a bad request', async () => {
    for (const kind of ['pods', 'deployments', 'services', 'events', 'configmaps', 'secrets']) {
      const all = await page(`/resources/${kind}?limit=500`);
      assert.ok(all.items.every((r) => r.namespace !== 'marketing' && r.namespace !== 'kube-system'), kind);
    }
    assert.equal((await get('/resources/pods?namespace=marketing')).status, 403);
    const kind = await get('/resources/widgets');
    assert.deepEqual([kind.status, kind.body.field], [400, 'kind']);
    const labels = await get('/resources/pods?labels=a%3Db%3Dc');
    assert.deepEqual([labels.status, labels.body.field], [400, 'labels']);
    const cursor = await get('/resources/pods?cursor=not-one');
    assert.deepEqual([cursor.status, cursor.body.field], [400, 'cursor']);
    const limit = await get('/resources/pods?limit=501');
    assert.deepEqual([limit.status, limit.body.field], [400, 'limit']);
  });

  it('shows a Secret as a name only, and events redacted, newest first', async () => {
    const secrets = await page('/resources/secrets?namespace=payments');
    assert.ok(secrets.items.length > 0);
    for (const s of secrets.items) assert.deepEqual(Object.keys(s.columns), []);
    const events = await page('/resources/events?namespace=shop&sort=age&q=backoff');
    assert.ok(events.items.length > 0);
    assert.ok(events.items.every((e) => e.kind === 'Event' && /back-off|backoff/i.test(`${e.name} ${String(e.columns.message)}`)));
  });

  it("shows one object: its row, its events and its YAML read live, a Secret's data never", async () => {
    const deployment = await get('/resources/deployments/checkout?namespace=shop');
    assert.equal(deployment.status, 200);
    const yaml = String(deployment.body.yaml);
    assert.match(yaml, /kind: Deployment/);
    assert.doesNotMatch(yaml, /managedFields|last-applied-configuration/);
    assert.equal((deployment.body.row as Row).id, 'deployment:shop/checkout');

    const secret = await get('/resources/secrets/checkout-keys?namespace=shop');
    assert.equal(secret.status, 200);
    assert.match(String(secret.body.yaml), /type: Opaque/);
    assert.doesNotMatch(JSON.stringify(secret.body), /sk_live|c2tfbGl2Z|PAYMENT_TOKEN/, 'no data, no key, no last-applied copy');

    const config = await get('/resources/configmaps/frontend-config?namespace=shop');
    assert.match(String(config.body.yaml), /keys:\n\s+- API_URL\n\s+- FEATURE_FLAGS/);
    assert.doesNotMatch(String(config.body.yaml), /catalog\.shop\.svc|new-checkout/, 'keys, not values');

    const node = await get('/resources/nodes/kwok-node-1');
    assert.equal(node.status, 200);
    assert.match(String(node.body.yaml), /kind: Node/);
    assert.deepEqual([(await get('/resources/nodes/kwok-node-1?namespace=shop')).body.field, (await get('/resources/deployments/checkout')).body.field], ['namespace', 'namespace']);
    assert.equal((await get('/resources/deployments/nobody?namespace=shop')).status, 404);
    assert.equal((await get('/resources/deployments/cms?namespace=marketing')).status, 403);
  });
});
