// Pod network counters from a kubelet's cAdvisor text, and the rates the agent derives from two scrapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSampleLine, podNetworkCounters } from '../../runtime/metrics/container-network.ts';
import { KubeletNetworkScraper, ratesBetween } from '../../runtime/metrics/kubelet-scraper.ts';
import { silentLogger } from '../../runtime/log.ts';
import { ManualClock } from '../support/services.ts';
import { nodeDefaults } from '../support/objects.ts';

// The shape a real kubelet serves: the pod cgroup (container="") and every container repeat
// the pod's network namespace; two interfaces; other metrics around it.
const CADVISOR = `# HELP container_network_receive_bytes_total Cumulative count of bytes received
# TYPE container_network_receive_bytes_total counter
container_network_receive_bytes_total{container="",id="/kubepods/pod1",interface="eth0",name="",namespace="shop",pod="web-1"} 1000 1732358400000
container_network_receive_bytes_total{container="web",id="/kubepods/pod1/c1",interface="eth0",name="web",namespace="shop",pod="web-1"} 1000 1732358400000
container_network_receive_bytes_total{container="sidecar",id="/kubepods/pod1/c2",interface="eth0",name="sidecar",namespace="shop",pod="web-1"} 1000
container_network_receive_bytes_total{container="",id="/kubepods/pod1",interface="eth1",name="",namespace="shop",pod="web-1"} 24
container_network_receive_bytes_total{container="",id="/",interface="eth0",name="",namespace="",pod=""} 999999
# HELP container_network_transmit_bytes_total Cumulative count of bytes transmitted
# TYPE container_network_transmit_bytes_total counter
container_network_transmit_bytes_total{container="",interface="eth0",namespace="shop",pod="web-1"} 3.5e+03
container_network_transmit_bytes_total{container_name="POD",interface="eth0",namespace="old",pod_name="legacy-1"} 10
container_network_receive_bytes_total{container_name="POD",interface="eth0",namespace="old",pod_name="legacy-1"} 20
container_cpu_usage_seconds_total{container="web",namespace="shop",pod="web-1"} 12.5
`;

