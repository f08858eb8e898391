// Handlers read the informer cache on every request; with 5000 pods, copying (or filtering)
// the whole store per request is the cost. values() returns one array until the store
// changes, so what is derived from it (the namespace-scoped view) can be kept by identity.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { KubeTransport, WatchEventType } from '../../runtime/kube/client.ts';
import { Informer } from '../../runtime/kube/informer.ts';
import { slimNamespace } from '../../runtime/kube/slim.ts';
import { silentLogger } from '../../runtime/log.ts';

const ns = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv }, status: { phase: 'Active' } });

it('returns the same array between changes and a new one after each change', async () => {
  let send: (type: WatchEventType, object: unknown) => void = () => undefined;
  const transport: KubeTransport = {
    list: () => Promise.resolve({ items: [ns('a', '1'), ns('b', '2')], resourceVersion: '2', continueToken: undefined }),
    watch: (_path, _params, onEvent) => {
      send = onEvent;
      return Promise.resolve({ abort: () => undefined });
    },
  };
  const informer = new Informer({ resource: 'namespaces', path: '/api/v1/namespaces', transport, slim: slimNamespace, log: silentLogger });
  await informer.start();
  await new Promise((r) => setImmediate(r));

  const first = informer.values();
  assert.equal(informer.values(), first, 'no change: the same array');
  send('BOOKMARK', { metadata: { resourceVersion: '3' } });
  assert.equal(informer.values(), first, 'a bookmark changes nothing');

  send('ADDED', ns('c', '4'));
  const second = informer.values();
  assert.notEqual(second, first);
  assert.deepEqual(second.map((n) => n.name), ['a', 'b', 'c']);
  assert.deepEqual(first.map((n) => n.name), ['a', 'b'], 'an array handed out is never changed afterwards');
  assert.equal(informer.values(), second);

  send('MODIFIED', ns('b', '5'));
  assert.equal(informer.values(), second, 'an update that changes nothing the cache keeps (a heartbeat, a new resourceVersion) keeps the array');
  send('MODIFIED', { ...ns('b', '6'), status: { phase: 'Terminating' } });
  const third = informer.values();
  assert.notEqual(third, second, 'a change to a kept field is a change');
  assert.equal(third.find((n) => n.name === 'b')?.phase, 'Terminating');

  send('DELETED', ns('a', '7'));
  assert.deepEqual(informer.values().map((n) => n.name), ['b', 'c']);
  const fourth = informer.values();
  send('DELETED', ns('gone', '8'));
  assert.equal(informer.values(), fourth, 'deleting what the cache never held is no change');
  informer.stop();
});
