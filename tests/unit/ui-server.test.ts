// `capstan ui` in front of the agent's real HTTP app (in-process services, a real socket):
// security headers on everything, the proxy keeps status, body and the session cookie, tells
// the agent who the client is, and says so when the agent is gone; every other path is the app.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { HSTS_HEADER, SECURITY_HEADERS, startUiServer, UI_BODY_LIMIT_BYTES, type RunningUi } from '../../ui/server.ts';
import { uiOptionsFromEnv } from '../../runtime/cli/ui-command.ts';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

let agentServer: ServerType;
let ui: RunningUi;
let agentUrl = '';

function fakeBuild(): string {
  const dist = mkdtempSync(join(tmpdir(), 'capstan-ui-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>');
  writeFileSync(join(dist, 'assets', 'app.js'), 'console.log("capstan")');
  return dist;
}

describe('capstan ui server', () => {
  before(async () => {
    const h = await testApp({ trustedProxies: '127.0.0.1/32' });
    agentServer = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    agentUrl = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}`;
    ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl, dist: fakeBuild() });
  });
  after(async () => {
    await ui.close();
    agentServer.close();
  });

  it('serves every dashboard path as the app, assets as files, all with the security headers', async () => {
    for (const path of ['/', '/incidents/shop/checkout-1', '/admin/audit?severity=critical']) {
      const res = await fetch(`${ui.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /<div id="root">/);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(res.headers.get(name), value, `${path} ${name}`);
    }
    const csp = SECURITY_HEADERS['Content-Security-Policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    // Inline code never runs; the one inline allowance is <style> elements a script creates (xterm.js's), never style attributes.
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name = '', ...values]) => [name, values]));
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('style-src'), ["'self'"]);
    assert.deepEqual(directives.get('style-src-attr'), ["'none'"]);
    assert.deepEqual([...directives].filter(([, values]) => values.includes("'unsafe-inline'")).map(([name]) => name), ['style-src-elem']);
    const asset = await fetch(`${ui.url}/assets/app.js`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${ui.url}/assets/missing.js`)).status, 404, 'a missing asset is not the app');
  });

  it('proxies the API with its status, errors and session cookie, and the client address', async () => {
    const anonymous = await fetch(`${ui.url}/api/agent/me`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, 'unauthenticated');
    assert.equal(anonymous.headers.get('x-frame-options'), 'DENY');

    const login = await fetch(`${ui.url}/api/agent/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    assert.equal(login.status, 200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^capstan_session=/);
    const me = await fetch(`${ui.url}/api/agent/me/sessions`, { headers: { cookie } });
    assert.equal(me.status, 200);
    const sessions = ((await me.json()) as { sessions: { ip: string }[] }).sessions;
    assert.deepEqual(sessions.map((s) => s.ip), ['203.0.113.9'], 'the agent saw the client, not the proxy');
  });

  it("answers OAuth discovery at the origin's root, naming the dashboard's origin, not the agent's", async () => {
    const metadata = (await (await fetch(`${ui.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
    assert.deepEqual(metadata, { ...metadata, issuer: ui.url, token_endpoint: `${ui.url}/api/agent/oauth/token` });
    const resource = (await (await fetch(`${ui.url}/.well-known/oauth-protected-resource/api/agent/mcp`)).json()) as { resource: string };
    assert.equal(resource.resource, `${ui.url}/api/agent/mcp`);
  });

  it('answers 502 naming the agent when it cannot be reached', async () => {
    const orphan = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: 'http://127.0.0.1:9', dist: fakeBuild() });
    try {
      const res = await fetch(`${orphan.url}/api/agent/overview`);
      assert.equal(res.status, 502);
      assert.equal(((await res.json()) as { error: string }).error, 'agent_unreachable');
    } finally {
      await orphan.close();
    }
  });

  it('passes on the scheme its own proxy reports, so the cookie is Secure and OAuth names https behind TLS', async () => {
    const metadata = (await (await fetch(`${ui.url}/.well-known/oauth-authorization-server`, { headers: { 'x-forwarded-proto': 'https' } })).json()) as { issuer: string };
    assert.equal(metadata.issuer, ui.url.replace('http:', 'https:'));
    const login = await fetch(`${ui.url}/api/agent/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    assert.equal(login.status, 200);
    assert.match(login.headers.get('set-cookie') ?? '', /;\s*Secure/i);
    const plain = (await (await fetch(`${ui.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    assert.equal(plain.issuer, ui.url, 'without the header, the scheme is its own');
  });

  it('refuses a body over the limit with 413, by Content-Length or counted, without passing it to the agent', async () => {
    let reached = 0;
    const counter = serve({ fetch: () => (reached++, new Response('{}', { headers: { 'content-type': 'application/json' } })), hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => counter.once('listening', resolve));
    const front = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: `http://127.0.0.1:${(counter.address() as AddressInfo).port}`, dist: fakeBuild() });
    try {
      const over = new Uint8Array(UI_BODY_LIMIT_BYTES + 1).fill(0x20);
      const sized = await fetch(`${front.url}/api/agent/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: over });
      assert.equal(sized.status, 413);
      assert.equal(((await sized.json()) as { error: string }).error, 'payload_too_large');
      const chunked = await fetch(`${front.url}/api/agent/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            for (let sent = 0; sent < over.length; sent += 65536) controller.enqueue(over.subarray(sent, sent + 65536));
            controller.close();
          },
        }),
        duplex: 'half',
      });
      assert.equal(chunked.status, 413);
      assert.equal(reached, 0, 'the agent never saw either');
      const fits = await fetch(`${front.url}/api/agent/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: over.subarray(0, UI_BODY_LIMIT_BYTES) });
      assert.equal(fits.status, 200);
      assert.equal(reached, 1);
    } finally {
      await front.close();
      counter.close();
    }
  });

  it('does not take WebSocket upgrades', async () => {
    const { port } = new URL(ui.url);
    const outcome = await new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/agent/terminal/ws', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
      req.on('upgrade', () => resolve('upgraded'));
      req.on('response', (res) => resolve(`response ${res.statusCode ?? 0}`));
      req.on('error', () => resolve('closed'));
      req.end();
    });
    assert.notEqual(outcome, 'upgraded');
  });
});

/** One request from a given loopback source address (Linux routes all of 127/8 to lo). */
function fromAddress(base: string, localAddress: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: init.method ?? 'GET', localAddress, headers: { 'content-type': 'application/json', ...init.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

// The default chart: an Ingress in front of the dashboard, security.trustedProxyCidrs empty, so
// the agent trusts no proxy. The dashboard vouches for the client address with the per-install
// secret both pods share (Secret capstan-ui-proxy); without that secret the header is nobody's.
describe('capstan ui tells the agent who the client is, vouched for by the install secret', () => {
  const SECRET = 'per-install-secret-for-the-test-0123456789';
  let agent: ServerType;
  let agentAt = '';
  let front: RunningUi;
  before(async () => {
    const h = await testApp({ proxySecret: SECRET });
    agent = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: h.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    agentAt = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
    front = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: agentAt, dist: fakeBuild(), proxySecret: SECRET });
  });
  after(async () => {
    await front.close();
    agent.close();
  });

  const signIn = async (base: string, from: string, headers: Record<string, string> = {}) => {
    const res = await fromAddress(base, from, '/api/agent/auth/login', { method: 'POST', headers, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
    const setCookie = res.headers['set-cookie'];
    return { status: res.status, cookie: (Array.isArray(setCookie) ? setCookie[0] ?? '' : '').split(';')[0] ?? '' };
  };
  /** The address the agent recorded for this cookie's own session. */
  const sessionIps = async (base: string, from: string, cookie: string) => {
    const res = await fromAddress(base, from, '/api/agent/me/sessions', { headers: { cookie } });
    assert.equal(res.status, 200, res.text);
    return (JSON.parse(res.text) as { sessions: { ip: string; current: boolean }[] }).sessions.filter((s) => s.current).map((s) => s.ip);
  };

  it('two clients behind the dashboard get two addresses, and one flooding forged cookies cannot lock out the other', async () => {
    const admin = await signIn(front.url, '127.0.0.3');
    assert.equal(admin.status, 200);
    assert.deepEqual(await sessionIps(front.url, '127.0.0.3', admin.cookie), ['127.0.0.3'], 'the agent saw the client, not the dashboard pod');
    // An anonymous client forges session cookies until its address is banned (auth_flood: 20 a minute).
    let last = 0;
    for (let i = 0; i < 25; i++) last = (await fromAddress(front.url, '127.0.0.2', '/api/agent/me', { headers: { cookie: `capstan_session=forged${String(i)}` } })).status;
    assert.equal(last, 403, 'the flooder is banned');
    assert.equal((await signIn(front.url, '127.0.0.2')).status, 403, 'its address stays banned');
    // The admin, behind the same dashboard, is not.
    const again = await signIn(front.url, '127.0.0.3');
    assert.equal(again.status, 200, 'another client behind the dashboard still signs in');
    assert.equal((await fromAddress(front.url, '127.0.0.3', '/api/agent/me', { headers: { cookie: admin.cookie } })).status, 200);
  });

  it('ignores a client address header that the dashboard did not vouch for', async () => {
    // Sent to the dashboard: it strips the caller's copies and names the socket peer.
    const through = await signIn(front.url, '127.0.0.4', { 'x-capstan-client-ip': '127.0.0.3', 'x-capstan-proxy-secret': SECRET });
    assert.equal(through.status, 200);
    assert.deepEqual(await sessionIps(front.url, '127.0.0.4', through.cookie), ['127.0.0.4']);
    // Sent straight to the agent without the secret (or with a wrong one): the socket address.
    const forged: Record<string, string>[] = [{ 'x-capstan-client-ip': '127.0.0.3' }, { 'x-capstan-client-ip': '127.0.0.3', 'x-capstan-proxy-secret': `${SECRET}x` }, { 'x-capstan-client-ip': '127.0.0.3', 'x-capstan-proxy-secret': '' }];
    for (const headers of forged) {
      const direct = await signIn(agentAt, '127.0.0.5', headers);
      assert.equal(direct.status, 200);
      assert.deepEqual(await sessionIps(agentAt, '127.0.0.5', direct.cookie), ['127.0.0.5'], JSON.stringify(headers));
    }
    // With the secret, the agent believes it (this is what the dashboard sends).
    const vouched = await signIn(agentAt, '127.0.0.5', { 'x-capstan-client-ip': '198.51.100.7', 'x-capstan-proxy-secret': SECRET });
    assert.deepEqual(await sessionIps(agentAt, '127.0.0.5', vouched.cookie), ['198.51.100.7']);
  });
});

describe('capstan ui behind TLS (the chart sets CAPSTAN_UI_HSTS when the Ingress has TLS)', () => {
  it('sends Strict-Transport-Security on the app, assets, errors and proxied answers only when told to', async () => {
    const dist = fakeBuild();
    const tls = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: 'http://127.0.0.1:9', dist, hsts: true });
    const plain = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: 'http://127.0.0.1:9', dist });
    try {
      for (const path of ['/', '/assets/app.js', '/assets/missing.js', '/api/agent/overview', '/healthz']) {
        const res = await fetch(`${tls.url}${path}`);
        assert.equal(res.headers.get('strict-transport-security'), HSTS_HEADER, path);
        assert.equal((await fetch(`${plain.url}${path}`)).headers.get('strict-transport-security'), null, `no HSTS over plain HTTP: ${path}`);
      }
      assert.match(HSTS_HEADER, /^max-age=(\d+)$/);
      assert.ok(Number(/\d+/.exec(HSTS_HEADER)?.[0]) >= 31536000, 'at least a year');
    } finally {
      await tls.close();
      await plain.close();
    }
  });
});

describe("capstan ui's environment (what the chart sets)", () => {
  it('reads the install secret, trusted proxies, hop count and HSTS, refusing unusable values by name', () => {
    const secret = 'x'.repeat(48);
    const options = uiOptionsFromEnv({ CAPSTAN_UI_PROXY_SECRET: secret, CAPSTAN_UI_FORWARDED_HOPS: '2', CAPSTAN_UI_HSTS: 'true', CAPSTAN_TRUSTED_PROXY_CIDRS: '10.0.0.0/8' });
    assert.equal(options.proxySecret, secret);
    assert.equal(options.forwardedHops, 2);
    assert.equal(options.hsts, true);
    assert.equal(options.trustedProxies?.check('10.1.2.3'), true);
    assert.deepEqual({ ...uiOptionsFromEnv({}), trustedProxies: undefined }, { proxySecret: null, trustedProxies: undefined, forwardedHops: 0, hsts: false });
    assert.throws(() => uiOptionsFromEnv({ CAPSTAN_UI_FORWARDED_HOPS: 'two' }), /CAPSTAN_UI_FORWARDED_HOPS/);
    assert.throws(() => uiOptionsFromEnv({ CAPSTAN_UI_HSTS: 'yes' }), /CAPSTAN_UI_HSTS/);
    assert.throws(() => uiOptionsFromEnv({ CAPSTAN_UI_PROXY_SECRET: 'short' }), /CAPSTAN_UI_PROXY_SECRET/);
  });
});
