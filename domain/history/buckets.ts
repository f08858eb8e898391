// How a history window is cut into buckets: one rule for the store that fills them and for
// every handler or stub that reports a bucket size without asking the store, so a chart's
// x axis never depends on which path answered.

/** The sampler's interval: raw points are this far apart. */
export const SAMPLE_SECS = 60;
/** The downsampled tier's resolution: one point per 10 minutes. */
export const TEN_MINUTE_SECS = 600;
/** Windows starting within this of now read the raw tier (kept ~26 h); older ones read 10-minute points. */
export const RAW_HORIZON_SECS = 25 * 3600;
/** More buckets than this are not drawn; asking for more widens them instead. */
export const MAX_BUCKETS = 2000;

export interface BucketPlan {
  /** Which tier serves the window, and its resolution in seconds. */
  tier: 'raw' | 'ten_minute';
  resolutionSecs: number;
  /** A whole multiple of the resolution, so no bucket is systematically empty or splits a 10-minute point. */
  bucketSecs: number;
  /** Unix seconds: the first bucket's start (aligned down to bucketSecs) and the window's end (rounded up). */
  startSecs: number;
  toSecs: number;
  /** Buckets from startSecs to toSecs. */
  count: number;
}

const alignDown = (ts: number, secs: number): number => Math.floor(ts / secs) * secs;

/**
 * Plans the buckets of the window [from, to) read at `now`, about `requested` of them.
 * The size depends on the window's length, not on where within a second the clock stands:
 * a 24 h window is 720 s buckets whether `to` is on a whole second or half past one.
 */
export function planBuckets(from: Date, to: Date, now: Date, requested: number): BucketPlan {
  const fromMs = from.getTime();
  const toMs = to.getTime();
  if (!(toMs > fromMs) || !Number.isInteger(requested) || requested < 1) throw new RangeError('history query needs from < to and a positive whole number of buckets');
  const fromSecs = Math.floor(fromMs / 1000);
  const toSecs = Math.ceil(toMs / 1000);
  const tier = fromSecs >= Math.floor(now.getTime() / 1000) - RAW_HORIZON_SECS ? 'raw' : 'ten_minute';
  const resolutionSecs = tier === 'raw' ? SAMPLE_SECS : TEN_MINUTE_SECS;
  const spanSecs = Math.ceil((toMs - fromMs) / 1000);
  const bucketSecs = Math.max(1, Math.ceil(spanSecs / Math.min(requested, MAX_BUCKETS) / resolutionSecs)) * resolutionSecs;
  const startSecs = alignDown(fromSecs, bucketSecs);
  return { tier, resolutionSecs, bucketSecs, startSecs, toSecs, count: Math.ceil((toSecs - startSecs) / bucketSecs) };
}
