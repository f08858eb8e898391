// Custom resources: the kinds the cluster's CRDs add, and their objects as rows of the same
// table every built-in kind uses (./browse.ts). Which kinds exist and what their objects hold
// come from caches the runtime starts on first use (runtime/kube/custom-resources.ts); this
// file holds what they mean and how a caller's view is cut, with no I/O. docs/resources.md.
import type { Condition } from '../cluster/model.ts';
import type { ResourceRow } from './browse.ts';

/** One kind a CRD adds, at the version the agent reads (the storage version when it is served). */
export interface CustomKind {
  /** The CRD's name: `<plural>.<group>`. */
  name: string;
  group: string;
  version: string;
  /** `Widget`, as objects name their kind. */
  kind: string;
  /** `widgets`, as paths name it. */
  plural: string;
  namespaced: boolean;
}

/** One custom object as the cache keeps it: metadata, and the status fields every controller shares by convention. */
export interface CustomObject {
  namespace: string | null;
  name: string;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
  /** `Kind/name` of its controller owner, if any. */
  owner: string | null;
  /** `status.phase`, when the controller writes one. */
  phase: string | null;
  /** `status.conditions`, when the controller writes them. */
  conditions: readonly Condition[];
}

export type CustomKindsRead = { ok: true; kinds: readonly CustomKind[] } | { ok: false; status: 'forbidden' | 'not_ready'; reason: string };

export type CustomObjectsRead =
  | {
      ok: true;
      kind: CustomKind;
      objects: readonly CustomObject[];
      /** The cache holds at most a fixed number of objects per kind: true when there were more. */
      truncated: boolean;
      /** Why none could be read (the agent's RBAC does not grant the group), or null. */
      unreadable: string | null;
    }
  | { ok: false; status: 'unknown_kind' | 'not_ready' | 'busy'; reason: string };

/** What handlers read custom resources through (already cut to the caller's namespaces when a handler gets it). */
export interface CustomResourceCatalog {
  kinds(): Promise<CustomKindsRead>;
  objects(group: string, plural: string): Promise<CustomObjectsRead>;
}

/**
 * `catalog` without the objects of namespaces the caller may not see (cluster-scoped objects
 * stay). Each cut is kept while the cache hands out the same array, as the built-in kinds' are.
 */
export function scopeCustomResources(catalog: CustomResourceCatalog, inScope: (namespace: string) => boolean): CustomResourceCatalog {
  const cuts = new WeakMap<readonly CustomObject[], readonly CustomObject[]>();
  const visible = (objects: readonly CustomObject[]): readonly CustomObject[] => {
    let cut = cuts.get(objects);
    if (cut === undefined) {
      cut = objects.filter((o) => o.namespace === null || inScope(o.namespace));
      cuts.set(objects, cut);
    }
    return cut;
  };
  return {
    kinds: () => catalog.kinds(),
    async objects(group, plural) {
      const read = await catalog.objects(group, plural);
      return read.ok ? { ...read, objects: visible(read.objects) } : read;
    },
  };
}

/** The id a custom object's row carries (no cluster-model node: `<plural>.<group>:<namespace>/<name>`). */
export function customObjectId(kind: CustomKind, namespace: string | null, name: string): string {
  return `${kind.name}:${namespace === null ? '' : `${namespace}/`}${name}`;
}

/**
 * A custom object's one-word status: its Ready condition when it has one, else its phase, else
 * `Present` (a kind whose controller writes neither says nothing more about health).
 */
export function customStatus(object: Pick<CustomObject, 'phase' | 'conditions'>): string {
  const ready = object.conditions.find((c) => c.type === 'Ready');
  if (ready !== undefined) return ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'Not ready' : 'Ready unknown';
  return object.phase ?? 'Present';
}

/** Every object of `kind` as a table row (unordered). */
export function customRows(kind: CustomKind, objects: readonly CustomObject[]): ResourceRow[] {
  return objects.map((o) => ({
    id: customObjectId(kind, o.namespace, o.name),
    kind: kind.kind,
    namespace: o.namespace,
    name: o.name,
    created_at: o.createdAt === null ? null : new Date(o.createdAt).toISOString(),
    status: customStatus(o),
    labels: o.labels,
    columns: { phase: o.phase, owner: o.owner },
    conditions: o.conditions,
  }));
}
