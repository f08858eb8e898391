// Secrets watched as metadata only, on the real API server (review defect 9): a Secret created
// with data, and one applied with kubectl (whose last-applied-configuration annotation repeats
// the data), reach the agent as PartialObjectMetadata and sit in the cache without data, on the
// LIST and on the WATCH alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTransport, loadKubeConfig, type KubeTransport } from '../../runtime/kube/client.ts';
import { ClusterCache } from '../../runtime/kube/cluster-cache.ts';
import { systemClock } from '../../domain/clock.ts';
import { silentLogger } from '../../runtime/log.ts';
import { k, testCluster, waitFor } from '../support/cluster.ts';

const NS = 'secret-meta-test';
const VALUE = 'sup3r-s3cret-v4lue';
const ENCODED = Buffer.from(VALUE).toString('base64');

/** The real transport, keeping every raw object the API server sent for Secrets. */
function recording() {
  const real = createTransport(loadKubeConfig(testCluster().kubeconfig));
  // Bookmarks carry only a resourceVersion: they are kept out, whatever kind the server gives them.
  const raw: unknown[] = [];
  const transport: KubeTransport = {
    list: async (path, params, options) => {
      const page = await real.list(path, params, options);
      if (path.endsWith('/secrets')) raw.push(...page.items);
      return page;
    },
    watch: (path, params, onEvent, onDone, options) =>
      real.watch(
        path,
        params,
        (type, object) => {
          if (path.endsWith('/secrets') && type !== 'BOOKMARK') raw.push(object);
          onEvent(type, object);
        },
        onDone,
        options,
      ),
  };
  return { transport, raw };
}

const secret = (name: string) => `apiVersion: v1\nkind: Secret\nmetadata: { name: ${name}, namespace: ${NS}, labels: { app: web } }\ntype: Opaque\nstringData: { password: ${VALUE} }\n`;

describe('Secrets reach the agent as metadata only (real API server)', () => {
  let cache: ClusterCache | null = null;
  const { transport, raw } = recording();

  before(async () => {
    await k(['create', 'namespace', NS]);
    await k(['create', 'secret', 'generic', 'before-sync', '-n', NS, `--from-literal=password=${VALUE}`]);
    await k(['apply', '-f', '-'], secret('applied'));
    cache = new ClusterCache(transport, systemClock, silentLogger, [NS], false);
    await cache.start();
  });

  after(async () => {
    cache?.stop();
    await k(['delete', 'namespace', NS, '--wait=false', '--ignore-not-found']);
  });

  it('the LIST gives PartialObjectMetadata; the cache holds the Secrets by name, without data', () => {
    const held = (cache?.secrets() ?? []).filter((s) => s.namespace === NS);
    assert.deepEqual(held.map((s) => s.name).sort(), ['applied', 'before-sync']);
    for (const s of held) assert.deepEqual(Object.keys(s).sort(), ['name', 'namespace']);
    assert.ok(raw.length >= 2);
    for (const object of raw) {
      assert.equal((object as { kind?: string }).kind, 'PartialObjectMetadata', 'the API server converted it');
      assert.ok(!('data' in (object as object)) && !('stringData' in (object as object)) && !('type' in (object as object)), 'no data, stringData or type was sent');
    }
    assert.ok(!JSON.stringify(cache?.secrets()).includes(ENCODED) && !JSON.stringify(cache?.secrets()).includes(VALUE));
  });

  it('the WATCH gives PartialObjectMetadata too: a Secret created later appears without data', async () => {
    const seen = raw.length;
    await k(['create', 'secret', 'generic', 'after-sync', '-n', NS, `--from-literal=password=${VALUE}`]);
    await waitFor('the new Secret in the cache', () => Promise.resolve((cache?.secrets() ?? []).some((s) => s.namespace === NS && s.name === 'after-sync')), 30_000, 200);
    const watched = raw.slice(seen);
    assert.ok(watched.length > 0);
    for (const object of watched) {
      assert.equal((object as { kind?: string }).kind, 'PartialObjectMetadata');
      assert.ok(!('data' in (object as object)));
    }
    assert.ok(!JSON.stringify(watched).includes(ENCODED), 'the created Secret carried no last-applied annotation, and no data');
    assert.ok(!JSON.stringify(cache?.secrets()).includes(VALUE));
  });
});
