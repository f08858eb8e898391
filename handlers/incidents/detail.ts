import type { Out } from '../../schema/common.ts';
import type { IncidentDetail, IncidentDetailInput } from '../../schema/incidents.ts';
import type { HandlerContext } from '../context.ts';
import type { PodObject } from '../../domain/cluster/model.ts';
import { inNamespace } from '../../domain/cluster/by-namespace.ts';
import { redactText } from '../../domain/redaction/redact.ts';
import { shortAge } from '../../domain/resources/age.ts';
import { podResources } from '../../domain/resources/pod.ts';
import { fail, ok, type Result } from '../result.ts';
import { eventsByPod, incidentOf } from '../../domain/incidents/detect.ts';
import { nodeId } from '../../domain/cluster/node-id.ts';

export const DETAIL_EVENTS = 15;
export const DETAIL_LOG_LINES = 40;

const iso = (ts: string | null) => (ts === null ? null : new Date(ts).toISOString());
const pct = (used: number | null, limit: number | null) => (used === null || limit === null || limit === 0 ? null : Math.round((used / limit) * 1000) / 10);

function resourcesOf(pod: PodObject, ctx: HandlerContext): Out<typeof IncidentDetail>['resources'] {
  const metrics = ctx.cluster.metrics();
  const usage = metrics.available ? (metrics.pods.get(`${pod.namespace}/${pod.name}`) ?? null) : null;
  const { cpuRequestM, cpuLimitM: cpuLimit, memRequestBytes, memLimitBytes: memLimit } = podResources(pod);
  const cpu = usage?.cpuM ?? null;
  const mem = usage?.memBytes ?? null;
  return {
    available: usage !== null,
    ...(usage === null ? { reason: metrics.available ? 'the metrics server has not measured this pod yet' : metrics.reason } : {}),
    cpu_usage_m: cpu,
    cpu_request_m: cpuRequestM,
    cpu_limit_m: cpuLimit,
    cpu_pct_of_limit: pct(cpu, cpuLimit),
    mem_usage_bytes: mem,
    mem_request_bytes: memRequestBytes,
    mem_limit_bytes: memLimit,
    mem_pct_of_limit: pct(mem, memLimit),
  };
}

/** The incident story of one pod: what failed, the last exit, recent events, a redacted log tail, resources. */
export async function incidentDetail(input: Out<typeof IncidentDetailInput>, ctx: HandlerContext): Promise<Result<Out<typeof IncidentDetail>>> {
  const pod = inNamespace(ctx.cluster.pods(), input.namespace).find((p) => p.name === input.pod);
  if (!pod) return fail({ code: 'not_found', message: `no pod ${input.namespace}/${input.pod}` });
  const now = ctx.clock.now();
  const podEvents = eventsByPod(ctx.cluster.events()).get(`${pod.namespace}/${pod.name}`) ?? [];
  const incident = incidentOf(pod, ctx.diagnosis.problem(nodeId('Pod', pod.namespace, pod.name)), podEvents, ctx.cluster.metrics(), now);

  const container = incident?.container || pod.statuses.find((s) => s.restartCount > 0)?.name || pod.containers[0]?.name || '';
  const status = pod.statuses.find((s) => s.name === container);
  const exit = status?.lastTerminated ?? status?.terminated ?? null;
  // A restarted container's current instance has barely logged; the previous one holds the failure.
  const previous = (status?.restartCount ?? 0) > 0 && status?.lastTerminated !== null;
  const logs = container === '' ? { ok: false as const, reason: 'the pod has no containers' } : await ctx.logs.tail(pod.namespace, pod.name, container, { previous, lines: DETAIL_LOG_LINES });
  const events = [...podEvents]
    .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
    .slice(0, DETAIL_EVENTS)
    .map((e) => ({ type: e.type, reason: e.reason, message: redactText(e.message), count: e.count, last_seen: iso(e.lastSeen), age: shortAge(e.lastSeen, now) }));
  return ok({
    incident,
    last_exit: exit && status ? { container: status.name, exit_code: exit.exitCode, reason: exit.reason, signal: exit.signal, started_at: iso(exit.startedAt), finished_at: iso(exit.finishedAt) } : null,
    events,
    log_tail: logs.ok ? redactText(logs.text.split('\n').slice(-DETAIL_LOG_LINES - 1).join('\n')) : '',
    log_source: { container, previous, error: logs.ok ? null : logs.reason },
    resources: resourcesOf(pod, ctx),
    generated_at: now.toISOString(),
  });
}
