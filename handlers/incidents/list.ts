import type * as v from 'valibot';
import type { Incident, IncidentList, IncidentsInput } from '../../schema/incidents.ts';
import type { HandlerContext } from '../context.ts';
import { isVisibleNamespace } from '../namespaces/visibility.ts';
import { fail, ok, type Result } from '../result.ts';
import { compareIncidents, eventsByPod, incidentOf } from './detect.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/** Unhealthy, crash-looping, stuck-pending and memory-pressured pods, from one pod list. */
export function listIncidents(input: Out<typeof IncidentsInput>, ctx: HandlerContext): Result<Out<typeof IncidentList>> {
  const all = input.namespace === '*';
  if (!all && !isVisibleNamespace(input.namespace, ctx.settings.tenantNamespaces)) {
    return fail({ code: 'forbidden', message: `namespace ${input.namespace} is outside what Capstan may show` });
  }
  const now = ctx.clock.now();
  const inScope = (ns: string) => (all ? isVisibleNamespace(ns, ctx.settings.tenantNamespaces) : ns === input.namespace);
  const events = eventsByPod(ctx.cluster.events());
  const metrics = ctx.cluster.metrics();
  const incidents: Incident[] = [];
  for (const pod of ctx.cluster.pods()) {
    if (!inScope(pod.namespace)) continue;
    const incident = incidentOf(pod, events.get(`${pod.namespace}/${pod.name}`) ?? [], metrics, now);
    if (incident) incidents.push(incident);
  }
  incidents.sort(compareIncidents);
  const critical = incidents.filter((i) => i.severity === 'critical').length;
  return ok({
    incidents,
    total: incidents.length,
    critical,
    warning: incidents.length - critical,
    metrics_available: metrics.available,
    ...(metrics.available ? {} : { reason: metrics.reason }),
    generated_at: now.toISOString(),
  });
}
