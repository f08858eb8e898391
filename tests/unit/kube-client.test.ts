// runtime/kube/client.ts: credentials read from kubeconfigs as kubectl writes them (inline data,
// files relative to the kubeconfig, tokens, token files that rotate, the in-cluster service
// account), what only client-node can serve handed to it, and the LIST/WATCH transport against
// a local HTTP server: pages, the API server's refusals, watch lines, end of stream and abort.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Agent as HttpAgent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { stringify } from 'yaml';
import { createTransport, KubeApiError, loadKubeConfig, type KubeAccess, type WatchEventType } from '../../runtime/kube/client.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-'))): string {
  const path = join(dir, 'config');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'ctx',
      contexts: [
        { name: 'other', context: { cluster: 'other', user: 'other' } },
        { name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'shop' } },
      ],
      clusters: [
        { name: 'other', cluster: { server: 'https://wrong.example:6443' } },
        { name: 'c', cluster },
      ],
      users: [
        { name: 'other', user: { token: 'wrong' } },
        { name: 'u', user },
      ],
    }),
  );
  return path;
}

async function httpsOptions(kc: KubeAccess): Promise<RequestOptions> {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return opts;
}

async function authorization(kc: KubeAccess): Promise<string | null> {
  const init = await kc.applyToFetchOptions({});
  return (init.headers as { get(name: string): string | null }).get('authorization');
}

describe('loadKubeConfig: credentials as kubectl reads them', () => {
  it('inline CA, client certificate and key, from the current context only', async () => {
    const kc = loadKubeConfig(kubeconfig({ server: 'https://127.0.0.1:6443', 'certificate-authority-data': b64('CA') }, { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') }));
    assert.deepEqual(kc.getCurrentCluster(), { server: 'https://127.0.0.1:6443' });
    const opts = await httpsOptions(kc);
    assert.equal(opts.ca?.toString(), 'CA');
    assert.equal(opts.cert?.toString(), 'CERT');
    assert.deepEqual(opts.key, Buffer.from('KEY'));
    assert.equal(opts.rejectUnauthorized, undefined, 'verification stays on');
    assert.deepEqual(opts.headers, {}, 'no credential header');
    // The material is parsed into a TLS context on the first request: not PEM, it fails there.
    await assert.rejects(kc.applyToFetchOptions({}), /PEM/);
  });

  it('file paths relative to the kubeconfig, and a bearer token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-'));
    writeFileSync(join(dir, 'ca.crt'), 'CA-FROM-FILE');
    writeFileSync(join(dir, 'client.crt'), 'CERT-FROM-FILE');
    writeFileSync(join(dir, 'client.key'), 'KEY-FROM-FILE');
    const kc = loadKubeConfig(kubeconfig({ server: 'https://k8s.example:443', 'certificate-authority': 'ca.crt', 'tls-server-name': 'kubernetes' }, { 'client-certificate': 'client.crt', 'client-key': join(dir, 'client.key'), token: 'abc.def' }, dir));
    const opts = await httpsOptions(kc);
    assert.equal(opts.ca?.toString(), 'CA-FROM-FILE');
    assert.equal(opts.cert?.toString(), 'CERT-FROM-FILE');
    assert.deepEqual(opts.key, Buffer.from('KEY-FROM-FILE'));
    assert.equal(opts.servername, 'kubernetes');
    assert.deepEqual(opts.headers, { Authorization: 'Bearer abc.def' });
  });

  it('a token file is re-read once a minute (projected tokens rotate)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-'));
    writeFileSync(join(dir, 'token'), 'first\n');
    mock.timers.enable({ apis: ['Date'], now: 0 });
    try {
      const kc = loadKubeConfig(kubeconfig({ server: 'https://k8s.example', 'insecure-skip-tls-verify': true }, { tokenFile: 'token' }, dir));
      assert.equal(await authorization(kc), 'Bearer first');
      const init = await kc.applyToFetchOptions({});
      assert.ok(init.agent instanceof HttpsAgent);
      assert.equal(init.agent, (await kc.applyToFetchOptions({})).agent, 'one agent (one TLS context) for every request');
      writeFileSync(join(dir, 'token'), 'second\n');
      mock.timers.tick(60_000);
      assert.equal(await authorization(kc), 'Bearer first', 'not yet: exactly a minute');
      mock.timers.tick(1);
      assert.equal(await authorization(kc), 'Bearer second');
      assert.equal((await httpsOptions(kc)).rejectUnauthorized, false);
    } finally {
      mock.timers.reset();
    }
  });

  it('the in-cluster service account: its CA, its token file, the service host and port', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-sa-'));
    writeFileSync(join(dir, 'ca.crt'), 'CLUSTER-CA');
    writeFileSync(join(dir, 'token'), 'sa-token');
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    try {
      process.env.KUBERNETES_SERVICE_HOST = 'fd00::1';
      process.env.KUBERNETES_SERVICE_PORT = '443';
      const kc = loadKubeConfig(undefined, dir);
      assert.deepEqual(kc.getCurrentCluster(), { server: 'https://[fd00::1]:443' });
      const opts = await httpsOptions(kc);
      assert.equal(opts.ca?.toString(), 'CLUSTER-CA');
      assert.deepEqual(opts.headers, { Authorization: 'Bearer sa-token' });
      delete process.env.KUBERNETES_SERVICE_HOST;
      assert.throws(() => loadKubeConfig(undefined, dir), /not running in a cluster/);
    } finally {
      if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
      else process.env.KUBERNETES_SERVICE_HOST = saved.host;
      if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
      else process.env.KUBERNETES_SERVICE_PORT = saved.port;
    }
  });

  it('plain HTTP only when TLS verification is explicitly off', async () => {
    assert.throws(() => loadKubeConfig(kubeconfig({ server: 'http://127.0.0.1:8080' }, {})), /refusing plain HTTP/);
    const kc = loadKubeConfig(kubeconfig({ server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true }, {}));
    const init = await kc.applyToFetchOptions({});
    assert.ok(init.agent instanceof HttpAgent && !(init.agent instanceof HttpsAgent));
  });

  it('impersonation (like exec plugins and auth providers) is handed to client-node, loaded only then', async () => {
    const kc = loadKubeConfig(kubeconfig({ server: 'https://k8s.example', 'certificate-authority-data': b64('CA') }, { token: 't', as: 'jane' }));
    assert.deepEqual(kc.getCurrentCluster(), { server: 'https://k8s.example' });
    const init = await kc.applyToFetchOptions({});
    const headers = init.headers as { get(name: string): string | null };
    assert.equal(headers.get('impersonate-user'), 'jane');
    assert.equal(headers.get('authorization'), 'Bearer t');
  });

  it('no current cluster: no server, and no transport', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-kubeconfig-'));
    writeFileSync(join(dir, 'config'), stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] }));
    const kc = loadKubeConfig(join(dir, 'config'));
    assert.equal(kc.getCurrentCluster(), null);
    assert.throws(() => createTransport(kc), /no current cluster/);
  });
});

