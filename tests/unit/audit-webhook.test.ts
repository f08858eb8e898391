import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { AuditWebhookForwarder, type ForwarderOptions, type WebhookTarget } from '../../runtime/audit/webhook-forwarder.ts';
import { createOutboundClient } from '../../runtime/outbound/client.ts';
import { testApp } from '../support/app.ts';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  events: { id: number }[];
}

interface Collector {
  port: number;
  url: string;
  received: Received[];
  /** Every event id received, in arrival order. */
  ids(): number[];
  /** The status the collector answers with (200 unless changed). */
  status: number;
  /** Resolves once at least `count` events have arrived. */
  waitForEvents(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP collector on 127.0.0.1 (port 0 = any free port). */
async function startCollector(t: TestContext, port = 0): Promise<Collector> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: { id: number }[] };
      received.push({ method: req.method, url: req.url, headers: req.headers, events: body.events });
      res.writeHead(collector.status, { 'content-type': 'text/plain' });
      // Echo the credential back: the forwarder must not copy the collector's answer into last_error.
      res.end(`status ${collector.status} for ${req.headers.authorization ?? 'anonymous'}`);
      const total = collector.ids().length;
      for (const waiter of waiters.filter((w) => total >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actualPort = (server.address() as AddressInfo).port;
  let closed = false;
  const collector: Collector = {
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}/ingest`,
    received,
    status: 200,
    ids: () => received.flatMap((r) => r.events.map((e) => e.id)),
    waitForEvents: (count) =>
      collector.ids().length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  t.after(() => collector.close());
  return collector;
}

/** A port on which nothing listens (a collector that is down). */
async function closedPort(t: TestContext): Promise<number> {
  const probe = await startCollector(t);
  await probe.close();
  return probe.port;
}

interface Warning {
  msg: string;
  fields: Record<string, unknown> | undefined;
}

const outbound = createOutboundClient({ policy: { allowLoopback: true, kubernetesApiHosts: [] } });

function forwarder(t: TestContext, target: () => WebhookTarget | null, options: Partial<ForwarderOptions> = {}) {
  const warnings: Warning[] = [];
  const fwd = new AuditWebhookForwarder({
    target,
    // Retries in these tests are driven by explicit flush() calls; the backoff timer (unref'd,
    // cleared by stop()) is long so it cannot add an attempt behind a test's back.
    retryBaseMs: 60_000,
    timeoutMs: 2000,
    log: { warn: (msg, fields) => warnings.push({ msg, fields }) },
    // The production client with the dev switch on: the collectors here listen on 127.0.0.1.
    fetch: outbound.fetcher({ timeoutMs: 2000, maxResponseBytes: 64 * 1024 }),
    ...options,
  });
  t.after(() => fwd.stop());
  return { fwd, warnings };
}

/** Polls until `condition` holds (the collector sees a POST before the forwarder sees its answer). */
async function waitUntil(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const events = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ id: from + i, action: 'GET /api/agent/namespaces' }));

describe('audit webhook forwarder', () => {
  it('delivers events in order as one JSON batch with the Bearer token and its own user agent', async (t) => {
    const collector = await startCollector(t);
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: 'tok-123' }));
    for (const e of events(1, 6)) fwd.enqueue(e);
    await fwd.flush();

    assert.deepEqual(collector.ids(), [1, 2, 3, 4, 5]);
    assert.equal(collector.received.length, 1);
    const req = collector.received[0];
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/ingest');
    assert.equal(req.headers.authorization, 'Bearer tok-123');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['user-agent'], 'capstan-audit/1');
    assert.deepEqual(req.events[0], { id: 1, action: 'GET /api/agent/namespaces' });
    const stats = fwd.stats();
    assert.equal(stats.queued, 0);
    assert.equal(stats.delivered, 5);
    assert.equal(stats.failures, 0);
    assert.equal(stats.last_error, null);
    assert.ok(stats.last_delivered_at !== null && !Number.isNaN(Date.parse(stats.last_delivered_at)));
  });

  it('sends no authorization header when the token is null', async (t) => {
    const collector = await startCollector(t);
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: null }));
    fwd.enqueue({ id: 1 });
    await fwd.flush();
    assert.deepEqual(collector.ids(), [1]);
    assert.equal(collector.received[0]?.headers.authorization, undefined);
  });

  it('splits a long queue into batches of maxBatch, one POST at a time, keeping the order', async (t) => {
    const collector = await startCollector(t);
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: null }), { maxBatch: 2 });
    for (const e of events(0, 5)) fwd.enqueue(e);
    await fwd.flush();
    assert.deepEqual(collector.received.map((r) => r.events.length), [2, 2, 1]);
    assert.deepEqual(collector.ids(), [0, 1, 2, 3, 4]);
    assert.equal(fwd.stats().delivered, 5);
  });

  it('streams on its own shortly after enqueue, without a flush', async (t) => {
    const collector = await startCollector(t);
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: 't' }));
    for (const e of events(0, 3)) fwd.enqueue(e);
    await collector.waitForEvents(3);
    assert.deepEqual(collector.ids(), [0, 1, 2]);
    await waitUntil(() => fwd.stats().delivered === 3, 'the forwarder counts the delivery');
  });

  it('with the collector down, enqueue returns at once and loses nothing; once it is up, every event arrives exactly once, in order', async (t) => {
    const port = await closedPort(t);
    const { fwd, warnings } = forwarder(t, () => ({ url: `http://127.0.0.1:${port}/ingest`, token: 'secret-down' }));

    const started = performance.now();
    for (const e of events(0, 50)) assert.equal(fwd.enqueue(e), undefined);
    assert.ok(performance.now() - started < 50, 'enqueue must not wait for the network');
    assert.equal(fwd.stats().queued, 50);

    await fwd.flush();
    await fwd.flush();
    let stats = fwd.stats();
    assert.equal(stats.queued, 50, 'failed events stay queued');
    assert.equal(stats.delivered, 0);
    assert.equal(stats.dropped, 0);
    assert.equal(stats.failures, 2);
    assert.ok(stats.last_error !== null && stats.last_error.length > 0);
    assert.ok(warnings.some((w) => w.msg.includes('delivery failed')));

    for (const e of events(50, 60)) fwd.enqueue(e);
    const collector = await startCollector(t, port);
    await fwd.flush();

    assert.deepEqual(collector.ids(), events(0, 60).map((e) => e.id));
    stats = fwd.stats();
    assert.equal(stats.queued, 0);
    assert.equal(stats.delivered, 60);
    assert.equal(stats.failures, 2);
    assert.ok(stats.last_delivered_at !== null);
  });

