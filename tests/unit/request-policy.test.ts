// What the runtime refuses before a handler reads a body (issue 11, items 3 and 12): bodies
// over the route's limit (413, by Content-Length and by counting a chunked stream), bodies
// that are not JSON unless the route declares form encoding (415), and state-changing
// requests from another site (403 cross_site_request), which a form on any web page could
// otherwise send with the victim's cookie.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { createApp } from '../../runtime/http/app.ts';
import { parseTrustedProxies } from '../../runtime/http/client-ip.ts';
import { DEFAULT_BODY_LIMIT_BYTES, defineRoute, type Route } from '../../handlers/route.ts';
import { silentLogger } from '../../runtime/log.ts';
import { testApp } from '../support/app.ts';
import { testServices } from '../support/services.ts';

const BIG_LIMIT = 4 * 1024 * 1024;
const ENV = { incoming: { socket: { remoteAddress: '192.0.2.10' } } };

/** A public route per declaration, each counting the calls that reached its handler. */
async function spyApp(trustedProxies = '') {
  const calls = { plain: 0, big: 0, form: 0 };
  const policy = { access: { auth: 'public' }, audit: 'write', rateLimit: 'write', feature: null, output: v.object({ got: v.number() }) } as const;
  const input = v.object({ data: v.optional(v.string()) });
  const spyRoutes: Route[] = [
    defineRoute({ ...policy, method: 'POST', path: '/spy', summary: 'default limits', input, handler: (i) => ok({ got: (calls.plain++, i.data?.length ?? 0) }) }),
    defineRoute({ ...policy, method: 'POST', path: '/spy/big', summary: 'declares a larger body', bodyLimitBytes: BIG_LIMIT, input, handler: (i) => ok({ got: (calls.big++, i.data?.length ?? 0) }) }),
    defineRoute({ ...policy, method: 'POST', path: '/spy/form', summary: 'declares form bodies', bodyFormats: ['json', 'form'], crossOrigin: 'allow', input, handler: (i) => ok({ got: (calls.form++, i.data?.length ?? 0) }) }),
  ];
  const services = await testServices({ rateLimits: { read: 1e6, write: 1e6, login: 1e6, ai: 1e6, discovery: 1e6, register: 1e6 } });
  const app = createApp({ routes: spyRoutes, services, middleware: services.middleware, validateOutput: true, trustedProxies: parseTrustedProxies(trustedProxies), log: silentLogger });
  return { app, calls };
}

/** A JSON body of exactly `bytes` bytes: `{"data":"xxx…"}`. */
function jsonOfSize(bytes: number): string {
  const overhead = '{"data":""}'.length;
  return `{"data":"${'x'.repeat(bytes - overhead)}"}`;
}

/** The same bytes as a stream with no Content-Length (chunked on the wire). */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
      offset += 64 * 1024;
    },
  });
}

const json = { 'content-type': 'application/json' };

