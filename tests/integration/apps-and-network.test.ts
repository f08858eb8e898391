// Applications and the kubelet network scrape on a real agent over the demo scenario: usage
// from metrics-server, flags from the pods' real requests, network rates read through the
// API server's node proxy from KWOK's container-metrics endpoint, whose counters restart
// with their container.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { CONTAINER_METRICS_PATH_ANNOTATION } from '../../runtime/kube/slim.ts';
import { k, kJson, waitFor, type PodList, startTestAgent } from '../support/cluster.ts';

const PASSWORD = 'apps-admin-password';
const NAMESPACE = 'apps-network-test';
const FLAPPER_RX_BPS = 10_000;
let agent: RunningAgent;
let cookie = '';

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Metrics {
  metrics_available: boolean;
  totals: { pods_measured: number; pods_total: number; cpu_millicores_used: number; cpu_millicores_request: number };
  members: { pod: string; workload: string; flags: string[]; cpu_millicores_used: number | null }[];
  flags: string[];
  network: { available: boolean; reason?: string; workloads: { workload: string; rx_bytes_per_sec: number | null; tx_bytes_per_sec: number | null }[] };
}

/** GET over KWOK's self-signed TLS. */
function kwokGet(host: string, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

type NodeList = { items: { metadata: { name: string; annotations?: Record<string, string> }; status: { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port: number } } } }[] };

// A pod that crashes every 5 s: its network counters restart each time.
const FLAPPER = `
apiVersion: v1
kind: Namespace
metadata: {name: ${NAMESPACE}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: flapper, namespace: ${NAMESPACE}}
spec:
  replicas: 1
  selector: {matchLabels: {app: flapper}}
  template:
    metadata:
      labels: {app: flapper, sim.capstan.dev/behavior: crashloop}
      annotations: {sim.capstan.dev/crash-interval: 5s, sim.capstan.dev/net-rx-bps: "${FLAPPER_RX_BPS}", kwok.x-k8s.io/usage-cpu: 5m}
    spec:
      containers: [{name: flapper, image: example/flapper:1, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
`;

