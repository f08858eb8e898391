// A log follow's bounds (runtime/kube/logs.ts), against a local server speaking the API
// server's log endpoint (chunked text): lines split across chunks, a line that never ends cut,
// the byte cap the API server is asked to enforce, the time cap, the client going away, and an
// API server that refuses or never answers.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FollowChunk } from '../../handlers/logs/service.ts';
import type { KubeAccess } from '../../runtime/kube/client.ts';
import { createPodLogs, FOLLOW_LIMITS, type FollowLimits } from '../../runtime/kube/logs.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;
let server: Server;
let handler: Handler = (_req, res) => res.end();
const requests: URL[] = [];
let closedByClient = 0;

function access(): KubeAccess {
  const { port } = server.address() as AddressInfo;
  return {
    getCurrentCluster: () => ({ server: `http://127.0.0.1:${port}` }),
    applyToFetchOptions: () => Promise.resolve({}),
    applyToHTTPSOptions: () => Promise.resolve(),
  };
}

async function collect(limits: Partial<FollowLimits> = {}, signal = new AbortController().signal, connectTimeoutMs = 2000): Promise<FollowChunk[]> {
  const logs = createPodLogs(access(), connectTimeoutMs, { ...FOLLOW_LIMITS, ...limits });
  const out: FollowChunk[] = [];
  for await (const chunk of logs.follow('shop', 'api-0', 'app', { tailLines: 10 }, signal)) out.push(chunk);
  return out;
}

const lines = (chunks: FollowChunk[]) => chunks.flatMap((c) => (c.type === 'line' ? [c.line] : []));
const endOf = (chunks: FollowChunk[]) => chunks.at(-1);

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url);
    res.on('close', () => {
      if (!res.writableEnded) closedByClient++;
    });
    handler(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
after(() => {
  server.closeAllConnections();
  server.close();
});

describe('a log follow', () => {
  it('asks the API server to follow, with the tail and the byte cap, and splits lines across chunks', async () => {
    handler = (_req, res) => {
      res.write('first li');
      res.write('ne\nsecond\nthi');
      res.end('rd\n');
    };
    const chunks = await collect();
    assert.deepEqual(lines(chunks), ['first line', 'second', 'third']);
    assert.deepEqual(endOf(chunks), { type: 'end', reason: 'ended', message: null });
    const asked = requests.at(-1);
    assert.ok(asked);
    assert.equal(asked.pathname, '/api/v1/namespaces/shop/pods/api-0/log');
    assert.equal(asked.searchParams.get('follow'), 'true');
    assert.equal(asked.searchParams.get('tailLines'), '10');
    assert.equal(asked.searchParams.get('limitBytes'), String(FOLLOW_LIMITS.maxBytes));
    assert.equal(asked.searchParams.get('container'), 'app');
  });

  it('cuts a line that never ends, and drops the rest of it', async () => {
    handler = (_req, res) => {
      res.write('x'.repeat(50));
      res.write('y'.repeat(50));
      res.end('z\nnext\n');
    };
    const chunks = await collect({ maxLineChars: 40 });
    assert.deepEqual(lines(chunks), ['x'.repeat(40), 'next']);
  });

  it('says byte_cap when the API server stopped at the cap', async () => {
    handler = (_req, res) => res.end('0123456789\n'.repeat(3));
    const chunks = await collect({ maxBytes: 33 });
    assert.equal(lines(chunks).length, 3);
    assert.equal((endOf(chunks) as { reason: string }).reason, 'byte_cap');
  });

  it('ends at its time cap with max_duration, and closes the connection', async () => {
    handler = (_req, res) => res.write('one\n');
    const before = closedByClient;
    const chunks = await collect({ maxDurationMs: 300 });
    assert.deepEqual(lines(chunks), ['one']);
    assert.equal((endOf(chunks) as { reason: string }).reason, 'max_duration');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(closedByClient, before + 1);
  });

  it('closes the connection to the API server when the client goes away, with no end event', async () => {
    handler = (_req, res) => res.write('one\n');
    const before = closedByClient;
    const client = new AbortController();
    setTimeout(() => client.abort(), 200);
    const chunks = await collect({}, client.signal);
    assert.deepEqual(chunks, [{ type: 'line', line: 'one' }]);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(closedByClient, before + 1);
  });

  it("passes the API server's refusal on as the end's message", async () => {
    handler = (_req, res) => {
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'Status', message: 'container "app" in pod "api-0" is waiting to start: ContainerCreating' }));
    };
    assert.deepEqual(await collect(), [{ type: 'end', reason: 'error', message: 'API server answered 400: container "app" in pod "api-0" is waiting to start: ContainerCreating' }]);
  });

  it('gives up on an API server that does not answer, and says so', async () => {
    handler = () => undefined;
    const chunks = await collect({}, new AbortController().signal, 200);
    assert.deepEqual(chunks, [{ type: 'end', reason: 'error', message: 'the API server did not answer within 200 ms' }]);
  });
});
