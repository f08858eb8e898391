// Inventory, health and incidents of a real agent over the demo scenario: every simulated
// behaviour must surface as the right incident, and the verdicts must follow the documented rules.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAgent, type RunningAgent } from '../../runtime/agent.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testCluster, waitFor } from '../support/cluster.ts';

const PASSWORD = 'read-core-admin-password';
let agent: RunningAgent;
let cookie = '';

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Incident {
  id: string;
  namespace: string;
  pod: string;
  reason: string;
  severity: string;
  workload_kind: string;
  workload_name: string;
  restart_count: number;
  last_exit_code: number | null;
  mem_pct_of_limit?: number;
}

const byWorkload = (incidents: Incident[], name: string) => incidents.find((i) => i.workload_name === name);

describe('read core on the demo scenario', () => {
  before(async () => {
    agent = await startAgent({
      kubeconfig: testCluster().kubeconfig,
      listen: '127.0.0.1:0',
      dataDir: mkdtempSync(join(tmpdir(), 'capstan-read-core-')),
      settings: { tenantNamespaces: [] },
      accounts: { adminPassword: PASSWORD },
      historySampleIntervalMs: 1000,
      validateOutput: true,
      log: silentLogger,
    });
    await agent.ready;
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(() => agent.close());

  it('reports each simulated behaviour as its incident with the right reason and severity', async () => {
    let incidents: Incident[] = [];
    const expected: [string, string, string][] = [
      ['checkout', 'CrashLoopBackOff', 'critical'],
      ['settlement-worker', 'OOMKilled', 'critical'],
      ['image-updater', 'ImagePullBackOff|ErrImagePull', 'critical'],
      ['ml-trainer', 'Unschedulable', 'warning'],
      ['ledger', 'OOMRisk', 'warning'],
    ];
    await waitFor(
      'every demo behaviour as an incident',
      async () => {
        incidents = (await get('/incidents')).body.incidents as Incident[];
        return expected.every(([workload, reason]) => new RegExp(`^(${reason})$`).test(byWorkload(incidents, workload)?.reason ?? ''));
      },
      150_000,
      3000,
    ).catch((err: unknown) => assert.fail(`${String(err)}\nincidents: ${JSON.stringify(incidents.map((i) => [i.workload_name, i.reason]))}`));
    for (const [workload, reason, severity] of expected) {
      const incident = byWorkload(incidents, workload);
      assert.ok(incident, workload);
      assert.match(incident.reason, new RegExp(`^(${reason})$`), workload);
      assert.equal(incident.severity, severity, workload);
      assert.equal(incident.id, `${incident.namespace}/${incident.pod}/${incident.reason}`);
    }
    const crash = byWorkload(incidents, 'checkout');
    assert.equal(crash?.workload_kind, 'Deployment');
    assert.ok(crash.restart_count >= 1);
    assert.ok(crash.last_exit_code !== null && crash.last_exit_code !== 0);
    assert.equal(byWorkload(incidents, 'settlement-worker')?.last_exit_code, 137);
    assert.ok((byWorkload(incidents, 'ledger')?.mem_pct_of_limit ?? 0) >= 90);
    // A pod merely not Ready, with no probe event or other finding of its own, is no incident:
    // the diagnosis puts the shortfall on its workload (docs/health-and-incidents.md).
    assert.equal(byWorkload(incidents, 'session-cache'), undefined, 'session-cache: its Deployment carries the problem');
    assert.ok(!incidents.some((i) => i.namespace === 'kube-system' || i.namespace === 'monitoring'), 'blocklisted namespaces stay hidden');

    const shop = await get('/incidents?namespace=shop');
    assert.ok((shop.body.incidents as Incident[]).every((i) => i.namespace === 'shop'));
    assert.equal((await get('/incidents?namespace=kube-system')).status, 403);
    const bad = await get('/incidents?namespace=Not_A_Name');
    assert.deepEqual([bad.status, bad.body.field], [400, 'namespace']);
  });

  it("tells the crash-loop pod's story: previous instance's log tail, redacted, its exit code and events", async () => {
    const incidents = (await get('/incidents?namespace=shop')).body.incidents as Incident[];
    const crash = incidents.find((i) => i.workload_name === 'checkout');
    assert.ok(crash);
    const res = await get(`/incidents/shop/${crash.pod}`);
    assert.equal(res.status, 200);
    const body = res.body as {
      incident: Incident;
      last_exit: { container: string; exit_code: number } | null;
      events: { reason: string; message: string }[];
      log_tail: string;
      log_source: { previous: boolean; error: string | null };
      resources: { cpu_limit_m: number | null; mem_request_bytes: number | null };
    };
    assert.equal(body.incident.reason, 'CrashLoopBackOff');
    assert.equal(body.log_source.previous, true);
    assert.equal(body.log_source.error, null);
    assert.match(body.log_tail, /2026\/11\/21 09:13:21 checkout starting/, 'the previous instance');
    assert.match(body.log_tail, /promotion BLACKFRIDAY with token=/);
    assert.doesNotMatch(body.log_tail, /sk_live_51Hx9fakeToken/, 'a secret in a log line comes back redacted');
    assert.equal(body.last_exit?.container, 'checkout');
    assert.notEqual(body.last_exit.exit_code, 0);
    assert.ok(body.events.length > 0 && body.events.length <= 15);
    assert.ok(body.events.some((e) => e.reason === 'BackOff'));
    assert.equal((await get('/incidents/kube-system/coredns')).status, 403);
    assert.equal((await get('/incidents/shop/no-such-pod')).status, 404);
  });

  it('orders namespaces critical → degraded → unknown → healthy from a 30 s cache, with the documented verdicts', async () => {
    const first = await get('/overview');
    assert.equal(first.status, 200);
    const namespaces = first.body.namespaces as { namespace: string; health_score: string; pvcs_unbound: number; pods_total: number }[];
    const order = ['critical', 'degraded', 'unknown', 'healthy'];
    const ranks = namespaces.map((n) => order.indexOf(n.health_score));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b));
    const verdict = (ns: string) => namespaces.find((n) => n.namespace === ns)?.health_score;
    assert.equal(verdict('shop'), 'critical', 'crash-looping checkout');
    assert.equal(verdict('payments'), 'critical', 'OOMKilled settlement-worker');
    assert.equal(verdict('analytics'), 'degraded', 'an unschedulable pod only');
    assert.equal(verdict('identity'), 'degraded', 'a not-ready pod only');
    assert.equal(verdict('platform'), 'critical', 'image pull failure');
    assert.equal(verdict('marketing'), 'healthy');
    assert.ok(namespaces.find((n) => n.namespace === 'payments')?.pvcs_unbound === 1);
    assert.ok(!namespaces.some((n) => n.namespace === 'kube-system'));
    assert.equal(first.body.cache_ttl_secs, 30);
    const second = await get('/overview');
    assert.equal(second.body.cached_at, first.body.cached_at, 'served from the cache');
  });

  it('returns history points once the sampler has run, at namespace and pod scope', async () => {
    type History = { available: boolean; bucket_secs: number; series: { ts: number; cpu_millicores: number | null; mem_bytes: number | null; net_rx_bps: number | null }[] };
    let history: History | null = null;
    await waitFor('history samples for payments', async () => {
      history = (await get('/metrics/history?scope=namespace&namespace=payments&window=1h')).body as History;
      return history.available;
    }, 60_000, 1000);
    const answer = history as unknown as History;
    assert.equal(answer.bucket_secs, 60, 'never finer than the 60 s samples');
    const measured = answer.series.filter((p) => p.mem_bytes !== null);
    assert.ok(measured.length >= 1);
    // The ledger alone uses 490Mi, so the namespace total is above that.
    assert.ok(measured.every((p) => (p.mem_bytes ?? 0) > 490 * 1024 * 1024), JSON.stringify(measured.slice(0, 3)));
    assert.ok(answer.series.every((p) => p.net_rx_bps === null), 'no network without the kubelet scrape');
    const pods = (await get('/namespaces/payments/pods')).body.pods as { name: string; workload_name: string }[];
    const ledger = pods.find((p) => p.workload_name === 'ledger');
    assert.ok(ledger);
    await waitFor('history samples for the ledger pod', async () => ((await get(`/metrics/history?scope=pod&namespace=payments&name=${ledger.name}`)).body as History).available, 30_000, 1000);
  });

  it('lists a namespace’s pods with their owner workload and requests, and refuses hidden namespaces', async () => {
    const res = await get('/namespaces/payments/pods');
    assert.equal(res.status, 200);
    const pods = res.body.pods as { name: string; workload_kind: string; workload_name: string; mem_limit_bytes: number | null; ready: string }[];
    const ledger = pods.find((p) => p.workload_name === 'ledger');
    assert.equal(ledger?.workload_kind, 'Deployment');
    assert.equal(ledger.mem_limit_bytes, 512 * 1024 * 1024);
    assert.match(ledger.ready, /^\d+\/\d+$/);
    assert.equal((await get('/namespaces/kube-system/pods')).status, 403);
    assert.equal((await get('/namespaces/no-such-namespace/pods')).status, 404);
  });
});
