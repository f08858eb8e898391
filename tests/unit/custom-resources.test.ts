// Custom resources: what is kept of a CRD and of an object whose shape nobody promised
// (runtime/kube/slim-custom.ts), their rows (domain/resources/custom.ts), and the catalog's
// bounds (runtime/kube/custom-resources.ts): caches started on first read, at most N kinds,
// at most M objects, unread kinds let go. The API server is a fake transport here; the real
// control plane proves the routes in tests/integration/custom-resources.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customRows, customStatus, type CustomKind } from '../../domain/resources/custom.ts';
import type { KubeTransport, ListPage } from '../../runtime/kube/client.ts';
import { createCustomResources, CUSTOM_RESOURCE_LIMITS } from '../../runtime/kube/custom-resources.ts';
import { slimCustomDefinition, slimCustomObject } from '../../runtime/kube/slim-custom.ts';
import { silentLogger } from '../../runtime/log.ts';

const established = { conditions: [{ type: 'Established', status: 'True' }] };
const crd = (group: string, plural: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name: `${plural}.${group}`, resourceVersion: '1' },
  spec: { group, scope: 'Namespaced', names: { kind: 'Widget', plural }, versions: [{ name: 'v1beta1', served: true, storage: false }, { name: 'v1', served: true, storage: true }] },
  status: established,
  ...extra,
});