describe('request body limits', () => {
  it('answers 413 payload_too_large for limit+1 bytes by Content-Length, and the handler never runs', async () => {
    const h = await spyApp();
    const atLimit = await h.app.request('/spy', { method: 'POST', headers: json, body: jsonOfSize(DEFAULT_BODY_LIMIT_BYTES) }, ENV);
    assert.equal(atLimit.status, 200, 'exactly the limit is fine');
    const body = jsonOfSize(DEFAULT_BODY_LIMIT_BYTES + 1);
    const res = await h.app.request('/spy', { method: 'POST', headers: { ...json, 'content-length': String(body.length) }, body }, ENV);
    assert.equal(res.status, 413);
    const answer = (await res.json()) as { error: string; message: string };
    assert.equal(answer.error, 'payload_too_large');
    assert.match(answer.message, /1048576/);
    assert.equal(h.calls.plain, 1, 'only the request at the limit reached the handler');
  });

  it('counts a streamed body without Content-Length and stops at limit+1', async () => {
    const h = await spyApp();
    const res = await h.app.request('/spy', { method: 'POST', headers: json, body: streamed(jsonOfSize(DEFAULT_BODY_LIMIT_BYTES + 1)), duplex: 'half' }, ENV);
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: string }).error, 'payload_too_large');
    assert.equal(h.calls.plain, 0);
    const fits = await h.app.request('/spy', { method: 'POST', headers: json, body: streamed(jsonOfSize(1000)), duplex: 'half' }, ENV);
    assert.equal(fits.status, 200, 'a small streamed body still arrives whole');
    assert.deepEqual(await fits.json(), { got: 1000 - '{"data":""}'.length });
  });

  it("takes a larger body only where the route declares one, and still caps it at that route's limit", async () => {
    const h = await spyApp();
    const twoMiB = jsonOfSize(2 * 1024 * 1024);
    assert.equal((await h.app.request('/spy', { method: 'POST', headers: json, body: twoMiB }, ENV)).status, 413);
    assert.equal((await h.app.request('/spy/big', { method: 'POST', headers: json, body: twoMiB }, ENV)).status, 200);
    const over = jsonOfSize(BIG_LIMIT + 1);
    assert.equal((await h.app.request('/spy/big', { method: 'POST', headers: { ...json, 'content-length': String(over.length) }, body: over }, ENV)).status, 413);
    assert.equal((await h.app.request('/spy/big', { method: 'POST', headers: json, body: streamed(over), duplex: 'half' }, ENV)).status, 413);
    assert.equal(h.calls.big, 1);
  });

  it('refuses an oversized sign-in before the password check runs', async () => {
    const h = await testApp();
    const body = JSON.stringify({ username: 'admin', password: 'p'.repeat(DEFAULT_BODY_LIMIT_BYTES) });
    const res = await h.app.request('/auth/login', { method: 'POST', headers: json, body: streamed(body), duplex: 'half' }, ENV);
    assert.equal(res.status, 413);
  });

  it('declares no route limit above what the dashboard proxy accepts', async () => {
    const { routes } = await import('../../runtime/routes.ts');
    const { UI_BODY_LIMIT_BYTES } = await import('../../ui/server.ts');
    for (const route of routes) assert.ok(route.bodyLimitBytes <= UI_BODY_LIMIT_BYTES, `${route.method} ${route.path}`);
  });
});

