// Node loads from the raw (unscoped) cluster view, kept while the pods, nodes and metrics the
// informers hand out are the same arrays, and at least CAPACITY_MIN_AGE_MS when they churn.
import type { ClusterView } from '../../domain/cluster/model.ts';
import { nodeLoads } from '../../domain/resources/node-load.ts';
import type { Memo } from '../../handlers/context.ts';
import type { CapacityService } from '../../handlers/resources/service.ts';

const CAPACITY_MIN_AGE_MS = 5000;

export function createCapacityService(cluster: ClusterView, memo: Memo): CapacityService {
  return { nodes: () => memo.derive('node-loads', [cluster.nodes(), cluster.pods(), cluster.metrics()], CAPACITY_MIN_AGE_MS, () => nodeLoads(cluster)) };
}
