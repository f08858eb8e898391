import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedLoop, httpFetcher, openLoop, percentile } from '../../scripts/bench-load.ts';

describe('benchmark load', () => {
  it('a closed-loop run with any non-2xx answer is not served: its histogram is kept, its figures are null', async () => {
    let n = 0;
    const throttled = () => Promise.resolve(new Response('{}', { status: ++n % 3 === 0 ? 429 : 200 }));
    const result = await closedLoop(throttled, 2, 30);
    assert.deepEqual(result.statuses, { '200': 20, '429': 10 });
    assert.equal(result.requests, 30);
    assert.equal(result.errors, 10);
    assert.equal(result.served, false);
    assert.equal(result.throughput_rps, null);
    assert.equal(result.p50_ms, null);
    assert.equal(result.p99_ms, null);
  });

  it('a request that gets no answer at all counts as a network error, by its code when it has one', async () => {
    let n = 0;
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const flaky = () => (++n === 2 ? Promise.reject(new Error('no code')) : n === 4 ? Promise.reject(reset) : Promise.resolve(new Response('{}')));
    const result = await closedLoop(flaky, 1, 5);
    assert.deepEqual(result.statuses, { '200': 3, network: 1, 'network ECONNRESET': 1 });
    assert.equal(result.errors, 2);
    assert.equal(result.served, false);
  });

  it('measures a closed-loop run whose every answer was served', async () => {
    const served = () => Promise.resolve(new Response('{}', { status: 200 }));
    const result = await closedLoop(served, 3, 30);
    assert.equal(result.requests, 30);
    assert.equal(result.errors, 0);
    assert.equal(result.served, true);
    assert.ok((result.throughput_rps ?? 0) > 0);
  });

  it('an open-loop run sends at the offered rate and times each request from when it was due', async () => {
    // A server that stalls 200 ms once: every request due during the stall waits for it, and
    // timing from the due time (not the send time) shows that wait in the tail.
    let stalled = false;
    const stallOnce = async () => {
      if (!stalled) {
        stalled = true;
        await new Promise((r) => setTimeout(r, 200));
      }
      return new Response('{}');
    };
    const result = await openLoop(stallOnce, { ratePerSec: 200, durationSecs: 1 });
    assert.equal(result.requests, 200);
    assert.equal(result.served, true);
    assert.equal(result.not_sent, 0);
    assert.ok((result.p999_ms ?? 0) >= 190, `p99.9 ${String(result.p999_ms)} should show the 200 ms stall`);
    assert.ok((result.achieved_rps ?? 0) > 100);
  });

  it('an open-loop run stops sending past its outstanding bound, and says the rate was not sustained', async () => {
    const never = () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response('{}')), 300));
    const result = await openLoop(never, { ratePerSec: 200, durationSecs: 0.5, maxOutstanding: 10 });
    assert.ok(result.not_sent > 0);
    assert.equal(result.served, false);
    assert.equal(result.achieved_rps, null);
  });

  it('percentile is nearest-rank', () => {
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    const cases: [number, number][] = [[0.5, 500], [0.99, 990], [0.999, 999], [1, 1000]];
    for (const [q, want] of cases) assert.equal(percentile(values, q), want, String(q));
    assert.equal(percentile([], 0.5), null);
  });

  it('the node:http fetcher sends the method, headers and body, reads each answer whole, and keeps the server\'s status', async () => {
    const seen: string[] = [];
    let n = 0;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push(`${req.method ?? ''} ${String(req.headers['x-api-key'] ?? '')} ${body}`);
        res.writeHead(++n % 4 === 0 ? 429 : 200, { 'content-type': 'application/json' });
        res.end('x'.repeat(100_000));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const post = httpFetcher(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { 'x-api-key': 'k1' }, body: '{"a":1}' });
      const one = await post();
      assert.equal(one.status, 200);
      assert.equal(((await one.arrayBuffer()) as Buffer).length, 100_000);
      const result = await closedLoop(post, 3, 11);
      assert.deepEqual(result.statuses, { '200': 8, '429': 3 });
      assert.equal(result.served, false);
      assert.ok(seen.every((line) => line === 'POST k1 {"a":1}'), seen[0]);
      assert.equal(seen.length, 12);
    } finally {
      server.close();
    }
  });

  it('a request reset on a reused keep-alive connection is sent once more on a new one, and counted', async () => {
    const seenOn = new Map<unknown, number>();
    let resets = 0;
    const server = createServer((req, res) => {
      const n = (seenOn.get(req.socket) ?? 0) + 1;
      seenOn.set(req.socket, n);
      // The second request on a connection finds it closed, as an idle keep-alive connection the server timed out is.
      if (n === 2 && resets === 0) {
        resets++;
        req.socket.destroy();
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await closedLoop(httpFetcher(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {} }), 1, 4);
      assert.deepEqual(result.statuses, { '200': 4 });
      assert.equal(resets, 1, 'the server did reset one reused connection');
      assert.equal(result.retries, 1);
      assert.equal(result.served, true);
    } finally {
      server.close();
    }
  });
});
