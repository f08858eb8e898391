// Secrets are watched as metadata only (review defect 9): the agent asks the API server for
// PartialObjectMetadata, so a Secret's data, stringData and annotations (kubectl's
// last-applied-configuration holds the whole Secret, data included) never reach the agent's
// memory, let alone its cache; the diagnosis needs only that a referenced Secret exists.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { systemClock } from '../../domain/clock.ts';
import { createTransport, KubeApiError, loadKubeConfig, type KubeRequestOptions, type KubeTransport, type WatchEventType } from '../../runtime/kube/client.ts';
import { ClusterCache } from '../../runtime/kube/cluster-cache.ts';
import { silentLogger } from '../../runtime/log.ts';

const SECRET_VALUE = 'hunter2-do-not-cache';
const encoded = Buffer.from(SECRET_VALUE).toString('base64');

/** A Secret as a full GET would return it: data, stringData, and kubectl's annotation that repeats them. */
const fullSecret = (namespace: string, name: string, resourceVersion: string) => ({
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: {
    name,
    namespace,
    resourceVersion,
    labels: { app: 'web' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ kind: 'Secret', data: { password: encoded } }) },
  },
  type: 'Opaque',
  data: { password: encoded },
  stringData: { password: SECRET_VALUE },
});

/** A fake API server that answers every Secret request with full Secrets, whatever was asked, and records how it was asked. */
function fakeApi(watchMode: 'namespaces' | 'cluster') {
  const asked: { call: 'list' | 'watch'; path: string; options: KubeRequestOptions | undefined }[] = [];
  const transport: KubeTransport = {
    list: (path, _params, options) => {
      asked.push({ call: 'list', path, options });
      const namespace = /\/namespaces\/([^/]+)\/secrets$/.exec(path)?.[1] ?? 'shop';
      const items = path.endsWith('/secrets') ? [fullSecret(namespace, 'db-creds', '1')] : [];
      return Promise.resolve({ items, resourceVersion: '1', continueToken: undefined });
    },
    watch: (path, _params, onEvent: (type: WatchEventType, object: unknown) => void, _onDone, options) => {
      asked.push({ call: 'watch', path, options });
      if (path.endsWith('/secrets')) {
        const namespace = /\/namespaces\/([^/]+)\/secrets$/.exec(path)?.[1] ?? 'shop';
        onEvent('ADDED', fullSecret(namespace, 'api-token', '2'));
      }
      return Promise.resolve({ abort: () => undefined });
    },
  };
  return { transport, asked, watched: watchMode === 'namespaces' ? ['shop'] : null };
}

describe('the Secret informer reads metadata only', () => {
  for (const scope of ['cluster', 'namespaces'] as const) {
    it(`asks for PartialObjectMetadata on LIST and WATCH of Secrets, and for nothing else (${scope} scope)`, async () => {
      const { transport, asked, watched } = fakeApi(scope);
      const cache = new ClusterCache(transport, systemClock, silentLogger, watched, false);
      try {
        await cache.start();
        await new Promise((r) => setImmediate(r));
        const secrets = asked.filter((a) => a.path.endsWith('/secrets'));
        assert.deepEqual(new Set(secrets.map((a) => a.call)), new Set(['list', 'watch']));
        for (const a of secrets) assert.equal(a.options?.metadataOnly, true, `${a.call} ${a.path} asks for metadata only`);
        const others = asked.filter((a) => !a.path.endsWith('/secrets'));
        assert.ok(others.length > 0);
        for (const a of others) assert.notEqual(a.options?.metadataOnly, true, `${a.call} ${a.path} still reads whole objects`);
      } finally {
        cache.stop();
      }
    });

    it(`keeps no data, stringData, annotation or type of a Secret in the cache, even if the server sent them (${scope} scope)`, async () => {
      const { transport, watched } = fakeApi(scope);
      const cache = new ClusterCache(transport, systemClock, silentLogger, watched, false);
      try {
        await cache.start();
        await new Promise((r) => setImmediate(r));
        const held = [...cache.secrets()].sort((a, b) => a.name.localeCompare(b.name));
        assert.deepEqual(held, [
          { namespace: 'shop', name: 'api-token' },
          { namespace: 'shop', name: 'db-creds' },
        ]);
        const text = JSON.stringify(held);
        for (const leaked of [SECRET_VALUE, encoded, 'last-applied', 'Opaque']) assert.ok(!text.includes(leaked), `${leaked} is not in the cache`);
      } finally {
        cache.stop();
      }
    });
  }
});

