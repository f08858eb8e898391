import type { Out } from '../../schema/common.ts';
import { APP_FLAGS, type AppIdInput, type AppMember, type AppMetrics } from '../../schema/apps.ts';
import type { PodObject, PodUsage } from '../../domain/cluster/model.ts';
import { podResources } from '../../domain/resources/pod.ts';
import type { HandlerContext } from '../context.ts';
import type { NetworkView } from '../metrics/service.ts';
import { memberFlags } from '../../domain/apps/flags.ts';
import { fail, ok, type Result } from '../result.ts';
import { appPods, workloadOf } from './members.ts';

type Member = Out<typeof AppMember>;

function member(pod: PodObject, usage: PodUsage | undefined): Member {
  const resources = podResources(pod);
  return {
    namespace: pod.namespace,
    pod: pod.name,
    workload: workloadOf(pod),
    cpu_millicores_used: usage ? usage.cpuM : null,
    mem_bytes_used: usage ? usage.memBytes : null,
    cpu_millicores_request: resources.cpuRequestM,
    cpu_millicores_limit: resources.cpuLimitM,
    mem_bytes_request: resources.memRequestBytes,
    mem_bytes_limit: resources.memLimitBytes,
    flags: memberFlags(pod, usage),
  };
}

/** Totals over measured members only, so used and requested compare like with like. */
function totals(members: readonly Member[]): Out<typeof AppMetrics>['totals'] {
  const measured = members.filter((m) => m.cpu_millicores_used !== null);
  const sum = (pick: (m: Member) => number | null) => measured.reduce((n, m) => n + (pick(m) ?? 0), 0);
  return {
    cpu_millicores_used: sum((m) => m.cpu_millicores_used),
    cpu_millicores_request: sum((m) => m.cpu_millicores_request),
    cpu_millicores_limit: sum((m) => m.cpu_millicores_limit),
    mem_bytes_used: sum((m) => m.mem_bytes_used),
    mem_bytes_request: sum((m) => m.mem_bytes_request),
    mem_bytes_limit: sum((m) => m.mem_bytes_limit),
    pods_measured: measured.length,
    pods_total: members.length,
  };
}

/** Pods grouped by their workload, in first-seen order (members come sorted). */
export function byWorkload(pods: readonly PodObject[]): { namespace: string; workload: string; pods: PodObject[] }[] {
  const groups = new Map<string, { namespace: string; workload: string; pods: PodObject[] }>();
  for (const pod of pods) {
    const workload = workloadOf(pod);
    const key = `${pod.namespace}/${workload}`;
    const group = groups.get(key) ?? { namespace: pod.namespace, workload, pods: [] };
    group.pods.push(pod);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Why the application's network cannot be shown, or null when it can. */
export function networkUnavailable(network: NetworkView): string | null {
  const status = network.status();
  if (!status.enabled) return 'the kubelet network scrape is off (set METRICS_KUBELET_SCRAPE=true)';
  if (!status.lastScrapeOk && status.lastScrapeError !== null) return `the last kubelet scrape failed: ${status.lastScrapeError}`;
  return null;
}

/** Network per workload, never summed across workloads: each is its own traffic. */
function network(pods: readonly PodObject[], view: NetworkView): Out<typeof AppMetrics>['network'] {
  const reason = networkUnavailable(view);
  if (reason !== null) return { available: false, source: 'kubelet', reason, workloads: [] };
  const rates = view.podRates();
  if (rates.size === 0) return { available: false, source: 'kubelet', reason: 'no rate yet: it needs two kubelet scrapes (one a minute)', workloads: [] };
  const workloads = byWorkload(pods).map(({ namespace, workload, pods: members }) => {
    const measured = members.map((p) => rates.get(`${p.namespace}/${p.name}`)).filter((r) => r !== undefined);
    const total = (pick: (r: { rxBps: number; txBps: number }) => number) => (measured.length === 0 ? null : measured.reduce((n, r) => n + pick(r), 0));
    return { namespace, workload, rx_bytes_per_sec: total((r) => r.rxBps), tx_bytes_per_sec: total((r) => r.txBps) };
  });
  return { available: true, source: 'kubelet', workloads };
}

/** Usage against requests and limits for every member pod, with flags, and network per workload. */
export async function appMetrics(input: Out<typeof AppIdInput>, ctx: HandlerContext): Promise<Result<Out<typeof AppMetrics>>> {
  const app = await ctx.apps.get(input.id);
  if (!app) return fail({ code: 'not_found', message: `no application ${input.id}` });
  const pods = appPods(app, ctx.cluster);
  const snapshot = ctx.cluster.metrics();
  const usage = (p: PodObject) => (snapshot.available ? snapshot.pods.get(`${p.namespace}/${p.name}`) : undefined);
  const members = pods.map((p) => member(p, usage(p)));
  const flags = APP_FLAGS.filter((f) => members.some((m) => m.flags.includes(f)));
  return ok({
    id: app.id,
    name: app.name,
    namespaces: app.namespaces,
    metrics_available: snapshot.available,
    reason: snapshot.available ? null : snapshot.reason,
    totals: totals(members),
    members,
    flags,
    network: network(pods, ctx.network),
    generated_at: ctx.clock.now().toISOString(),
  });
}
