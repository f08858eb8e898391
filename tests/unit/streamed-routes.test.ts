// Streamed routes (a declaration's `stream`): the runtime applies the whole policy chain before
// the first byte, writes SSE with heartbeats and unbuffered headers, checks each event against
// its schema in tests, aborts the handler when the client goes away, keeps re-checking the
// credential while the stream is open (revocation, deactivation, demotion, expiry, a lost
// scope, an IP ban close it), and caps open streams per user and in total (429). Test-only
// routes over the production chain and services.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { defineRoute, type Route } from '../../handlers/route.ts';
import { streamOf } from '../../handlers/stream.ts';
import { NoInput } from '../../schema/common.ts';
import { createApp } from '../../runtime/http/app.ts';
import type { StreamOptions } from '../../runtime/http/streams.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

const Tick = v.variant('type', [v.object({ type: v.literal('tick'), n: v.number() }), v.object({ type: v.literal('error'), error: v.string(), message: v.string() })]);
const Done = v.object({ ticks: v.number() });

/** What the test routes' handlers saw: how many ran, and whose signal fired. */
const seen = { opened: 0, aborted: 0 };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ticks every `everyMs` until its signal fires (or `count` ticks). */
function ticking(count: number, everyMs: number) {
  seen.opened++;
  return ok({
    events: streamOf<v.InferOutput<typeof Tick>>(async (emit, signal) => {
      signal.addEventListener('abort', () => seen.aborted++, { once: true });
      for (let n = 1; n <= count && !signal.aborted; n++) {
        emit({ type: 'tick', n });
        await wait(everyMs);
      }
    }),
    json: () => Promise.resolve({ ticks: count }),
  });
}

const viewerStream = { access: { auth: 'credential', role: 'viewer', scope: 'activity:read' }, audit: 'http', rateLimit: 'read', feature: null } as const;
const testRoutes: Route[] = [
  defineRoute({ ...viewerStream, method: 'GET', path: '/test/ticks', summary: 't', input: v.object({ count: v.optional(v.pipe(v.string(), v.transform(Number), v.integer()), '1000'), every: v.optional(v.pipe(v.string(), v.transform(Number)), '5') }), output: Done, stream: { event: Tick }, handler: (i) => ticking(i.count, i.every) }),
  defineRoute({ access: { auth: 'credential', role: 'admin', scope: 'activity:read' }, audit: 'http', rateLimit: 'read', feature: null, method: 'GET', path: '/test/admin-ticks', summary: 't', input: NoInput, output: Done, stream: { event: Tick }, handler: () => ticking(1000, 5) }),
  defineRoute({
    ...viewerStream,
    method: 'GET',
    path: '/test/drift',
    summary: 't',
    input: NoInput,
    output: Done,
    stream: { event: Tick },
    // A handler whose event drifts from the declared schema.
    handler: () =>
      ok({
        events: streamOf<v.InferOutput<typeof Tick>>((emit) => {
          emit({ type: 'tick', n: 'one' as unknown as number });
          return Promise.resolve();
        }),
      }),
  }),
];

async function streamApp(streams: Partial<StreamOptions> = {}) {
  const clock = new ManualClock();
  const services = await testServices({ clock, rateLimits: UNLIMITED_RATE_LIMITS });
  const app = createApp({ routes: [...routes, ...testRoutes], rawEndpoints, services, middleware: services.middleware, validateOutput: true, corsOrigins: services.corsOrigins, streams: { heartbeatMs: 20, recheckMs: 20, ...streams }, log: silentLogger });
  const request = (method: string, path: string, opts: { cookie?: string; key?: string; ip?: string; accept?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: opts.accept ?? 'text/event-stream' };
    if (opts.cookie !== undefined) headers.cookie = `capstan_session=${opts.cookie}`;
    if (opts.key !== undefined) headers['x-api-key'] = opts.key;
    return app.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }, { incoming: { socket: { remoteAddress: opts.ip ?? '192.0.2.10' } } });
  };
  const signIn = async (username: string, password: string, ip = '192.0.2.10') => {
    const res = await request('POST', '/auth/login', { body: { username, password }, accept: 'application/json', ip });
    assert.equal(res.status, 200, await res.clone().text());
    return /capstan_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  };
  const userId = async (username: string) => (await services.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
  return { app, clock, services, request, signIn, userId };
}

/** Reads an SSE body as it arrives: its text so far, and whether it has ended. */
function reading(res: Response) {
  const body = res.body;
  assert.ok(body, 'a streamed answer has a body');
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const state = { text: '', ended: false };
  const done = (async () => {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      state.text += decoder.decode(chunk.value as Uint8Array, { stream: true });
    }
    state.ended = true;
  })();
  /** Waits (real time) until `predicate` holds, failing after `ms`. */
  const until = async (predicate: () => boolean, what: string, ms = 2000) => {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline) assert.fail(`${what} did not happen within ${ms} ms; got:\n${state.text.slice(-500)}`);
      await wait(5);
    }
  };
  return { state, done, until, cancel: () => reader.cancel() };
}

