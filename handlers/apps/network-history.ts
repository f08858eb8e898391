import type { Out } from '../../schema/common.ts';
import { HISTORY_SAMPLE_INTERVAL_SECS, HISTORY_WINDOWS, type HistoryWindow } from '../../schema/metrics.ts';
import type { AppHistoryInput, AppNetworkHistory } from '../../schema/apps.ts';
import type { HandlerContext } from '../context.ts';
import { planBuckets } from '../../domain/history/buckets.ts';
import type { HistoryPointValues } from '../metrics/service.ts';
import { HISTORY_BUCKETS } from '../metrics/history.ts';
import { fail, ok, type Result } from '../result.ts';
import { appPods } from './members.ts';
import { byWorkload, networkUnavailable } from './metrics.ts';

type Point = { ts: number; rx_bps: number | null; tx_bps: number | null };

const plus = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);

/** Adds the pods' rates bucket by bucket; a bucket no pod measured stays null, never 0. */
export function sumSeries(perPod: readonly (readonly HistoryPointValues[])[]): Point[] {
  const byTs = new Map<number, Point>();
  for (const points of perPod) {
    for (const p of points) {
      const acc = byTs.get(p.ts) ?? { ts: p.ts, rx_bps: null, tx_bps: null };
      acc.rx_bps = plus(acc.rx_bps, p.rxBps);
      acc.tx_bps = plus(acc.tx_bps, p.txBps);
      byTs.set(p.ts, acc);
    }
  }
  return [...byTs.values()].sort((a, b) => a.ts - b.ts);
}

/** Received and transmitted bytes per second of each of the application's workloads over a window. */
export async function appNetworkHistory(input: Out<typeof AppHistoryInput>, ctx: HandlerContext): Promise<Result<Out<typeof AppNetworkHistory>>> {
  const app = await ctx.apps.get(input.id);
  if (!app) return fail({ code: 'not_found', message: `no application ${input.id}` });
  const window: HistoryWindow = input.window;
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - HISTORY_WINDOWS[window] * 1000);
  const base = { source: 'kubelet' as const, window, sample_interval_secs: HISTORY_SAMPLE_INTERVAL_SECS };
  // Without asking the store, the size it would have answered (one rule, domain/history/buckets.ts).
  const bucketSecs = planBuckets(from, to, to, HISTORY_BUCKETS).bucketSecs;
  const reason = networkUnavailable(ctx.network);
  if (reason !== null) return ok({ ...base, available: false, reason, bucket_secs: bucketSecs, workloads: [] });

  let answeredBucketSecs = bucketSecs;
  const workloads = [];
  for (const group of byWorkload(appPods(app, ctx.cluster))) {
    const perPod = [];
    for (const pod of group.pods) {
      const result = await ctx.history.query({ scope: 'pod', namespace: pod.namespace, pod: pod.name, from, to, buckets: HISTORY_BUCKETS });
      answeredBucketSecs = result.bucketSecs;
      perPod.push(result.points);
    }
    workloads.push({ namespace: group.namespace, workload: group.workload, series: sumSeries(perPod) });
  }
  const available = workloads.some((w) => w.series.some((p) => p.rx_bps !== null || p.tx_bps !== null));
  return ok({
    ...base,
    available,
    ...(available ? {} : { reason: 'no network samples in this window yet (one is taken every 60 s)' }),
    bucket_secs: answeredBucketSecs,
    workloads,
  });
}