  it('retries by itself with backoff once the collector is reachable again', async (t) => {
    const port = await closedPort(t);
    let url = `http://127.0.0.1:${port}/ingest`;
    const { fwd } = forwarder(t, () => ({ url, token: null }), { retryBaseMs: 20, retryMaxMs: 40 });
    fwd.enqueue({ id: 1 });
    fwd.enqueue({ id: 2 });
    await fwd.flush();
    assert.equal(fwd.stats().failures, 1);
    const collector = await startCollector(t);
    url = collector.url; // the setting is runtime-editable: the target is read per send
    await collector.waitForEvents(2);
    assert.deepEqual(collector.ids(), [1, 2]);
    await waitUntil(() => fwd.stats().queued === 0, 'the forwarder counts the delivery');
    assert.equal(fwd.stats().delivered, 2);
  });

  it('keeps events queued while the collector answers 500, counting failures, and re-sends them in order later', async (t) => {
    const collector = await startCollector(t);
    collector.status = 500;
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: 'tok' }));
    for (const e of events(0, 3)) fwd.enqueue(e);

    await fwd.flush();
    let stats = fwd.stats();
    assert.equal(stats.queued, 3);
    assert.equal(stats.delivered, 0);
    assert.equal(stats.failures, 1);
    assert.match(stats.last_error ?? '', /500/);

    fwd.enqueue({ id: 3 });
    await fwd.flush();
    stats = fwd.stats();
    assert.equal(stats.queued, 4);
    assert.equal(stats.failures, 2);
    assert.deepEqual(collector.received.map((r) => r.events.map((e) => e.id)), [[0, 1, 2], [0, 1, 2, 3]]);

    collector.status = 204;
    await fwd.flush();
    stats = fwd.stats();
    assert.equal(stats.queued, 0);
    assert.equal(stats.delivered, 4);
    assert.deepEqual(collector.received.at(-1)?.events.map((e) => e.id), [0, 1, 2, 3]);
  });

  it('counts a redirect as a failure and does not follow it', async (t) => {
    const collector = await startCollector(t);
    collector.status = 302;
    const { fwd } = forwarder(t, () => ({ url: collector.url, token: null }));
    fwd.enqueue({ id: 1 });
    await fwd.flush();
    assert.equal(collector.received.length, 1);
    assert.equal(fwd.stats().failures, 1);
    assert.equal(fwd.stats().queued, 1);
    assert.match(fwd.stats().last_error ?? '', /302/);
  });

  it('drops the oldest queued events beyond maxQueue and counts them', async (t) => {
    const port = await closedPort(t);
    let url = `http://127.0.0.1:${port}/ingest`;
    const { fwd, warnings } = forwarder(t, () => ({ url, token: null }), { maxQueue: 3 });
    for (const e of events(0, 5)) fwd.enqueue(e);
    assert.deepEqual({ queued: fwd.stats().queued, dropped: fwd.stats().dropped }, { queued: 3, dropped: 2 });
    assert.equal(warnings.filter((w) => w.msg.includes('queue full')).length, 1);

    await fwd.flush(); // fails: still bounded, nothing else lost
    for (const e of events(5, 7)) fwd.enqueue(e);
    assert.deepEqual({ queued: fwd.stats().queued, dropped: fwd.stats().dropped }, { queued: 3, dropped: 4 });

    const collector = await startCollector(t);
    url = collector.url;
    await fwd.flush();
    assert.deepEqual(collector.ids(), [4, 5, 6]);
    assert.deepEqual({ queued: fwd.stats().queued, delivered: fwd.stats().delivered, dropped: fwd.stats().dropped }, { queued: 0, delivered: 3, dropped: 4 });
  });

  it('sends nothing while streaming is off, and discards what was queued when it is switched off', async (t) => {
    const collector = await startCollector(t);
    let target: WebhookTarget | null = null;
    const { fwd } = forwarder(t, () => target);

    fwd.enqueue({ id: 1 });
    assert.equal(fwd.stats().queued, 0);
    await fwd.flush();

    target = { url: collector.url, token: null };
    collector.status = 503;
    fwd.enqueue({ id: 2 });
    await fwd.flush(); // fails: stays queued
    assert.equal(fwd.stats().queued, 1);
    target = null;
    collector.status = 200;
    await fwd.flush();

    assert.deepEqual(collector.ids(), [2], 'only the failed attempt reached the collector');
    assert.equal(fwd.stats().queued, 0);
    assert.equal(fwd.stats().delivered, 0);
  });

  it('never puts the token in last_error or in its warnings', async (t) => {
    const token = 'sup3r-s3cret-t0ken';
    const collector = await startCollector(t);
    collector.status = 401; // and its body echoes the Authorization header back
    let target: WebhookTarget = { url: collector.url, token };
    const { fwd, warnings } = forwarder(t, () => target);
    fwd.enqueue({ id: 1 });
    await fwd.flush();
    assert.match(fwd.stats().last_error ?? '', /401/);
    assert.doesNotMatch(fwd.stats().last_error ?? '', new RegExp(token));

    // An unparseable URL makes fetch repeat the URL in its error; here it carries the token.
    target = { url: `http://[bad-host/?key=${token}`, token };
    await fwd.flush();
    assert.ok(fwd.stats().last_error !== null);
    assert.doesNotMatch(fwd.stats().last_error ?? '', new RegExp(token));

    const port = await closedPort(t);
    target = { url: `http://127.0.0.1:${port}/`, token };
    await fwd.flush();
    assert.equal(fwd.stats().failures, 3);
    assert.doesNotMatch(fwd.stats().last_error ?? '', new RegExp(token));
    assert.doesNotMatch(JSON.stringify(warnings), new RegExp(token));
  });

  it('enqueue never throws, even for an unserializable event or a failing target()', (t) => {
    const { fwd } = forwarder(t, () => {
      throw new Error('settings unavailable');
    });
    assert.doesNotThrow(() => fwd.enqueue({ id: 1 }));
    const { fwd: other } = forwarder(t, () => ({ url: 'http://127.0.0.1:9/', token: null }));
    assert.doesNotThrow(() => other.enqueue({ id: 1n }));
    assert.equal(other.stats().queued, 0);
    assert.equal(other.stats().dropped, 1);
  });
});

