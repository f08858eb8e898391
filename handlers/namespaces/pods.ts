import type { Out } from '../../schema/common.ts';
import type { PodList, PodsInput } from '../../schema/overview.ts';
import type { HandlerContext } from '../context.ts';
import { inNamespace } from '../../domain/cluster/by-namespace.ts';
import { shortAge } from '../../domain/resources/age.ts';
import { podResources } from '../../domain/resources/pod.ts';
import { fail, ok, type Result } from '../result.ts';

/** A namespace's pods (the route declares `namespace`, so a hidden one never gets here). */
export function listPods(input: Out<typeof PodsInput>, ctx: HandlerContext): Result<Out<typeof PodList>> {
  if (!ctx.cluster.namespaces().some((ns) => ns.name === input.namespace)) return fail({ code: 'not_found', message: `no namespace ${input.namespace}` });
  const now = ctx.clock.now();
  const pods = inNamespace(ctx.cluster.pods(), input.namespace)
    .map((p) => ({ pod: p, resources: podResources(p) }))
    .map(({ pod: p, resources }) => ({
      name: p.name,
      phase: p.phase,
      ready: `${p.statuses.filter((s) => s.ready).length}/${p.containers.length}`,
      restarts: p.statuses.reduce((n, s) => n + s.restartCount, 0),
      node: p.nodeName,
      age: shortAge(p.createdAt, now),
      created_at: p.createdAt === null ? null : new Date(p.createdAt).toISOString(),
      workload_kind: p.workload.kind,
      workload_name: p.workload.name,
      cpu_request_m: resources.cpuRequestM,
      cpu_limit_m: resources.cpuLimitM,
      mem_request_bytes: resources.memRequestBytes,
      mem_limit_bytes: resources.memLimitBytes,
      containers: p.containers.map((c) => c.name),
      init_containers: p.initContainers.map((c) => c.name),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return ok({ namespace: input.namespace, pods, total: pods.length });
}