describe('applications and pod network on the demo scenario', () => {
  before(async () => {
    await k(['apply', '-f', '-'], FLAPPER);
    agent = await startTestAgent('apps', {
      accounts: { adminPassword: PASSWORD },
      // KWOK's endpoint is self-signed on loopback, where the API server will not proxy.
      kubeletScrape: { mode: 'direct', insecureTls: true },
      historySampleIntervalMs: 2000,
    });
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => {
    await agent.close();
    await k(['delete', 'namespace', NAMESPACE, '--wait=false']);
  });

  it("measures a storefront application's pods against their requests, flags them and shows each workload's traffic", async () => {
    const created = await call('POST', '/apps', {
      name: 'Storefront',
      namespaces: ['shop'],
      selector: { match_expressions: [{ key: 'app', operator: 'In', values: ['frontend', 'cart'] }] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = String(created.body.id);
    const preview = await call('POST', '/apps/preview', { name: 'x', namespaces: ['shop'], selector: { match_labels: { app: 'frontend' } } });
    assert.equal(preview.body.total, 12, 'the frontend Deployment runs 12 replicas');

    let metrics: Metrics | null = null;
    await waitFor(
      'usage of every member and a network rate per workload',
      async () => {
        metrics = (await call('GET', `/apps/${id}/metrics`)).body as unknown as Metrics;
        return metrics.totals.pods_measured === 18 && metrics.network.available && metrics.network.workloads.every((w) => w.rx_bytes_per_sec !== null);
      },
      120_000,
      2000,
    ).catch((err: unknown) => assert.fail(`${String(err)}\n${JSON.stringify(metrics)}`));
    const m = metrics as unknown as Metrics;
    assert.equal(m.totals.pods_total, 18);
    // frontend: 12 × 100m requested, using 120m each; cart: 6 × 50m, using 60m each.
    assert.equal(m.totals.cpu_millicores_request, 12 * 100 + 6 * 50);
    assert.ok(m.totals.cpu_millicores_used >= 12 * 100 + 6 * 50, `both run above their CPU request: ${m.totals.cpu_millicores_used}`);
    assert.deepEqual(m.flags, ['cpu_above_request', 'memory_above_request']);
    assert.ok(m.members.every((x) => x.workload === 'Deployment/frontend' || x.workload === 'Deployment/cart'));

    const frontend = m.network.workloads.find((w) => w.workload === 'Deployment/frontend');
    const cart = m.network.workloads.find((w) => w.workload === 'Deployment/cart');
    assert.equal(m.network.workloads.length, 2, 'one entry per workload, never one sum');
    // The scenario sets 250 kB/s received and 1.2 MB/s sent per frontend pod; cart pods use KWOK's default of 2048 B/s.
    assert.ok(Math.abs((frontend?.rx_bytes_per_sec ?? 0) - 12 * 250_000) < 12 * 250_000 * 0.05, JSON.stringify(frontend));
    assert.ok(Math.abs((frontend?.tx_bytes_per_sec ?? 0) - 12 * 1_200_000) < 12 * 1_200_000 * 0.05, JSON.stringify(frontend));
    assert.ok(Math.abs((cart?.rx_bytes_per_sec ?? 0) - 6 * 2048) < 6 * 2048 * 0.05, JSON.stringify(cart));

    type NetworkHistory = { available: boolean; workloads: { workload: string; series: { rx_bps: number | null }[] }[] };
    const readHistory = async () => (await call('GET', `/apps/${id}/network-history?window=1h`)).body as unknown as NetworkHistory;
    await waitFor('network history of the frontend', async () => (await readHistory()).available, 60_000, 2000);
    const measured = (await readHistory()).workloads.find((w) => w.workload === 'Deployment/frontend')?.series.filter((p) => p.rx_bps !== null) ?? [];
    assert.ok(measured.length >= 1);
    assert.ok(measured.every((p) => Math.abs((p.rx_bps ?? 0) - 12 * 250_000) < 12 * 250_000 * 0.1), JSON.stringify(measured));

    const status = (await call('GET', '/metrics/history?scope=namespace&namespace=shop')).body as { network: { enabled: boolean; last_scrape_ok: boolean; last_scrape_error: string | null } };
    assert.deepEqual(status.network, { enabled: true, available: true, last_scrape_ok: true, last_scrape_error: null });
  });

  it("keeps a crash-looping pod's rates sane across its counter resets", async () => {
    const restarts = async () => (await kJson<PodList>(['get', 'pods', '-n', NAMESPACE])).items[0]?.status.containerStatuses?.[0]?.restartCount ?? 0;
    await waitFor('the flapper to restart', async () => (await restarts()) >= 1, 60_000, 1000);
    const before = await restarts();
    const pod = (await kJson<PodList>(['get', 'pods', '-n', NAMESPACE])).items[0]?.metadata.name ?? '';
    // A counter reset taken as a delta would read as a huge or negative rate: every one must be
    // within what the pod is configured to send, over a window in which it restarts again.
    await waitFor('another restart while sampling', async () => (await restarts()) > before, 60_000, 1000);
    const history = (await call('GET', `/metrics/history?scope=pod&namespace=${NAMESPACE}&name=${pod}`)).body as { series: { net_rx_bps: number | null }[] };
    const rates = history.series.map((p) => p.net_rx_bps).filter((r): r is number => r !== null);
    assert.ok(rates.length >= 1, JSON.stringify(history));
    assert.ok(rates.every((r) => r >= 0 && r <= FLAPPER_RX_BPS * 1.05), JSON.stringify(rates));
  });

  it("serves a node's network counters whole while metrics-server reads the same node", async () => {
    // KWOK keeps one registry per node for all its Metric objects, and a request to one Metric's
    // path drops the other's series: with the network counters in a Metric of their own, a
    // metrics-server scrape racing the agent's emptied one answer or the other (measured: 13 of
    // 200 network answers without counters, 33 of 200 usage answers without CPU).
    const node = (await kJson<NodeList>(['get', 'nodes'])).items[0];
    assert.ok(node);
    const host = node.status.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '';
    const port = node.status.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
    const networkPath = node.metadata.annotations?.[CONTAINER_METRICS_PATH_ANNOTATION] ?? '';
    const usagePath = node.metadata.annotations?.['metrics.k8s.io/resource-metrics-path'] ?? '';
    const incomplete: string[] = [];
    for (let round = 0; round < 100; round++) {
      const [usage, network] = await Promise.all([kwokGet(host, port, usagePath), kwokGet(host, port, networkPath)]);
      if (!network.includes('container_network_receive_bytes_total{')) incomplete.push(`round ${round}: no network counters`);
      if (!usage.includes('container_cpu_usage_seconds_total{')) incomplete.push(`round ${round}: no CPU usage`);
    }
    assert.deepEqual(incomplete, []);
  });
});
