// Resource-history benchmark: synthesizes `--pods` pods x `--days` days of 60 s samples into
// a fresh data directory through HistoryStore, then reports the database's size on disk,
// the write time, and the latency of 7-day (and 24-hour) queries.
//   node --import tsx scripts/bench-history.ts [--pods 5000] [--days 7] [--queries 200] [--seed 1] [--out path.json]
// The budget it checks: 5000 pods x 7 days in at most 200 MiB.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { HistoryStore, type HistoryQuery, type PodSample } from '../runtime/metrics/history-store.ts';
import { openDatabase } from '../runtime/store/database.ts';

const BUDGET_BYTES = 200 * 1024 * 1024;
const PODS_PER_NAMESPACE = 10;
const KiB = 1024;
const MiB = 1024 * KiB;

const { values: args } = parseArgs({
  options: {
    pods: { type: 'string', default: '5000' },
    days: { type: 'string', default: '7' },
    queries: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const PODS = Number(args.pods);
const DAYS = Number(args.days);
const QUERIES = Number(args.queries);
if (![PODS, DAYS, QUERIES].every((n) => Number.isInteger(n) && n > 0)) throw new Error('--pods, --days and --queries take positive integers');

/** mulberry32: the same seed gives the same cluster, so runs compare. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(args.seed));
const normal = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const logUniform = (lo: number, hi: number): number => Math.exp(Math.log(lo) + random() * (Math.log(hi) - Math.log(lo)));
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

interface SimPod {
  namespace: string;
  pod: string;
  cpu: number;
  memKiB: number;
  baseMemKiB: number;
  baseRate: number;
  rate: number;
  txRatio: number;
  rx: number;
  tx: number;
  resetChance: number;
  network: boolean;
}

const pods: SimPod[] = Array.from({ length: PODS }, (_, i) => {
  const ns = Math.floor(i / PODS_PER_NAMESPACE) + 1;
  const memKiB = Math.round(logUniform(50 * 1024, 2000 * 1024));
  const baseRate = logUniform(50, 2_000_000);
  return {
    namespace: `tenant-${String(ns).padStart(3, '0')}`,
    pod: `${i % PODS_PER_NAMESPACE < 8 ? 'api' : 'worker'}-${(i * 2654435761) % 0xfffff}-${i % PODS_PER_NAMESPACE}`,
    cpu: logUniform(5, 2000),
    memKiB,
    baseMemKiB: memKiB,
    baseRate,
    rate: baseRate,
    txRatio: logUniform(0.2, 5),
    rx: Math.round(random() * 1e10),
    tx: Math.round(random() * 1e10),
    // 2% crash-loop (a restart about hourly), the rest restart every few days.
    resetChance: random() < 0.02 ? 1 / 60 : 1 / (3 * 1440),
    // Some pods (host network) have no counters.
    network: random() >= 0.03,
  };
});

/** One minute of a pod: CPU a noisy random walk, memory a slow drift in KiB, counters rising at a wandering rate. */
function step(p: SimPod, readAtMs: number): PodSample {
  p.cpu = clamp(p.cpu + normal() * (0.03 * p.cpu + 1), 5, 2000);
  if (random() < 0.4) p.memKiB = Math.round(clamp(p.memKiB + normal() * Math.max(64, p.memKiB * 0.0015) + (p.baseMemKiB - p.memKiB) * 0.01, 50 * 1024, 2000 * 1024));
  p.rate = clamp(p.rate * Math.exp(normal() * 0.02 + 0.01 * Math.log(p.baseRate / p.rate)), 1, 1e8);
  if (random() < p.resetChance) {
    p.rx = Math.round(random() * 100_000);
    p.tx = Math.round(random() * 100_000);
  } else {
    p.rx += Math.round(Math.max(0, p.rate * 60 * (1 + 0.15 * normal())));
    p.tx += Math.round(Math.max(0, p.rate * p.txRatio * 60 * (1 + 0.15 * normal())));
  }
  return {
    namespace: p.namespace,
    pod: p.pod,
    cpuM: Math.round(p.cpu),
    memBytes: p.memKiB * KiB,
    rxBytes: p.network ? p.rx : null,
    txBytes: p.network ? p.tx : null,
    netAtMs: p.network ? readAtMs : null,
  };
}

function percentile(sorted: readonly number[], q: number): number {
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(3));
}

async function timeQueries(store: HistoryStore, make: (i: number) => HistoryQuery): Promise<{ p50Ms: number; p99Ms: number; maxMs: number }> {
  const took: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const q = make(i);
    const started = performance.now();
    const result = await store.query(q);
    took.push(performance.now() - started);
    if (!result.points.some((p) => p.cpuM !== null)) throw new Error(`a query came back empty: ${JSON.stringify(q)}`);
  }
  took.sort((a, b) => a - b);
  return { p50Ms: percentile(took, 0.5), p99Ms: percentile(took, 0.99), maxMs: percentile(took, 1) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-history-'));
  // Aligned start; the sampler's timer drifts by up to a second, as a real interval does.
  const start = Date.UTC(2026, 0, 5);
  let nowMs = start;
  const clock = { now: () => new Date(nowMs) };
  const db = await openDatabase(dir, clock);
  const store = new HistoryStore(db, clock);
  const ticks = DAYS * 1440;
  let slowestTickMs = 0;
  let recordMs = 0;
  const began = performance.now();
  for (let i = 0; i < ticks; i++) {
    nowMs = start + i * 60_000 + Math.floor(random() * 900);
    // Counters are read during the scrape, tens of ms before the tick is recorded, each node's at its own time.
    const samples = pods.map((p, j) => step(p, nowMs - 20 - ((j * 31 + i * 17) % 50) - Math.floor(random() * 30)));
    const t = performance.now();
    await store.record(new Date(nowMs), samples);
    const took = performance.now() - t;
    recordMs += took;
    slowestTickMs = Math.max(slowestTickMs, took);
    if (i % 1440 === 1439) process.stderr.write(`day ${(i + 1) / 1440} of ${DAYS} written, ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
  }
  await store.flush();
  const writeSecs = (performance.now() - began) / 1000;
  // With --expose-gc this is what the store's buffers (and the simulation) really hold.
  (globalThis as { gc?: () => void }).gc?.();
  const heapUsedMiB = Math.round(process.memoryUsage().heapUsed / MiB);

  const namespaces = [...new Set(pods.map((p) => p.namespace))];
  const to = new Date(nowMs);
  const week = new Date(nowMs - 7 * 86_400_000);
  const day = new Date(nowMs - 86_400_000);
  const pick = <T>(items: readonly T[], i: number): T => items[(i * 7919) % items.length] as T;
  const podAt = (i: number): HistoryQuery => ({ scope: 'pod', namespace: pick(pods, i).namespace, pod: pick(pods, i).pod, from: week, to, buckets: 120 });
  const queries = {
    pod7d: await timeQueries(store, podAt),
    namespace7d: await timeQueries(store, (i) => ({ scope: 'namespace', namespace: pick(namespaces, i), from: week, to, buckets: 120 })),
    cluster7d: await timeQueries(store, () => ({ scope: 'cluster', from: week, to, buckets: 120 })),
    pod24h: await timeQueries(store, (i) => ({ ...podAt(i), from: day })),
    cluster24h: await timeQueries(store, () => ({ scope: 'cluster', from: day, to, buckets: 120 })),
  };

  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  const pragma = async (name: string): Promise<number> => Number(Object.values((await sql.raw(`PRAGMA ${name}`).execute(db)).rows[0] ?? {})[0]);
  const pageSize = await pragma('page_size');
  const pageCount = await pragma('page_count');
  const freePages = await pragma('freelist_count');
  const tiers = await db
    .selectFrom('metric_blocks')
    .select((eb) => ['tier', eb.fn.countAll<number>().as('rows'), sql<number>`sum(length(payload))`.as('payloadBytes')])
    .groupBy('tier')
    .execute();
  const series = await db.selectFrom('metric_series').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  await db.destroy();
  const fileSize = (name: string): number => {
    try {
      return statSync(join(dir, name)).size;
    } catch {
      return 0;
    }
  };
  const dbBytes = fileSize('capstan.db') + fileSize('capstan.db-wal');
  const report = {
    pods: PODS,
    days: DAYS,
    samples: PODS * ticks,
    dbBytes,
    dbMiB: Number((dbBytes / MiB).toFixed(2)),
    budgetBytes: BUDGET_BYTES,
    withinBudget: PODS === 5000 && DAYS === 7 ? dbBytes <= BUDGET_BYTES : null,
    bytesPerPod: Math.round(dbBytes / PODS),
    pageSize,
    pageCount,
    freePages,
    series: series.n,
    tiers: tiers.map((t) => ({ tier: t.tier, rows: t.rows, payloadBytes: t.payloadBytes, bytesPerRow: Math.round(t.payloadBytes / t.rows) })),
    writeSecs: Number(writeSecs.toFixed(1)),
    recordSecs: Number((recordMs / 1000).toFixed(1)),
    slowestTickMs: Number(slowestTickMs.toFixed(1)),
    queries,
    heapUsedMiB,
    node: process.version,
  };
  const json = JSON.stringify(report, null, 2);
  process.stdout.write(`${json}\n`);
  if (args.out) writeFileSync(args.out, `${json}\n`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
