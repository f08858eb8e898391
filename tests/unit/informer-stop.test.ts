// An informer stopped while its watch request is still connecting must end that request once it
// connects: otherwise it lives until the watch's own timeout (300 s), holding the process open.
// Two CI runs spent 300 s on exactly that (a test's ClusterCache, an agent stopped at startup).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { KubeTransport, ListPage } from '../../runtime/kube/client.ts';
import { Informer } from '../../runtime/kube/informer.ts';
import { slimNamespace } from '../../runtime/kube/slim.ts';
import { silentLogger } from '../../runtime/log.ts';

it('aborts a watch that finishes connecting after stop()', async () => {
  let connect: (() => void) | null = null;
  let aborted = 0;
  const transport: KubeTransport = {
    list: () => Promise.resolve({ items: [], resourceVersion: '7', continueToken: undefined } as ListPage),
    // The watch connects only when the test says so: the API server answering late.
    watch: () => new Promise((resolve) => (connect = () => resolve({ abort: () => { aborted++; } }))),
  };
  const informer = new Informer({ resource: 'namespaces', path: '/api/v1/namespaces', transport, slim: slimNamespace, log: silentLogger });
  await informer.start();
  await new Promise((r) => setImmediate(r));
  assert.ok(connect, 'the watch was asked for');
  informer.stop();
  (connect as () => void)();
  await new Promise((r) => setImmediate(r));
  assert.equal(aborted, 1, 'the late watch is ended at once');
});
