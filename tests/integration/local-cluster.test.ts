import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { k, kJson, waitFor, type PodList } from '../support/cluster.ts';

type Pod = PodList['items'][number];

async function podsOf(namespace: string, app: string): Promise<Pod[]> {
  return (await kJson<PodList>(['get', 'pods', '-n', namespace, '-l', `app=${app}`])).items;
}

/** Polls until some pod of `app` satisfies `check`; returns that pod. */
async function waitForPod(namespace: string, app: string, what: string, check: (pod: Pod) => boolean, timeoutMs = 150_000): Promise<Pod> {
  let found: Pod | undefined;
  await waitFor(`${namespace}/${app}: ${what}`, async () => {
    found = (await podsOf(namespace, app)).find(check);
    return found !== undefined;
  }, timeoutMs, 2000);
  if (!found) throw new Error('unreachable');
  return found;
}

/** Binary-suffixed memory quantity (what metrics-server emits) to bytes. */
function bytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(quantity);
  assert.ok(match, `unexpected memory quantity ${quantity}`);
  const power = { Ki: 1, Mi: 2, Gi: 3 }[match[2] ?? ''] ?? 0;
  return Number(match[1]) * 1024 ** power;
}

describe('local control plane with the demo scenario', () => {
  it('has every KWOK node Ready', async () => {
    const nodes = await kJson<{ items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[] }>(['get', 'nodes']);
    assert.equal(nodes.items.length, 6);
    for (const node of nodes.items) {
      const ready = node.status.conditions.find((c) => c.type === 'Ready');
      assert.equal(ready?.status, 'True', `${node.metadata.name} is not Ready`);
    }
  });

  it('crash-loops the checkout pods with a rising restart count and a non-zero last exit', async () => {
    const pod = await waitForPod('shop', 'checkout', 'restartCount >= 2 in CrashLoopBackOff', (p) => {
      const c = p.status.containerStatuses?.[0];
      return (c?.restartCount ?? 0) >= 2 && c?.state?.waiting?.reason === 'CrashLoopBackOff';
    });
    const container = pod.status.containerStatuses?.[0];
    assert.notEqual(container?.lastState?.terminated?.exitCode, 0);
    assert.equal(container?.ready, false);
  });

  it('reports OOMKilled with exit code 137 for the settlement worker', async () => {
    const pod = await waitForPod('payments', 'settlement-worker', 'lastState OOMKilled', (p) => p.status.containerStatuses?.[0]?.lastState?.terminated?.reason === 'OOMKilled');
    assert.equal(pod.status.containerStatuses?.[0]?.lastState?.terminated?.exitCode, 137);
  });

  it('leaves the oversized ml-trainer Pending with the scheduler\'s real FailedScheduling event', async () => {
    const [pod] = await podsOf('analytics', 'ml-trainer');
    assert.ok(pod, 'ml-trainer pod exists');
    assert.equal(pod.status.phase, 'Pending');
    await waitFor('FailedScheduling event', async () => {
      const events = await kJson<{ items: { reason: string; message: string }[] }>([
        'get', 'events', '-n', 'analytics', '--field-selector', `involvedObject.name=${pod.metadata.name}`,
      ]);
      return events.items.some((e) => e.reason === 'FailedScheduling' && /Insufficient cpu/.test(e.message));
    }, 60_000, 2000);
  });

  it('moves the image-updater from ErrImagePull to ImagePullBackOff', async () => {
    await waitForPod('platform', 'image-updater', 'ImagePullBackOff', (p) => p.status.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 60_000);
  });

  it('keeps the session-cache Running but never Ready', async () => {
    const pod = await waitForPod('identity', 'session-cache', 'Running', (p) => p.status.phase === 'Running');
    assert.equal(pod.status.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  });

  it('serves pod usage through metrics.k8s.io, including a pod near its memory limit', async () => {
    const [ledger] = await podsOf('payments', 'ledger');
    assert.ok(ledger);
    let usage: { containers: { usage: { cpu: string; memory: string } }[] } | undefined;
    await waitFor('metrics-server to report the ledger pod', async () => {
      const raw = await k(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/payments/pods/${ledger.metadata.name}`]);
      usage = JSON.parse(raw) as typeof usage;
      return true;
    }, 120_000, 3000);
    // 490Mi of a 512Mi limit, as the scenario annotates.
    assert.equal(bytes(usage?.containers[0]?.usage.memory ?? ''), 490 * 1024 * 1024);
  });

  it('serves current and --previous container logs', async () => {
    const [pod] = await podsOf('shop', 'checkout');
    assert.ok(pod);
    const current = await k(['logs', '-n', 'shop', pod.metadata.name]);
    const previous = await k(['logs', '-n', 'shop', pod.metadata.name, '--previous']);
    assert.match(current, /nil pointer dereference/);
    assert.match(previous, /applying promotion BLACKFRIDAY/);
    assert.doesNotMatch(current, /BLACKFRIDAY/);
  });

  it('binds the StatefulSet claims to their volumes and leaves the archive claim unbound', async () => {
    const claims = await kJson<{ items: { metadata: { name: string }; status: { phase: string } }[] }>(['get', 'pvc', '-n', 'payments']);
    const phase = (name: string) => claims.items.find((c) => c.metadata.name === name)?.status.phase;
    await waitFor('data-postgres-0 Bound', async () => {
      const now = await kJson<typeof claims>(['get', 'pvc', '-n', 'payments']);
      return now.items.some((c) => c.metadata.name === 'data-postgres-0' && c.status.phase === 'Bound');
    }, 60_000);
    assert.equal(phase('archive'), 'Pending');
  });
});