describe('createTransport against a local HTTP server', () => {
  let server: Server;
  let base = '';
  const seen: { url: string; authorization: string | undefined }[] = [];
  const open: ServerResponse[] = [];
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();

  before(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      const handler = routes.get(new URL(req.url ?? '', 'http://x').pathname);
      if (handler) handler(req, res);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  after(async () => {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const transport = () => createTransport(loadKubeConfig(kubeconfig({ server: base, 'insecure-skip-tls-verify': true }, { token: 'tok' })));

  it('LIST: items, resourceVersion and continue token, with the query and the credential', async () => {
    routes.set('/api/v1/pods', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ metadata: { resourceVersion: '42', continue: 'next' }, items: [{ metadata: { name: 'a' } }] })));
    const page = await transport().list('/api/v1/pods', { limit: '500' });
    assert.deepEqual(page, { items: [{ metadata: { name: 'a' } }], resourceVersion: '42', continueToken: 'next' });
    assert.deepEqual(seen.at(-1), { url: '/api/v1/pods?limit=500', authorization: 'Bearer tok' });
  });

  it('LIST: a refusal carries the status and the API server message; a plain-text 404 its text', async () => {
    routes.set('/api/v1/secrets', (_req, res) => res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', status: 'Failure', message: 'secrets is forbidden: User "x" cannot list resource "secrets"', code: 403 })));
    await assert.rejects(transport().list('/api/v1/secrets', {}), (err: unknown) => err instanceof KubeApiError && err.status === 403 && err.message.startsWith('secrets is forbidden'));
    await assert.rejects(transport().list('/apis/metrics.k8s.io/v1beta1/pods', {}), (err: unknown) => err instanceof KubeApiError && err.status === 404 && err.message === '404 page not found');
  });

  it('WATCH: one event per line, blank and broken lines skipped, done(null) at the end of the stream', async () => {
    routes.set('/api/v1/namespaces', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n\n');
      res.write('{"type":"MODIFIED","obj');
      res.write('ect":{"metadata":{"name":"a","resourceVersion":"7"}}}\nnot json\n');
      res.end(JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }) + '\n');
    });
    const events: [WatchEventType, unknown][] = [];
    const done = await new Promise<unknown>((resolve) => void transport().watch('/api/v1/namespaces', { resourceVersion: '5', allowWatchBookmarks: 'true' }, (type, object) => events.push([type, object]), resolve));
    assert.equal(done, null);
    assert.deepEqual(events, [
      ['ADDED', { metadata: { name: 'a' } }],
      ['MODIFIED', { metadata: { name: 'a', resourceVersion: '7' } }],
      ['BOOKMARK', { metadata: { resourceVersion: '9' } }],
    ]);
    const url = new URL(seen.at(-1)?.url ?? '', 'http://x');
    assert.deepEqual(Object.fromEntries(url.searchParams), { resourceVersion: '5', allowWatchBookmarks: 'true', watch: 'true' });
  });

  it('WATCH: a refused watch ends with the status (410 Gone relists)', async () => {
    routes.set('/api/v1/events', (_req, res) => res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', message: 'too old resource version: 1 (200)', code: 410 })));
    const done = await new Promise<unknown>((resolve) => void transport().watch('/api/v1/events', {}, () => assert.fail('no events'), resolve));
    assert.ok(done instanceof KubeApiError && done.status === 410, String(done));
  });

  it('WATCH: abort ends an open stream, done is called once, nothing arrives after', async () => {
    routes.set('/api/v1/nodes', (_req, res) => {
      open.push(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'n1' } } }) + '\n');
    });
    const events: string[] = [];
    const dones: unknown[] = [];
    let first: () => void = () => undefined;
    const arrived = new Promise<void>((r) => (first = r));
    const handle = await transport().watch('/api/v1/nodes', {}, (type) => {
      events.push(type);
      first();
    }, (err) => dones.push(err));
    await arrived;
    handle.abort();
    await new Promise((r) => setTimeout(r, 100));
    open.at(-1)?.write(JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'n1' } } }) + '\n');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(events, ['ADDED']);
    assert.equal(dones.length, 1);
    assert.ok(dones[0] !== null, 'an aborted watch ends with an error, so an informer that is not stopping relists');
  });
});
