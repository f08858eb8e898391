import type { CustomKind } from '../../domain/resources/custom.ts';
import type { NodeLoad } from '../../domain/resources/node-load.ts';

/**
 * Each node's load (requests, usage, pods) over every pod of the cluster, whatever the caller
 * may see: aggregates name no pod (domain/resources/node-load.ts says why that is the node's
 * own figure). Remade at most every few seconds, not per request.
 */
export interface CapacityService {
  nodes(): ReadonlyMap<string, NodeLoad>;
}

export type ObjectRead = { ok: true; object: unknown } | { ok: false; status: number; reason: string };

/** One object read live (the detail view): a GET per request, never a LIST. */
export interface ObjectReader {
  get(kind: string, namespace: string | null, name: string): Promise<ObjectRead>;
  /** One custom object, at the version the catalog reads its kind. */
  getCustom(kind: CustomKind, namespace: string | null, name: string): Promise<ObjectRead>;
}
