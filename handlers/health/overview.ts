import type { Incident } from '../../schema/incidents.ts';
import type { Overview } from '../../schema/overview.ts';
import type { HandlerContext } from '../context.ts';
import { eventsByPod, incidentOf } from '../../domain/incidents/detect.ts';
import { nodeId } from '../../domain/cluster/node-id.ts';
import { ok, type Result } from '../result.ts';
import { compareHealth, namespaceHealth, rootCausesByNamespace, VERDICT_READS } from '../../domain/health/verdict.ts';
import { refusedIn } from '../../domain/cluster/unreadable.ts';
import { clusterLoad } from '../../domain/resources/node-load.ts';

export const OVERVIEW_TTL_SECS = 30;

/** Groups by namespace in one pass, so the overview stays linear in the cluster size. */
function byNamespace<T extends { namespace: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.namespace);
    if (group) group.push(item);
    else groups.set(item.namespace, [item]);
  }
  return groups;
}

function computeOverview(ctx: HandlerContext): Omit<Overview, 'cached_at' | 'cache_ttl_secs'> {
  const now = ctx.clock.now();
  const sync = ctx.cluster.syncStatus();
  const complete = sync.every((s) => s.synced);
  const pods = ctx.cluster.pods();
  const events = ctx.cluster.events();
  const metrics = ctx.cluster.metrics();
  const eventsByNs = byNamespace(events);
  const podEvents = eventsByPod(events);
  const incidents: Incident[] = [];
  for (const pod of pods) {
    const incident = incidentOf(pod, ctx.diagnosis.problem(nodeId('Pod', pod.namespace, pod.name)), podEvents.get(`${pod.namespace}/${pod.name}`) ?? [], metrics, now);
    if (incident) incidents.push(incident);
  }
  const podsByNs = byNamespace(pods);
  const incidentsByNs = byNamespace(incidents);
  const workloadsByNs = byNamespace(ctx.cluster.workloads());
  const servicesByNs = byNamespace(ctx.cluster.services());
  const pvcsByNs = byNamespace(ctx.cluster.pvcs());
  const rootCauses = rootCausesByNamespace(ctx.diagnosis.answer(null));
  const namespaces = ctx.cluster
    .namespaces()
    .map((ns) =>
      namespaceHealth({
        namespace: ns.name,
        complete,
        pods: podsByNs.get(ns.name) ?? [],
        incidents: incidentsByNs.get(ns.name) ?? [],
        workloads: workloadsByNs.get(ns.name) ?? [],
        services: servicesByNs.get(ns.name) ?? [],
        pvcs: pvcsByNs.get(ns.name) ?? [],
        events: eventsByNs.get(ns.name) ?? [],
        rootCauses: rootCauses.get(ns.name) ?? [],
        unreadable: refusedIn(sync, ns.name, VERDICT_READS),
      }),
    )
    .sort(compareHealth);
  const load = clusterLoad(ctx.capacity.nodes());
  const capacity = {
    nodes: load.nodes,
    cpu_m: { allocatable: load.allocatable.cpuM, requested: load.requested.cpuM, used: load.used?.cpuM ?? null },
    memory_bytes: { allocatable: load.allocatable.memBytes, requested: load.requested.memBytes, used: load.used?.memBytes ?? null },
    pods: { allocatable: load.allocatable.pods, scheduled: load.pods },
  };
  return { namespaces, capacity, total_namespaces: namespaces.length, unreadable: ctx.cluster.unreadable() };
}

/** Namespace health, worst first, from a 30 s server cache (`cached_at` says how old). */
export function overview(_input: object, ctx: HandlerContext): Result<Overview> {
  // The whole answer is cached, not just its parts: every caller within the 30 s gets the
  // same object, which the runtime then serialises once.
  const cached = ctx.memo.get('overview', OVERVIEW_TTL_SECS * 1000, (): Overview => ({
    ...computeOverview(ctx),
    cached_at: ctx.clock.now().toISOString(),
    cache_ttl_secs: OVERVIEW_TTL_SECS,
  }));
  return ok(cached.value);
}
