import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTransport, loadKubeConfig, type KubeTransport } from '../../runtime/kube/client.ts';
import { Informer } from '../../runtime/kube/informer.ts';
import { slimNamespace } from '../../runtime/kube/slim.ts';
import { silentLogger } from '../../runtime/log.ts';
import { k, testCluster } from '../support/cluster.ts';

/** The real transport, counting LIST pages. */
function instrumented() {
  const real = createTransport(loadKubeConfig(testCluster().kubeconfig));
  const calls = { lists: 0, watches: 0 };
  const transport: KubeTransport = {
    list: (path, params) => {
      calls.lists++;
      return real.list(path, params);
    },
    watch: (path, params, onEvent, onDone) => {
      calls.watches++;
      return real.watch(path, params, onEvent, onDone);
    },
  };
  return { transport, calls };
}

describe('informer against the real API server', () => {
  it('pages through a LIST with continue tokens and holds every object', async () => {
    const { transport, calls } = instrumented();
    const informer = new Informer({ resource: 'namespaces', path: '/api/v1/namespaces', transport, slim: slimNamespace, log: silentLogger, pageSize: 3 });
    try {
      await informer.start();
      const expected = (await k(['get', 'namespaces', '-o', 'name'])).trim().split('\n').length;
      assert.equal(informer.values().length, expected);
      assert.ok(calls.lists >= Math.ceil(expected / 3), `only ${calls.lists} pages for ${expected} namespaces`);
      // Slimmed: no managedFields or annotations survive in the cache.
      assert.deepEqual(Object.keys(informer.values()[0] ?? {}).sort(), ['createdAt', 'labels', 'name', 'phase']);
    } finally {
      informer.stop();
    }
  });
});
