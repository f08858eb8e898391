import type { Out } from '../../schema/common.ts';
import type { Incident, IncidentList, IncidentsInput } from '../../schema/incidents.ts';
import type { HandlerContext } from '../context.ts';
import { ALL_NAMESPACES } from '../namespaces/scope.ts';
import { ok, type Result } from '../result.ts';
import { compareIncidents, eventsByPod, incidentOf } from '../../domain/incidents/detect.ts';
import { nodeId } from '../../domain/cluster/node-id.ts';

/** Answers are shared for this long (`generated_at` says when): a dashboard polling many tabs costs one computation. */
export const INCIDENTS_TTL_MS = 5000;

/** Every pod's problem now, as the diagnosis finds it, plus memory-pressured pods (domain/incidents/detect.ts). */
export function listIncidents(input: Out<typeof IncidentsInput>, ctx: HandlerContext): Result<Out<typeof IncidentList>> {
  // Only the cluster-wide answer is shared: one namespace is cheap, and a key per requested
  // name would let a client grow the cache without bound.
  if (input.namespace !== ALL_NAMESPACES) return ok(computeIncidents(input.namespace, ctx));
  return ok(ctx.memo.get('incidents:*', INCIDENTS_TTL_MS, () => computeIncidents(ALL_NAMESPACES, ctx)).value);
}

function computeIncidents(namespace: string, ctx: HandlerContext): Out<typeof IncidentList> {
  const all = namespace === ALL_NAMESPACES;
  const now = ctx.clock.now();
  // The cluster view holds only visible namespaces: `*` is every pod in it.
  const asked = (ns: string) => all || ns === namespace;
  const events = eventsByPod(ctx.cluster.events());
  const metrics = ctx.cluster.metrics();
  const incidents: Incident[] = [];
  for (const pod of ctx.cluster.pods()) {
    if (!asked(pod.namespace)) continue;
    const incident = incidentOf(pod, ctx.diagnosis.problem(nodeId('Pod', pod.namespace, pod.name)), events.get(`${pod.namespace}/${pod.name}`) ?? [], metrics, now);
    if (incident) incidents.push(incident);
  }
  incidents.sort(compareIncidents);
  const critical = incidents.filter((i) => i.severity === 'critical').length;
  return {
    incidents,
    total: incidents.length,
    critical,
    warning: incidents.length - critical,
    metrics_available: metrics.available,
    ...(metrics.available ? {} : { reason: metrics.reason }),
    generated_at: now.toISOString(),
  };
}