describe('audit webhook settings', () => {
  const settingsPath = '/admin/settings/audit-stream';

  it('refuses a new webhook_url that would carry the stored token along, and clears the token when streaming is turned off', async (t) => {
    const h = await testApp();
    t.after(() => h.services.stop());
    const admin = await h.signIn();
    const set = await h.call('PUT', settingsPath, { cookie: admin, body: { webhook_url: 'https://siem.example/ingest', webhook_token: 'siem-token-1' } });
    assert.equal(set.status, 200, set.text);
    const target = async () => {
      const stored = await h.services.settingsStore.get('audit_stream');
      return { url: stored.webhook_url, token: stored.webhook_token_sealed === null ? null : h.services.secrets.open(stored.webhook_token_sealed) };
    };

    // Another host with the token omitted or masked: the stored token must not follow it there.
    for (const body of [{ webhook_url: 'https://attacker.example/x' }, { webhook_url: 'https://attacker.example/x', webhook_token: '••••' }]) {
      const moved = await h.call('PUT', settingsPath, { cookie: admin, body });
      assert.deepEqual([moved.status, moved.body.error, moved.body.field], [400, 'invalid_input', 'webhook_token'], moved.text);
      assert.match(String(moved.body.message), /webhook_url/);
    }
    assert.deepEqual(await target(), { url: 'https://siem.example/ingest', token: 'siem-token-1' }, 'a refused change leaves the setting as it was');

    // The same URL keeps the stored token; a new URL with the token typed again is accepted.
    assert.equal((await h.call('PUT', settingsPath, { cookie: admin, body: { webhook_url: 'https://siem.example/ingest' } })).status, 200);
    assert.deepEqual(await target(), { url: 'https://siem.example/ingest', token: 'siem-token-1' });
    const moved = await h.call('PUT', settingsPath, { cookie: admin, body: { webhook_url: 'https://siem2.example/ingest', webhook_token: 'siem-token-2' } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(await target(), { url: 'https://siem2.example/ingest', token: 'siem-token-2' });

    // Turning streaming off forgets the token, so a later URL cannot pick it up.
    const off = await h.call('PUT', settingsPath, { cookie: admin, body: { webhook_url: null, webhook_token: '••••' } });
    assert.deepEqual([off.status, off.body.webhook_url, off.body.webhook_token], [200, null, null], off.text);
    const on = await h.call('PUT', settingsPath, { cookie: admin, body: { webhook_url: 'https://attacker.example/x', webhook_token: '••••' } });
    assert.deepEqual([on.status, on.body.webhook_token], [200, null], on.text);
    assert.deepEqual(await target(), { url: 'https://attacker.example/x', token: null });
  });
});
