// What each node holds against what it offers: the requests of the pods bound to it (what the
// scheduler counts), their measured usage where metrics-server answers, and the pod count,
// beside the node's allocatable. Aggregates only (no pod is named), over every pod whatever
// its namespace: a node's load is the node's, as `kubectl describe node` shows it.
import type { ClusterView, NodeResources } from '../cluster/model.ts';
import { podResources } from './pod.ts';

export interface NodeLoad {
  allocatable: NodeResources;
  /** Sums over the node's pods that have not ended (Succeeded and Failed pods hold nothing). */
  requested: { cpuM: number; memBytes: number };
  /** Measured usage of those pods; null without metrics (or before the first measurement of any of them). */
  used: { cpuM: number; memBytes: number } | null;
  pods: number;
}

export interface ClusterLoad {
  nodes: number;
  allocatable: { cpuM: number; memBytes: number; pods: number };
  requested: { cpuM: number; memBytes: number };
  used: { cpuM: number; memBytes: number } | null;
  pods: number;
}

export function nodeLoads(view: Pick<ClusterView, 'nodes' | 'pods' | 'metrics'>): Map<string, NodeLoad> {
  const metrics = view.metrics();
  const loads = new Map<string, NodeLoad>(view.nodes().map((n) => [n.name, { allocatable: n.allocatable, requested: { cpuM: 0, memBytes: 0 }, used: null, pods: 0 }]));
  for (const pod of view.pods()) {
    if (pod.nodeName === null || pod.phase === 'Succeeded' || pod.phase === 'Failed') continue;
    const load = loads.get(pod.nodeName);
    if (load === undefined) continue;
    const r = podResources(pod);
    load.requested.cpuM += r.cpuRequestM ?? 0;
    load.requested.memBytes += r.memRequestBytes ?? 0;
    load.pods++;
    const usage = metrics.available ? metrics.pods.get(`${pod.namespace}/${pod.name}`) : undefined;
    if (usage !== undefined) load.used = { cpuM: (load.used?.cpuM ?? 0) + usage.cpuM, memBytes: (load.used?.memBytes ?? 0) + usage.memBytes };
  }
  return loads;
}

/** The cluster's totals; a node that did not report an allocatable adds nothing to it. */
export function clusterLoad(loads: ReadonlyMap<string, NodeLoad>): ClusterLoad {
  const total: ClusterLoad = { nodes: loads.size, allocatable: { cpuM: 0, memBytes: 0, pods: 0 }, requested: { cpuM: 0, memBytes: 0 }, used: null, pods: 0 };
  for (const load of loads.values()) {
    total.allocatable.cpuM += load.allocatable.cpuM ?? 0;
    total.allocatable.memBytes += load.allocatable.memBytes ?? 0;
    total.allocatable.pods += load.allocatable.pods ?? 0;
    total.requested.cpuM += load.requested.cpuM;
    total.requested.memBytes += load.requested.memBytes;
    total.pods += load.pods;
    if (load.used !== null) total.used = { cpuM: (total.used?.cpuM ?? 0) + load.used.cpuM, memBytes: (total.used?.memBytes ?? 0) + load.used.memBytes };
  }
  return total;
}