describe('createTransport asks the API server for metadata only when told to', () => {
  let server: Server;
  let base = '';
  let dir = '';
  const seen: { url: string; accept: string | undefined }[] = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(404).end();

  before(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', accept: req.headers.accept });
      answer(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    dir = mkdtempSync(join(tmpdir(), 'capstan-meta-'));
    writeFileSync(
      join(dir, 'config'),
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        clusters: [{ name: 'c', cluster: { server: base, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'tok' } }],
      }),
    );
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const transport = () => createTransport(loadKubeConfig(join(dir, 'config')));

  it('LIST: Accept PartialObjectMetadataList (meta.k8s.io/v1); a plain LIST keeps application/json', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '3' }, items: [{ kind: 'PartialObjectMetadata', metadata: { name: 'a', namespace: 'shop' } }] }));
    const page = await transport().list('/api/v1/secrets', { limit: '500' }, { metadataOnly: true });
    assert.deepEqual(page.items, [{ kind: 'PartialObjectMetadata', metadata: { name: 'a', namespace: 'shop' } }]);
    assert.equal(seen.at(-1)?.accept, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '3' }, items: [] }));
    await transport().list('/api/v1/pods', {});
    assert.equal(seen.at(-1)?.accept, 'application/json');
  });

  it('LIST: whole objects from a server or proxy that ignored the Accept are cut to their metadata before anyone sees them', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'SecretList', metadata: { resourceVersion: '3' }, items: [fullSecret('shop', 'a', '3')] }));
    const page = await transport().list('/api/v1/secrets', {}, { metadataOnly: true });
    assert.deepEqual(page.items, [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: fullSecret('shop', 'a', '3').metadata }]);
    assert.ok(!JSON.stringify(page.items).includes(SECRET_VALUE));
  });

  it('LIST: a refusal still carries its status', async () => {
    answer = (_req, res) => res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', message: 'secrets is forbidden', code: 403 }));
    await assert.rejects(transport().list('/api/v1/secrets', {}, { metadataOnly: true }), (err: unknown) => err instanceof KubeApiError && err.status === 403);
  });

  it('WATCH: Accept PartialObjectMetadata; an event carrying a whole object is cut to its metadata', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: 'shop', resourceVersion: '4' } } }) + '\n');
      res.write(JSON.stringify({ type: 'ADDED', object: fullSecret('shop', 'b', '5') }) + '\n');
      res.end(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'PartialObjectMetadata', metadata: { resourceVersion: '6' } } }) + '\n');
    };
    const events: [WatchEventType, unknown][] = [];
    const done = await new Promise<unknown>((resolve) => void transport().watch('/api/v1/secrets', { resourceVersion: '3' }, (type, object) => events.push([type, object]), resolve, { metadataOnly: true }));
    assert.equal(done, null);
    assert.equal(seen.at(-1)?.accept, 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1');
    assert.deepEqual(events.map(([type, object]) => [type, (object as { metadata: { name?: string } }).metadata.name]), [['ADDED', 'a'], ['ADDED', 'b'], ['BOOKMARK', undefined]]);
    assert.deepEqual(Object.keys(events[1]?.[1] ?? {}).sort(), ['apiVersion', 'kind', 'metadata'], 'no data, stringData or type');
    assert.ok(!JSON.stringify(events).includes(SECRET_VALUE));
  });
});