describe('kubelet container network', () => {
  it('parses Prometheus sample lines with escapes, timestamps and exponents', () => {
    assert.deepEqual(parseSampleLine('m{a="x\\"y",b="1\\\\2"} 1.5e3 1700000000000'), { name: 'm', labels: { a: 'x"y', b: '1\\2' }, value: 1500, timestampMs: 1700000000000 });
    assert.deepEqual(parseSampleLine('plain 7'), { name: 'plain', labels: {}, value: 7, timestampMs: null });
    assert.equal(parseSampleLine('# HELP m help'), null);
    assert.equal(parseSampleLine('broken{a="x} 1'), null);
  });

  it('counts a pod once however many containers repeat its network, summing interfaces', () => {
    const counters = podNetworkCounters(CADVISOR, 1732358460000);
    assert.deepEqual(Object.fromEntries(counters), {
      'shop/web-1': { rxBytes: 1024, txBytes: 3500, atMs: 1732358400000 },
      'old/legacy-1': { rxBytes: 20, txBytes: 10, atMs: 1732358460000 },
    });
  });

  it('derives rates between scrapes and skips a pod whose counter went back (a restart)', () => {
    const at = (atMs: number, counters: Record<string, [number, number]>) => ({ counters: new Map(Object.entries(counters).map(([pod, [rxBytes, txBytes]]) => [pod, { rxBytes, txBytes, atMs }])) });
    const before = at(0, { 'a/p': [1000, 100], 'a/restarted': [5000, 5000] });
    const after = at(60_000, { 'a/p': [7000, 160], 'a/restarted': [10, 10], 'a/new': [1, 1] });
    assert.deepEqual(Object.fromEntries(ratesBetween(before, after)), { 'a/p': { rxBps: 100, txBps: 1 } });
    assert.equal(ratesBetween(before, at(3_600_000, { 'a/p': [7000, 160] })).size, 0, 'a gap of an hour hides too much to be a rate');
    assert.equal(ratesBetween(before, at(0, { 'a/p': [7000, 160] })).size, 0, 'two readings at one instant make no rate');
  });

  it('reads every node once and reports a failing node while keeping the others', async () => {
    const clock = new ManualClock();
    const asked: string[] = [];
    let failNode2 = true;
    const scraper = new KubeletNetworkScraper(
      (node) => {
        asked.push(node.name);
        if (node.name === 'node-2' && failNode2) return Promise.reject(new Error('connection refused'));
        return Promise.resolve(node.name === 'node-1' ? CADVISOR : '');
      },
      () => [
        { ...nodeDefaults, name: 'node-1', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: { address: '10.0.0.1', port: 10250 } },
        { ...nodeDefaults, name: 'node-2', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null },
      ],
      clock,
      silentLogger,
    );
    const counters = await scraper.scrape();
    assert.deepEqual(asked.sort(), ['node-1', 'node-2'], 'every node, once');
    assert.equal(counters.get('shop/web-1')?.rxBytes, 1024, 'the nodes that answered still count');
    assert.deepEqual(scraper.status(), { enabled: true, lastScrapeOk: false, lastScrapeError: '1 of 2 nodes failed; node-2: connection refused' });
    failNode2 = false;
    clock.advance(60_000);
    await scraper.scrape();
    assert.deepEqual(scraper.status(), { enabled: true, lastScrapeOk: true, lastScrapeError: null });
    assert.deepEqual(scraper.podRates().get('old/legacy-1'), { rxBps: 0, txBps: 0 });
    // web-1's lines carry cAdvisor's timestamp: the same statistics served twice are one reading, not a rate of 0.
    assert.equal(scraper.podRates().has('shop/web-1'), false);
  });

  it("times each node's counters by when that node answered, not by when the slowest one did", async () => {
    // KWOK computes a counter when it answers. Node 2 answers 900 ms after node 1 in the first
    // scrape, both at once in the second, 2 s later: timed at the end of the whole scrape, node 1's
    // 2 s of bytes read as 1.1 s, nearly twice the rate (issue 11, item 16).
    const clock = new ManualClock();
    const startMs = clock.now().getTime();
    const RATE = 250_000;
    const cadvisor = (pod: string) => `container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="${pod}"} ${((clock.now().getTime() - startMs) * RATE) / 1000}\n`;
    let slowNode2 = true;
    const scraper = new KubeletNetworkScraper(
      async (node) => {
        if (node.name === 'node-2' && slowNode2) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          clock.advance(900);
        }
        return cadvisor(node.name === 'node-1' ? 'web-1' : 'web-2');
      },
      () => [
        { ...nodeDefaults, name: 'node-1', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: { address: '10.0.0.1', port: 10250 } },
        { ...nodeDefaults, name: 'node-2', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: { address: '10.0.0.2', port: 10250 } },
      ],
      clock,
      silentLogger,
    );
    const first = await scraper.scrape();
    slowNode2 = false;
    clock.advance(2000 - 900);
    await scraper.scrape();
    const rounded = [...scraper.podRates()].map(([pod, r]) => [pod, Math.round(r.rxBps)]);
    assert.deepEqual(Object.fromEntries(rounded), { 'shop/web-1': RATE, 'shop/web-2': RATE });
    assert.deepEqual([first.get('shop/web-1')?.atMs, first.get('shop/web-2')?.atMs], [startMs, startMs + 900], 'each pod carries when its node answered');
  });

  it("uses the kubelet's own sample timestamps when it gives them", () => {
    // cAdvisor refreshes its statistics every 10-15 s and stamps each sample with when it did:
    // a counter 12 s old must not be taken as read now.
    const stamped = `container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="web-1"} 100 1732358400000
container_network_receive_bytes_total{container="web",interface="eth0",namespace="shop",pod="web-1"} 100 1732358400000
container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="plain"} 5
`;
    const counters = podNetworkCounters(stamped, 1732358412000);
    assert.deepEqual(Object.fromEntries(counters), {
      'shop/web-1': { rxBytes: 100, txBytes: 0, atMs: 1732358400000 },
      'shop/plain': { rxBytes: 5, txBytes: 0, atMs: 1732358412000 },
    });
    const before = { counters: new Map([['a/p', { rxBytes: 0, txBytes: 0, atMs: 0 }]]) };
    const after = { counters: new Map([['a/p', { rxBytes: 6000, txBytes: 0, atMs: 60_000 }]]) };
    assert.deepEqual(Object.fromEntries(ratesBetween(before, after)), { 'a/p': { rxBps: 100, txBps: 0 } });
  });

  it("times unstamped counters by the pod's container_last_seen, when the endpoint gives one", () => {
    // KWOK cannot stamp sample lines; it reports the instant its counters were computed as
    // container_last_seen (unix seconds, fractional). On a starved machine the node's answer
    // reached the agent up to 0.7 s late, a third of a 2 s interval.
    const text = `container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="web-1"} 500
container_last_seen{container="",namespace="shop",pod="web-1"} 1732358400.125
container_network_transmit_bytes_total{container="",interface="eth0",namespace="shop",pod="web-1"} 50
container_last_seen{container="",namespace="shop",pod="stamped"} 1732358400.5
container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="stamped"} 7 1732358399000
container_network_receive_bytes_total{container="",interface="eth0",namespace="shop",pod="other"} 9
`;
    assert.deepEqual(Object.fromEntries(podNetworkCounters(text, 1732358400700)), {
      'shop/web-1': { rxBytes: 500, txBytes: 50, atMs: 1732358400125 },
      // A sample timestamp is the kubelet's own word for its counter: it wins.
      'shop/stamped': { rxBytes: 7, txBytes: 0, atMs: 1732358399000 },
      'shop/other': { rxBytes: 9, txBytes: 0, atMs: 1732358400700 },
    });
  });
});
