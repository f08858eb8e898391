// A pod's requests and limits, with Kubernetes' own meaning, for every route that shows one.
import type { ContainerResources, PodObject } from '../cluster/model.ts';

export type PodResources = ContainerResources;

/**
 * A request is the sum over the containers, an unset one counting 0, as the scheduler adds
 * them; null only when no container sets it. (The API server already defaults a container's
 * request to its limit when only the limit is set, so the informer's pods carry both.)
 * A limit is the sum only when every container sets it, else null: one unbounded container
 * makes the pod unbounded.
 * Init containers are not counted: the slimmed pod (runtime/kube/slim-pod.ts) does not keep
 * their resources, so this is the running containers' request, not the scheduler's
 * max(init, sum) effective request.
 */
export function podResources(pod: Pick<PodObject, 'containers'>): PodResources {
  const resources = pod.containers.map((c) => c.resources);
  const request = (pick: (r: ContainerResources) => number | null): number | null => {
    const set = resources.map(pick).filter((x): x is number => x !== null);
    return set.length === 0 ? null : set.reduce((a, b) => a + b, 0);
  };
  const limit = (pick: (r: ContainerResources) => number | null): number | null => {
    const values = resources.map(pick);
    return values.length === 0 || values.some((x) => x === null) ? null : values.reduce<number>((a, b) => a + (b ?? 0), 0);
  };
  return {
    cpuRequestM: request((r) => r.cpuRequestM),
    cpuLimitM: limit((r) => r.cpuLimitM),
    memRequestBytes: request((r) => r.memRequestBytes),
    memLimitBytes: limit((r) => r.memLimitBytes),
  };
}