describe('body formats', () => {
  it('takes JSON only: text/plain, form and missing content types get 415 unsupported_media_type', async () => {
    const h = await spyApp();
    const payload = JSON.stringify({ data: 'abc' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', null]) {
      const headers: Record<string, string> = type === null ? {} : { 'content-type': type };
      const res = await h.app.request('/spy', { method: 'POST', headers, body: type === 'application/x-www-form-urlencoded' ? 'data=abc' : payload }, ENV);
      assert.equal(res.status, 415, String(type));
      const answer = (await res.json()) as { error: string; field: string };
      assert.equal(answer.error, 'unsupported_media_type');
      assert.equal(answer.field, 'content-type');
    }
    assert.equal(h.calls.plain, 0);
    const withCharset = await h.app.request('/spy', { method: 'POST', headers: { 'content-type': 'Application/JSON; charset=utf-8' }, body: payload }, ENV);
    assert.equal(withCharset.status, 200);
    assert.equal((await h.app.request('/spy', { method: 'POST' }, ENV)).status, 200, 'no body needs no content type');
  });

  it('takes form bodies where the route declares them', async () => {
    const h = await spyApp();
    const res = await h.app.request('/spy/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'data=abcd' }, ENV);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { got: 4 });
    assert.equal((await h.app.request('/spy/form', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'data=abcd' }, ENV)).status, 415);
  });
});

describe('cross-site requests', () => {
  it("refuses a form POST from another origin that would create an admin with the victim's cookie", async () => {
    const h = await testApp();
    const cookie = await h.signIn('admin');
    const form = await h.app.request('/api/agent/admin/users', {
      method: 'POST',
      headers: { cookie: `capstan_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'username=mallory&password=mallory-password&role=admin',
    }, ENV);
    assert.equal(form.status, 403);
    assert.equal(((await form.json()) as { error: string }).error, 'cross_site_request');
    const users = await h.call('GET', '/api/agent/admin/users', { cookie });
    assert.doesNotMatch(users.text, /mallory/);
  });

  it('refuses a text/plain body even from the same origin, and a foreign Origin even with JSON', async () => {
    const h = await testApp();
    const cookie = await h.signIn('admin');
    const body = JSON.stringify({ username: 'mallory', password: 'mallory-password', role: 'admin' });
    const plain = await h.app.request('/api/agent/admin/users', { method: 'POST', headers: { cookie: `capstan_session=${cookie}`, 'content-type': 'text/plain', origin: 'http://localhost' }, body }, ENV);
    assert.equal(plain.status, 415);
    const foreign = await h.app.request('/api/agent/admin/users', { method: 'POST', headers: { cookie: `capstan_session=${cookie}`, ...json, origin: 'http://evil.example' }, body }, ENV);
    assert.equal(foreign.status, 403);
    const fetchSite = await h.app.request('/api/agent/admin/users', { method: 'POST', headers: { cookie: `capstan_session=${cookie}`, ...json, 'sec-fetch-site': 'cross-site' }, body }, ENV);
    assert.equal(fetchSite.status, 403);
    assert.equal(((await fetchSite.json()) as { error: string }).error, 'cross_site_request');
    const users = await h.call('GET', '/api/agent/admin/users', { cookie });
    assert.doesNotMatch(users.text, /mallory/);
  });

  it('takes same-origin JSON, JSON with no Origin (a CLI), and reads from anywhere', async () => {
    const h = await testApp();
    const cookie = await h.signIn('admin');
    const sameOrigin = await h.app.request('/api/agent/admin/users', {
      method: 'POST',
      headers: { cookie: `capstan_session=${cookie}`, ...json, origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ username: 'alice', password: 'alice-password', role: 'viewer' }),
    }, ENV);
    assert.equal(sameOrigin.status, 200, await sameOrigin.text());
    const cli = await h.call('POST', '/api/agent/admin/users', { cookie, body: { username: 'bob', password: 'bob-password', role: 'viewer' } });
    assert.equal(cli.status, 200);
    const read = await h.call('GET', '/api/agent/admin/users', { cookie, headers: { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' } });
    assert.equal(read.status, 200, 'a read changes nothing; CORS keeps its answer from the other site');
  });

  it("compares Origin with the origin a trusted proxy reports (the dashboard's), not the agent's own", async () => {
    const h = await spyApp('10.0.0.1');
    const viaUi = { incoming: { socket: { remoteAddress: '10.0.0.1' } } };
    const headers = { ...json, origin: 'https://capstan.example', 'x-forwarded-host': 'capstan.example', 'x-forwarded-proto': 'https' };
    assert.equal((await h.app.request('/spy', { method: 'POST', headers, body: '{}' }, viaUi)).status, 200);
    assert.equal((await h.app.request('/spy', { method: 'POST', headers, body: '{}' }, ENV)).status, 403, 'an untrusted peer cannot name the origin');
  });

  it('lets a route that declares it (the OAuth token endpoint) take cross-origin form posts', async () => {
    const h = await spyApp();
    const res = await h.app.request('/spy/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:6274', 'sec-fetch-site': 'cross-site' }, body: 'data=ab' }, ENV);
    assert.equal(res.status, 200);
    const { routes } = await import('../../runtime/routes.ts');
    const token = routes.find((r) => r.path === '/oauth/token');
    assert.deepEqual(token?.bodyFormats, ['form', 'json']);
    assert.equal(token.crossOrigin, 'allow');
  });
});
