// `capstan ui` never buffers an event stream: through its /api/agent proxy, in front of the
// agent's real HTTP app on a real socket, the first event of a slow stream reaches the client
// before the stream's last event is even produced, with the stream's headers intact; and a
// client that goes away stops the agent's handler (the chat dock's Stop goes this way).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { defineRoute } from '../../handlers/route.ts';
import { streamOf } from '../../handlers/stream.ts';
import { NoInput } from '../../schema/common.ts';
import { createApp } from '../../runtime/http/app.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { ADMIN_PASSWORD, testServices } from '../support/services.ts';

const Step = v.object({ type: v.picklist(['first', 'last']) });

/** The test releases the stream's last event; the handler reports when its signal fires. */
const gate = { release: () => {}, aborted: false, lastSent: false };

const slowRoute = defineRoute({
  access: { auth: 'credential', role: 'viewer', scope: 'activity:read' },
  audit: 'http',
  rateLimit: 'read',
  feature: null,
  method: 'GET',
  path: '/test/slow-stream',
  summary: 't',
  input: NoInput,
  output: v.object({}),
  stream: { event: Step },
  handler: () =>
    ok({
      events: streamOf<v.InferOutput<typeof Step>>(async (emit, signal) => {
        signal.addEventListener('abort', () => (gate.aborted = true), { once: true });
        emit({ type: 'first' });
        await new Promise<void>((resolve) => {
          gate.release = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        if (signal.aborted) return;
        gate.lastSent = true;
        emit({ type: 'last' });
      }),
    }),
});

function fakeBuild(): string {
  const dist = mkdtempSync(join(tmpdir(), 'capstan-ui-dist-'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
  mkdirSync(join(dist, 'assets'));
  return dist;
}

let agentServer: ServerType;
let ui: RunningUi;
let cookie = '';

/** Reads `body` until `text` has arrived (or it ends); returns what was read. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp, sofar = ''): Promise<string> {
  const decoder = new TextDecoder();
  let text = sofar;
  while (!pattern.test(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text;
}

const until = async (predicate: () => boolean, what: string) => {
  const deadline = Date.now() + 3000;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('capstan ui: event streams through the proxy', () => {
  before(async () => {
    const services = await testServices();
    const app = createApp({ routes: [...routes, slowRoute], rawEndpoints, services, middleware: services.middleware, validateOutput: true, corsOrigins: services.corsOrigins, log: silentLogger });
    agentServer = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    const agentUrl = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}`;
    ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl, dist: fakeBuild() });
    const signIn = await fetch(`${ui.url}/api/agent/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
    assert.equal(signIn.status, 200);
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => {
    await ui.close();
    agentServer.close();
  });

  it('passes the first event on before the last is produced, with the stream headers', async () => {
    gate.lastSent = false;
    // A proxy that buffered would wait for the end, which never comes before release: give up after 3 s.
    const res = await fetch(`${ui.url}/api/agent/test/slow-stream`, { headers: { cookie, accept: 'text/event-stream' }, signal: AbortSignal.timeout(3000) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    assert.ok(res.body);
    const reader = res.body.getReader();
    const first = await readUntil(reader, /event: first/);
    assert.match(first, /event: first\ndata: \{"type":"first"\}/);
    assert.equal(gate.lastSent, false, 'the first event arrived while the last was still held back');
    gate.release();
    const rest = await readUntil(reader, /event: last/, first);
    assert.match(rest, /event: last/);
    await reader.cancel();
  });

  it("a client that goes away stops the agent's handler", async () => {
    gate.aborted = false;
    const res = await fetch(`${ui.url}/api/agent/test/slow-stream`, { headers: { cookie, accept: 'text/event-stream' } });
    assert.ok(res.body);
    const reader = res.body.getReader();
    await readUntil(reader, /event: first/);
    await reader.cancel();
    await until(() => gate.aborted, "the handler's signal firing");
  });
});
