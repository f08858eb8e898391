// The control plane of one scale of `npm run bench`: brings the scale scenario up in its own
// directory, or grows the previous scale's control plane into it (the scenarios nest: a
// smaller one is the start of a larger one), then waits until the cluster has settled (every
// scenario pod created, and no pod Pending but the ones the scenario keeps Pending on purpose),
// so what the agent is then timed on is a finished cluster, not the scheduler's progress.
// Times both; reports, never asserts.
import { extend, up, type LocalCluster } from '../dev/localcluster/cluster.ts';
import { kubectl } from '../dev/localcluster/kubectl.ts';
import { expectedCounts, OBJECTS_PER_NAMESPACE, scaleShape } from './generate-scale-scenario.ts';

export interface ClusterBringUp {
  scenario: string;
  /** The scale whose control plane was grown into this one; null for a new control plane. */
  grown_from: string | null;
  /** `localcluster up` (processes started, nodes Ready, scenario applied), or growing: nodes added, new objects applied. */
  up_secs: number;
  /** up → every pod created and the cluster settled (or the settle timeout). */
  settle_secs: number;
  settled: boolean;
  pods_expected: number;
  pods_seen: number;
  pending_expected: number;
  pending_seen: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * metrics-server scrapes every node this often. At kwokctl's 15 s, KWOK answering 200 nodes'
 * scrapes for 20000 pods fell behind (scrapes timing out, its RSS at 4.5 GiB) and moved pods to
 * Running at about half the rate it reached with metrics-server stopped. The agent polls the
 * metrics API every 30 s and samples history every 60 s: at 60 s it sees each sample at most twice.
 */
const METRICS_RESOLUTION = '60s';

async function podCounts(k: { binDir: string; kubeconfig: string }): Promise<{ total: number; pending: number }> {
  // One pod and the server's count of the rest: cheap at 20000 pods.
  const page = JSON.parse(await kubectl(['get', '--raw', '/api/v1/pods?limit=1'], k)) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  const total = page.items.length + (page.metadata.remainingItemCount ?? 0);
  // Table rows (kubectl's default output), not whole objects: small even when thousands are Pending.
  const pending = (await kubectl(['get', 'pods', '-A', '--no-headers', '--field-selector=status.phase=Pending'], { ...k, timeoutMs: 300_000 })).split('\n').filter((l) => l.trim() !== '').length;
  return { total, pending };
}

/** A new control plane for `scenario` in `dir`, or `from`'s (a smaller scale, running in `dir`) grown into it. */
export async function bringUp(scenario: string, from: string | null, dir: string, settleTimeoutSecs: number, say: (line: string) => void): Promise<{ cluster: LocalCluster; bringUp: ClusterBringUp }> {
  const expected = expectedCounts(scaleShape(scenario));
  const started = performance.now();
  let cluster: LocalCluster;
  if (from === null) {
    cluster = await up({ dir, scenario, metricsResolution: METRICS_RESOLUTION, progress: (m) => say(m) });
  } else {
    const previous = scaleShape(from);
    if (previous.namespaces >= expected.namespaces) throw new Error(`cannot grow ${from} into the smaller ${scenario}`);
    cluster = await extend(dir, scenario, previous.namespaces * OBJECTS_PER_NAMESPACE, (m) => say(m));
  }
  const upSecs = (performance.now() - started) / 1000;
  say(`${scenario}: ${from === null ? 'up' : `grown from ${from}`} in ${upSecs.toFixed(0)} s; waiting for ${expected.pods} pods, at most ${expected.pendingPods} Pending`);
  const k = { binDir: cluster.binDir, kubeconfig: cluster.kubeconfig };
  const settleStarted = performance.now();
  const deadline = settleStarted + settleTimeoutSecs * 1000;
  let counts = { total: 0, pending: Number.MAX_SAFE_INTEGER };
  let lastSaid = 0;
  for (;;) {
    try {
      counts = await podCounts(k);
    } catch (err) {
      say(`${scenario}: pod count failed (${err instanceof Error ? err.message : String(err)}); retrying`);
    }
    if (counts.total >= expected.pods && counts.pending <= expected.pendingPods) break;
    if (performance.now() > deadline) {
      say(`${scenario}: not settled after ${settleTimeoutSecs} s (${counts.total} pods, ${counts.pending} Pending); measuring anyway, and the report says so`);
      break;
    }
    if (performance.now() - lastSaid > 30_000) {
      say(`${scenario}: ${counts.total}/${expected.pods} pods, ${counts.pending} Pending`);
      lastSaid = performance.now();
    }
    await new Promise((r) => setTimeout(r, 5000));
  }
  const settled = counts.total >= expected.pods && counts.pending <= expected.pendingPods;
  const bringUpResult: ClusterBringUp = {
    scenario,
    grown_from: from,
    up_secs: round(upSecs),
    settle_secs: round((performance.now() - settleStarted) / 1000),
    settled,
    pods_expected: expected.pods,
    pods_seen: counts.total,
    pending_expected: expected.pendingPods,
    pending_seen: counts.pending,
  };
  say(`${scenario}: ${settled ? 'settled' : 'NOT settled'} ${bringUpResult.settle_secs} s after up (${counts.total} pods, ${counts.pending} Pending)`);
  return { cluster, bringUp: bringUpResult };
}
