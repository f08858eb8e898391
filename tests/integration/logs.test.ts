// A container's logs through a real agent on the shared control plane: KWOK serves the demo's
// and this file's logs (tests/support/cluster-logs.ts), and follows its log files, so a line
// written into one arrives on an open follow. Redaction, the container check, visibility, the
// key's scope, the follow caps and their release on disconnect, and the audit row.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { appendWriterLine, LOGS_NAMESPACE } from '../support/cluster-logs.ts';
import { k, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';

const PASSWORD = 'logs-admin-password';
let agent: RunningAgent;
let cookie = '';
let readKey = '';
let mcpKey = '';
let checkout = '';

async function get(path: string, auth: { key?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: auth.key ? { 'x-api-key': auth.key } : { cookie } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Follow {
  status: number;
  /** Every `line` event's line so far, and the `end` event once one came. */
  lines: string[];
  end: { reason: string; message: string | null } | null;
  until(test: (lines: string[]) => boolean, what: string): Promise<void>;
  close(): void;
}

/** Opens a follow as a browser's EventSource would, and keeps reading its events. */
async function follow(path: string): Promise<Follow> {
  const controller = new AbortController();
  const res = await fetch(`${agent.url}/api/agent${path}`, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
  const state: Follow = {
    status: res.status,
    lines: [],
    end: null,
    until: (test, what) => waitFor(what, () => Promise.resolve(test(state.lines)), 30_000, 200),
    close: () => controller.abort(),
  };
  if (res.status !== 200 || res.body === null) {
    await res.body?.cancel();
    return state;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        const messages = buffer.split('\n\n');
        buffer = messages.pop() ?? '';
        for (const message of messages) {
          const data = message.split('\n').find((l) => l.startsWith('data: '));
          if (data === undefined) continue;
          const event = JSON.parse(data.slice(6)) as { type: string; line?: string; reason?: string; message?: string | null };
          if (event.type === 'line' && event.line !== undefined) state.lines.push(event.line);
          if (event.type === 'end') state.end = { reason: event.reason ?? '', message: event.message ?? null };
        }
      }
    } catch {
      // Aborted by close(): the test is done with it.
    }
  })();
  return state;
}

describe('container logs', () => {
  before(async () => {
    await k(['create', 'namespace', LOGS_NAMESPACE]);
    await k(['apply', '-f', '-'], [
      'apiVersion: v1',
      'kind: Pod',
      `metadata: {name: writer-0, namespace: ${LOGS_NAMESPACE}}`,
      'spec:',
      '  containers: [{name: writer, image: ghcr.io/acme/writer:1.0.0}]',
      '  initContainers: [{name: setup, image: ghcr.io/acme/setup:1.0.0}]',
    ].join('\n'));
    agent = await startTestAgent('logs', { accounts: { adminPassword: PASSWORD } });
    const login = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const mint = async (scopes: string[]) => {
      const res = await fetch(`${agent.url}/api/agent/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: scopes.join('+'), scopes }) });
      return ((await res.json()) as { key: string }).key;
    };
    readKey = await mint(['workloads:read']);
    mcpKey = await mint(['mcp:read']);
    await waitFor('the writer pod in the cache', async () => (await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs`)).status === 200, 60_000, 500);
    const pods = (await get('/namespaces/shop/pods')).body.pods as { name: string }[];
    checkout = pods.find((p) => p.name.startsWith('checkout-'))?.name ?? '';
    assert.notEqual(checkout, '');
  });

  after(async () => {
    await agent.close();
    await k(['delete', 'namespace', LOGS_NAMESPACE, '--wait=false']);
  });

  it("reads a container's tail, redacted: a password and a private key's body never leave", async () => {
    const { status, body } = await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs?tail_lines=100`, { key: readKey });
    assert.equal(status, 200);
    assert.equal(body.container, 'writer', 'the first container when none is named');
    const lines = body.lines as string[];
    assert.equal(lines[0], 'writer starting');
    assert.ok(lines.includes('writer ready'));
    const text = lines.join('\n');
    assert.doesNotMatch(text, /hunter2-not-shown|MIIEowIBAAKCAQEA7xq/);
    assert.equal(body.truncated, false);
  });

  it("reads the previous instance's tail, and only as many lines as asked", async () => {
    const previous = await get(`/namespaces/shop/pods/${checkout}/logs?previous=true`);
    assert.equal(previous.status, 200);
    const lines = previous.body.lines as string[];
    assert.ok(lines.some((l) => l.includes('checkout starting')));
    assert.ok(!lines.join('\n').includes('sk_live_51Hx9fakeToken'), 'the token is redacted');
    const two = await get(`/namespaces/shop/pods/${checkout}/logs?previous=true&tail_lines=2`);
    assert.equal((two.body.lines as string[]).length, 2);
  });

  it('names the field at fault, 404s what is not there, and 403s a hidden namespace or a key without the scope', async () => {
    const container = await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs?container=nope`);
    assert.equal(container.status, 400);
    assert.equal(container.body.field, 'container');
    assert.match(String(container.body.message), /writer, setup/);
    assert.equal((await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs?container=setup`)).status, 200, 'an init container is a container');
    const lines = await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs?tail_lines=0`);
    assert.equal(lines.status, 400);
    assert.equal(lines.body.field, 'tail_lines');
    assert.equal((await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs?previous=maybe`)).body.field, 'previous');
    assert.equal((await get(`/namespaces/${LOGS_NAMESPACE}/pods/nobody/logs`)).status, 404);
    assert.equal((await get('/namespaces/kube-system/pods/etcd-0/logs')).status, 403);
    const scope = await get(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs`, { key: mcpKey });
    assert.equal(scope.status, 403);
    assert.equal(scope.body.error, 'api_key_insufficient_scope');
  });

  it('follows: the tail redacted line by line, then a line written now arrives, redacted', async () => {
    const f = await follow(`/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs/follow?tail_lines=100`);
    assert.equal(f.status, 200);
    await f.until((lines) => lines.includes('writer ready'), 'the tail');
    assert.doesNotMatch(f.lines.join('\n'), /hunter2-not-shown|MIIEowIBAAKCAQEA7xq/, 'a key spanning lines is hidden line by line');
    appendWriterLine(testCluster().dir, 'order 1042 paid, api_key=AKIAIOSFODNN7EXAMPLE');
    await f.until((lines) => lines.some((l) => l.startsWith('order 1042 paid')), 'the new line');
    assert.doesNotMatch(f.lines.join('\n'), /AKIAIOSFODNN7EXAMPLE/);
    assert.equal(f.end, null, 'still open');
    f.close();
  });

  it('holds at most 3 follows per user, and a follow the client left frees its slot', async () => {
    const path = `/namespaces/${LOGS_NAMESPACE}/pods/writer-0/logs/follow?tail_lines=1`;
    const open = [await follow(path), await follow(path), await follow(path)];
    assert.deepEqual(open.map((f) => f.status), [200, 200, 200]);
    const fourth = await follow(path);
    assert.equal(fourth.status, 429);
    open[0]?.close();
    let again: Follow | null = null;
    await waitFor('a slot after a client left', async () => {
      again = await follow(path);
      if (again.status !== 200) return false;
      return true;
    }, 10_000, 200);
    for (const f of [...open, again as Follow | null]) f?.close();
  });

  it('audits both as sensitive reads', async () => {
    const events = (await get(`/admin/audit/events?action=${encodeURIComponent('GET /namespaces/:namespace/pods/:pod/logs')}`)).body.events as { category: string; action: string }[];
    assert.ok(events.some((e) => e.action === 'GET /namespaces/:namespace/pods/:pod/logs' && e.category === 'http'));
    assert.ok(events.some((e) => e.action === 'GET /namespaces/:namespace/pods/:pod/logs/follow' && e.category === 'http'));
  });
});
