// Pod network counters from a kubelet's cAdvisor text, and the rates the agent derives from two scrapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSampleLine, podNetworkCounters } from '../../runtime/metrics/container-network.ts';
import { KubeletNetworkScraper, ratesBetween } from '../../runtime/metrics/kubelet-scraper.ts';
import { silentLogger } from '../../runtime/log.ts';
import { ManualClock } from '../support/services.ts';

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
    assert.deepEqual(parseSampleLine('m{a="x\\"y",b="1\\\\2"} 1.5e3 1700000000000'), { name: 'm', labels: { a: 'x"y', b: '1\\2' }, value: 1500 });
    assert.deepEqual(parseSampleLine('plain 7'), { name: 'plain', labels: {}, value: 7 });
    assert.equal(parseSampleLine('# HELP m help'), null);
    assert.equal(parseSampleLine('broken{a="x} 1'), null);
  });

  it('counts a pod once however many containers repeat its network, summing interfaces', () => {
    const counters = podNetworkCounters(CADVISOR);
    assert.deepEqual(Object.fromEntries(counters), {
      'shop/web-1': { rxBytes: 1024, txBytes: 3500 },
      'old/legacy-1': { rxBytes: 20, txBytes: 10 },
    });
  });

  it('derives rates between scrapes and skips a pod whose counter went back (a restart)', () => {
    const before = { atMs: 0, counters: new Map([['a/p', { rxBytes: 1000, txBytes: 100 }], ['a/restarted', { rxBytes: 5000, txBytes: 5000 }]]) };
    const after = { atMs: 60_000, counters: new Map([['a/p', { rxBytes: 7000, txBytes: 160 }], ['a/restarted', { rxBytes: 10, txBytes: 10 }], ['a/new', { rxBytes: 1, txBytes: 1 }]]) };
    assert.deepEqual(Object.fromEntries(ratesBetween(before, after)), { 'a/p': { rxBps: 100, txBps: 1 } });
    assert.equal(ratesBetween(before, { ...after, atMs: 3_600_000 }).size, 0, 'a gap of an hour hides too much to be a rate');
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
        { name: 'node-1', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: { address: '10.0.0.1', port: 10250 } },
        { name: 'node-2', ready: true, createdAt: null, labels: {}, containerMetricsPath: '/metrics/cadvisor', kubelet: null },
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
    assert.deepEqual(scraper.podRates().get('shop/web-1'), { rxBps: 0, txBps: 0 });
  });
});