/** The events of an SSE text, in order. */
function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => /^event: /m.test(block))
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1] ?? '', data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown> }));
}

describe('streamed routes: the answer', () => {
  it('is SSE (event: <type>, data: JSON) with no-cache and no proxy buffering, and heartbeats while open', async () => {
    const h = await streamApp({ heartbeatMs: 10 });
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const res = await h.request('GET', '/test/ticks?count=3&every=40', { cookie });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const r = reading(res);
    await r.done;
    assert.deepEqual(events(r.state.text), [1, 2, 3].map((n) => ({ event: 'tick', data: { type: 'tick', n } })));
    assert.match(r.state.text, /^: ping$/m, 'a heartbeat comment between the events');
  });

  it('is the one JSON answer for a client that does not accept text/event-stream', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const res = await h.request('GET', '/api/agent/test/ticks?count=2', { cookie, accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ticks: 2 });
  });

  it('refuses bad input with 400 and the field before the handler runs', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const before = seen.opened;
    const res = await h.request('GET', '/test/ticks?count=1.5', { cookie });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { field: string }).field, 'count');
    assert.equal(seen.opened, before);
  });

  it('ends with an internal error event when an event drifts from its schema (tests check every event)', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const r = reading(await h.request('GET', '/test/drift', { cookie }));
    await r.done;
    assert.deepEqual(events(r.state.text), [{ event: 'error', data: { type: 'error', error: 'internal', message: 'an event failed its own schema' } }]);
  });

  it("aborts the handler's signal when the client goes away, and frees the slot", async () => {
    const h = await streamApp({ maxPerUser: 1 });
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const r = reading(await h.request('GET', '/test/ticks', { cookie }));
    await r.until(() => events(r.state.text).length > 0, 'the first event');
    const aborted = seen.aborted;
    await r.cancel();
    await r.done;
    assert.equal(seen.aborted, aborted + 1, 'the handler saw its signal fire');
    const again = await h.request('GET', '/test/ticks?count=1', { cookie });
    assert.equal(again.status, 200, 'the closed stream freed its slot');
    await again.text();
  });
});

describe('streamed routes: every policy before the first byte', () => {
  it('refuses a request without a credential (401) and an API key without the scope (403) before any handler runs', async () => {
    const h = await streamApp();
    const before = seen.opened;
    const anonymous = await h.request('GET', '/test/ticks');
    assert.equal(anonymous.status, 401);
    const { key } = await h.services.auth.createApiKey(await h.userId('viewer'), 'k', ['apps:read'], null);
    const keyed = await h.request('GET', '/test/ticks', { key });
    assert.equal(keyed.status, 403);
    assert.deepEqual(await keyed.json(), { error: 'api_key_insufficient_scope', message: 'this route needs the activity:read scope', scope: 'activity:read' });
    assert.equal(seen.opened, before, 'no handler ran');
    const viewer = await h.signIn('viewer', VIEWER_PASSWORD);
    assert.equal((await h.request('GET', '/test/admin-ticks', { cookie: viewer })).status, 403, 'the role, too');
    assert.equal(seen.opened, before);
  });
});