describe('slimCustomDefinition', () => {
  const ROWS: { name: string; raw: unknown; want: CustomKind | null }[] = [
    { name: 'the storage version when served', raw: crd('example.com', 'widgets'), want: { name: 'widgets.example.com', group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true } },
    {
      name: 'storage version not served: the first served one',
      raw: crd('example.com', 'widgets', { spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v2', served: true, storage: false }, { name: 'v1', served: false, storage: true }] } }),
      want: { name: 'widgets.example.com', group: 'example.com', version: 'v2', kind: 'Widget', plural: 'widgets', namespaced: false },
    },
    { name: 'not established yet', raw: crd('example.com', 'widgets', { status: { conditions: [{ type: 'Established', status: 'False' }] } }), want: null },
    { name: 'no served version', raw: crd('example.com', 'widgets', { spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1', served: false }] } }), want: null },
    { name: 'names missing', raw: { metadata: { name: 'x' }, spec: { group: 'g' }, status: established }, want: null },
    { name: 'not an object', raw: 'widgets', want: null },
  ];
  for (const row of ROWS) it(row.name, () => assert.deepEqual(slimCustomDefinition(row.raw), row.want));
});

describe('slimCustomObject: any shape, capped', () => {
  it('keeps metadata, the controller owner, phase and well-formed conditions, redacting messages', () => {
    const slim = slimCustomObject({
      metadata: { name: 'w1', namespace: 'shop', creationTimestamp: '2026-11-20T10:00:00Z', labels: { app: 'web', bad: 7 }, ownerReferences: [{ kind: 'Other', name: 'o' }, { kind: 'Gadget', name: 'g1', controller: true }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', message: 'password=hunter2 rejected', lastTransitionTime: 'yesterday' }, 'junk', { status: 'True' }] },
    });
    assert.ok(slim);
    assert.deepEqual(slim.labels, { app: 'web' }, 'a label that is not a string is dropped');
    assert.equal(slim.owner, 'Gadget/g1');
    assert.equal(slim.phase, 'Running');
    assert.equal(slim.conditions.length, 1, 'a condition without a type, or not an object, is dropped');
    const [ready] = slim.conditions;
    assert.ok(ready);
    assert.equal(ready.lastTransition, null, 'an unparseable time is null, never shown as one');
    assert.ok(!(ready.message ?? '').includes('hunter2'), 'a secret-looking value in a message is redacted');
  });
  it('ignores status fields of the wrong type and caps long strings and lists', () => {
    const labels = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'v']));
    const slim = slimCustomObject({ metadata: { name: 'w2', labels, creationTimestamp: 12 }, status: { phase: { nested: true }, conditions: Array.from({ length: 50 }, (_, i) => ({ type: `T${i}`, status: 'True', message: 'x'.repeat(5000) })) } });
    assert.ok(slim);
    assert.equal(slim.namespace, null);
    assert.equal(slim.createdAt, null);
    assert.equal(slim.phase, null);
    assert.equal(Object.keys(slim.labels).length, 64);
    assert.equal(slim.conditions.length, 16);
    assert.ok(slim.conditions.every((c) => (c.message ?? '').length <= 300));
  });
  it('drops an object without a name', () => assert.equal(slimCustomObject({ metadata: {} }), null));
});

describe('custom rows', () => {
  const STATUS: { name: string; phase: string | null; ready: string | null; want: string }[] = [
    { name: 'Ready True', phase: 'Pending', ready: 'True', want: 'Ready' },
    { name: 'Ready False wins over a phase', phase: 'Running', ready: 'False', want: 'Not ready' },
    { name: 'Ready Unknown', phase: null, ready: 'Unknown', want: 'Ready unknown' },
    { name: 'no Ready: the phase', phase: 'Provisioning', ready: null, want: 'Provisioning' },
    { name: 'neither', phase: null, ready: null, want: 'Present' },
  ];
  for (const row of STATUS) {
    it(`status: ${row.name}`, () => {
      const conditions = row.ready === null ? [] : [{ type: 'Ready', status: row.ready, reason: null, message: null, lastTransition: null }];
      assert.equal(customStatus({ phase: row.phase, conditions }), row.want);
    });
  }
  it('an id per kind, namespace and name; the kind named as objects name it', () => {
    const kind: CustomKind = { name: 'widgets.example.com', group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true };
    const [row] = customRows(kind, [{ namespace: 'shop', name: 'w1', createdAt: '2026-11-20T10:00:00Z', labels: {}, owner: null, phase: null, conditions: [] }]);
    assert.ok(row);
    assert.equal(row.id, 'widgets.example.com:shop/w1');
    assert.equal(row.kind, 'Widget');
    assert.equal(row.created_at, '2026-11-20T10:00:00.000Z');
  });
});

/** A fake API server: CRDs and objects per collection path, counting LISTs. */
function fakeServer(collections: Record<string, unknown[]>, forbidden: readonly string[] = []) {
  const lists: string[] = [];
  const watches = { open: 0 };
  const transport: KubeTransport = {
    list: (path): Promise<ListPage> => {
      lists.push(path);
      if (forbidden.includes(path)) return Promise.reject(Object.assign(new Error('forbidden'), { statusCode: 403 }));
      return Promise.resolve({ items: collections[path] ?? [], resourceVersion: '1', continueToken: undefined });
    },
    watch: () => {
      watches.open++;
      return Promise.resolve({
        abort: () => {
          watches.open--;
        },
      });
    },
  };
  return { transport, lists, watches };
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const obj = (namespace: string, name: string) => ({ metadata: { namespace, name, resourceVersion: '1' } });

describe('the catalog', () => {
  it('starts nothing until read, then one cache per kind, reused', async () => {
    const server = fakeServer({ [CRDS]: [crd('example.com', 'widgets')], '/apis/example.com/v1/widgets': [obj('shop', 'a'), obj('blog', 'b')] });
    const catalog = createCustomResources(server.transport, silentLogger);
    assert.deepEqual(server.lists, [], 'no LIST before anyone browses');
    const first = await catalog.objects('example.com', 'widgets');
    assert.ok(first.ok);
    assert.deepEqual(first.objects.map((o) => o.name).sort(), ['a', 'b']);
    await catalog.objects('example.com', 'widgets');
    assert.deepEqual(server.lists, [CRDS, '/apis/example.com/v1/widgets'], 'a second read LISTs nothing');
    assert.deepEqual(await catalog.objects('example.com', 'gadgets'), { ok: false, status: 'unknown_kind', reason: 'the cluster serves no custom kind gadgets.example.com' });
    catalog.stop();
  });

  it('a kind RBAC refuses: empty, and says why', async () => {
    const server = fakeServer({ [CRDS]: [crd('example.com', 'widgets')] }, ['/apis/example.com/v1/widgets']);
    const catalog = createCustomResources(server.transport, silentLogger);
    const read = await catalog.objects('example.com', 'widgets');
    assert.ok(read.ok);
    assert.deepEqual(read.objects, []);
    assert.match(read.unreadable ?? '', /rbac\.customResourceGroups/);
    catalog.stop();
  });

  it('CRDs refused: 403 to the caller, not an empty list', async () => {
    const catalog = createCustomResources(fakeServer({}, [CRDS]).transport, silentLogger);
    const read = await catalog.kinds();
    assert.equal(read.ok ? 'ok' : read.status, 'forbidden');
    catalog.stop();
  });

  it('holds at most maxObjects per kind and says the list is truncated', async () => {
    const server = fakeServer({ [CRDS]: [crd('example.com', 'widgets')], '/apis/example.com/v1/widgets': [obj('a', '1'), obj('a', '2'), obj('a', '3')] });
    const catalog = createCustomResources(server.transport, silentLogger, Date.now, { ...CUSTOM_RESOURCE_LIMITS, maxObjects: 2 });
    const read = await catalog.objects('example.com', 'widgets');
    assert.ok(read.ok);
    assert.equal(read.objects.length, 2);
    assert.equal(read.truncated, true);
    catalog.stop();
  });

  it('watches at most maxKinds: busy while all were read within a minute, the least recently read one makes room after', async () => {
    let now = 0;
    const groups = ['a.example.com', 'b.example.com', 'c.example.com'];
    const server = fakeServer({ [CRDS]: groups.map((g) => crd(g, 'widgets')) });
    const catalog = createCustomResources(server.transport, silentLogger, () => now, { ...CUSTOM_RESOURCE_LIMITS, maxKinds: 2 });
    assert.ok((await catalog.objects('a.example.com', 'widgets')).ok);
    now = 1000;
    assert.ok((await catalog.objects('b.example.com', 'widgets')).ok);
    const busy = await catalog.objects('c.example.com', 'widgets');
    assert.equal(busy.ok ? 'ok' : busy.status, 'busy');
    now = 61_000;
    assert.ok((await catalog.objects('c.example.com', 'widgets')).ok, 'a, unread for a minute, made room');
    assert.equal(server.watches.open, 3, 'the CRDs\', b\'s and c\'s: a\'s watch was ended');
    catalog.stop();
    assert.equal(server.watches.open, 0, 'stop ends every watch');
  });
});
