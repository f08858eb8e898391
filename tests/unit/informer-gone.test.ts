// Kubernetes 1.34's watch cache answers stale resourceVersions and keeps continue tokens
// valid across etcd compaction, so the shared cluster cannot be made to send 410 Gone on
// demand. This replays the exact event the API server sends when a watch's
// resourceVersion has expired, and checks the informer relists and recovers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { KubeTransport, ListPage, WatchEventType } from '../../runtime/kube/client.ts';
import { Informer } from '../../runtime/kube/informer.ts';
import { slimNamespace } from '../../runtime/kube/slim.ts';
import { silentLogger } from '../../runtime/log.ts';

const ns = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv }, status: { phase: 'Active' } });
const tooOld = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version: 5 (90)' };

it('relists from scratch when a watch reports 410 Gone, dropping objects deleted meanwhile', async () => {
  const lists: ListPage[] = [
    { items: [ns('a', '4'), ns('b', '5')], resourceVersion: '5', continueToken: undefined },
    { items: [ns('b', '90'), ns('c', '91')], resourceVersion: '91', continueToken: undefined },
  ];
  const watchedFrom: string[] = [];
  let listCalls = 0;
  const transport: KubeTransport = {
    list: () => Promise.resolve(lists[Math.min(listCalls++, lists.length - 1)] as ListPage),
    watch: (_path, params, onEvent: (type: WatchEventType, object: unknown) => void, onDone) => {
      watchedFrom.push(params.resourceVersion ?? '');
      if (watchedFrom.length === 1) {
        setImmediate(() => {
          onEvent('ERROR', tooOld);
          onDone(null);
        });
      }
      return Promise.resolve({ abort: () => undefined });
    },
  };
  const informer = new Informer({ resource: 'namespaces', path: '/api/v1/namespaces', transport, slim: slimNamespace, log: silentLogger });
  await informer.start();
  await new Promise((r) => setTimeout(r, 50));
  informer.stop();
  assert.equal(listCalls, 2);
  assert.deepEqual(watchedFrom, ['5', '91']);
  assert.deepEqual(informer.values().map((n) => n.name).sort(), ['b', 'c']);
});