describe('streamed routes: the credential is re-checked while open', () => {
  /** Opens a stream, waits for its first event, does `change`, and expects the stream to end with `error` within the re-check interval. */
  async function closedBy(h: Awaited<ReturnType<typeof streamApp>>, open: Response | Promise<Response>, change: () => unknown, error: string) {
    const res = await open;
    assert.equal(res.status, 200);
    const r = reading(res);
    await r.until(() => events(r.state.text).length > 0, 'the first event');
    const aborted = seen.aborted;
    await change();
    // Re-checked every 20 ms here; the margin is for a loaded machine.
    await r.until(() => r.state.ended, 'the stream closing', 3000);
    const last = events(r.state.text).at(-1);
    assert.equal(last?.event, 'error');
    assert.equal(last.data.error, error, JSON.stringify(last.data));
    assert.equal(typeof last.data.message, 'string');
    assert.equal(seen.aborted, aborted + 1, "the handler's signal fired");
    return h;
  }

  it('a revoked session closes its open stream (401 unauthenticated)', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    await closedBy(h, h.request('GET', '/test/ticks', { cookie }), () => h.request('POST', '/auth/logout', { cookie, accept: 'application/json' }), 'unauthenticated');
  });

  it('an expired session closes its open stream, which does not itself keep the session alive', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const { session_idle_timeout_secs: idle } = await h.services.settingsStore.get('security');
    assert.ok(idle > 0);
    const stream = h.request('GET', '/test/ticks', { cookie });
    await closedBy(
      h,
      stream,
      async () => {
        // Half the idle timeout, then re-checks: were they to slide the session, it would live on.
        h.clock.advance((idle * 1000) / 2);
        await wait(100);
        h.clock.advance((idle * 1000) / 2 + 1000);
      },
      'unauthenticated',
    );
  });

  it('a deactivated user loses the stream', async () => {
    const h = await streamApp();
    const admin = await h.signIn('admin', ADMIN_PASSWORD);
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    await closedBy(h, h.request('GET', '/test/ticks', { cookie }), () => h.request('PATCH', '/admin/users/viewer', { cookie: admin, accept: 'application/json', body: { active: false } }), 'unauthenticated');
  });

  it("a demoted admin's admin-only stream closes (403 forbidden)", async () => {
    const h = await streamApp();
    const admin = await h.signIn('admin', ADMIN_PASSWORD);
    const created = await h.request('POST', '/admin/users', { cookie: admin, accept: 'application/json', body: { username: 'ops', password: 'ops password 1', role: 'admin' } });
    assert.equal(created.status, 200, await created.text());
    const ops = await h.signIn('ops', 'ops password 1');
    await closedBy(h, h.request('GET', '/test/admin-ticks', { cookie: ops }), () => h.request('PATCH', '/admin/users/ops', { cookie: admin, accept: 'application/json', body: { role: 'viewer' } }), 'forbidden');
  });

  it("a revoked API key's stream closes", async () => {
    const h = await streamApp();
    const { key, record } = await h.services.auth.createApiKey(await h.userId('viewer'), 'k', ['activity:read'], null);
    await closedBy(h, h.request('GET', '/test/ticks', { key }), () => h.services.auth.revokeApiKey(record.id, null), 'unauthenticated');
  });

  it('an IP ban closes the streams from that address (403 ip_denied)', async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD, '198.51.100.7');
    const { auto_ban: policy } = await h.services.settingsStore.get('security');
    await closedBy(
      h,
      h.request('GET', '/test/ticks', { cookie, ip: '198.51.100.7' }),
      async () => {
        for (let i = 0; i < policy.threshold; i++) await h.services.ipGuard.recordForgedCredential('198.51.100.7', 'session_token');
      },
      'ip_denied',
    );
  });

  it('a stream whose credential still holds stays open across re-checks', async () => {
    const h = await streamApp({ recheckMs: 5 });
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const r = reading(await h.request('GET', '/test/ticks?count=20&every=5', { cookie }));
    await r.done;
    assert.equal(events(r.state.text).length, 20);
    assert.ok(events(r.state.text).every((e) => e.event === 'tick'));
  });
});

describe('streamed routes: caps', () => {
  it("a user's 6th open stream is 429 with Retry-After before it starts, and the first still runs", async () => {
    const h = await streamApp();
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const open = await Promise.all(Array.from({ length: 5 }, async () => h.request('GET', '/test/ticks', { cookie })));
    assert.deepEqual(open.map((r) => r.status), [200, 200, 200, 200, 200]);
    const before = seen.opened;
    const sixth = await h.request('GET', '/test/ticks', { cookie });
    assert.equal(sixth.status, 429);
    assert.ok(Number(sixth.headers.get('retry-after')) > 0);
    assert.deepEqual(Object.keys((await sixth.json()) as object).sort(), ['error', 'message']);
    assert.equal(seen.opened, before, 'refused before its handler ran');
    // Another user is not held to this one's cap; the first stream is still going.
    const admin = await h.signIn('admin', ADMIN_PASSWORD);
    const other = await h.request('GET', '/test/ticks?count=1', { cookie: admin });
    assert.equal(other.status, 200);
    await other.text();
    const first = reading(open[0] as Response);
    const seenSoFar = events(first.state.text).length;
    await first.until(() => events(first.state.text).length > seenSoFar + 2, 'the first stream going on');
    await first.cancel();
    for (const res of open.slice(1)) await res.body?.cancel();
  });

  it('the 201st open stream overall is 429', async () => {
    // Quiet streams (no ticks, heartbeats or re-checks to speak of): only the count matters here.
    const h = await streamApp({ maxPerUser: 1000, heartbeatMs: 60_000, recheckMs: 60_000 });
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const open = await Promise.all(Array.from({ length: 200 }, async () => h.request('GET', '/test/ticks?every=1000', { cookie })));
    assert.ok(open.every((r) => r.status === 200));
    const admin = await h.signIn('admin', ADMIN_PASSWORD);
    const past = await h.request('GET', '/test/ticks', { cookie: admin });
    assert.equal(past.status, 429);
    assert.ok(Number(past.headers.get('retry-after')) > 0);
    await (open[0] as Response).body?.cancel();
    const freed = await h.request('GET', '/test/ticks?count=1', { cookie: admin });
    assert.equal(freed.status, 200, 'a closed stream frees its slot');
    await freed.text();
    for (const res of open.slice(1)) await res.body?.cancel();
  });

  it('a JSON answer of a streamed route holds no stream slot', async () => {
    const h = await streamApp({ maxPerUser: 1 });
    const cookie = await h.signIn('viewer', VIEWER_PASSWORD);
    const open = await h.request('GET', '/test/ticks', { cookie });
    assert.equal(open.status, 200);
    const json = await h.request('GET', '/test/ticks?count=1', { cookie, accept: 'application/json' });
    assert.equal(json.status, 200);
    await open.body?.cancel();
  });
});
