// Namespace-scoped reads without a scan of the whole cluster: the informer cache hands out
// the same array until something changes, so one index per array serves every request in
// between, and a read of one namespace costs the size of that namespace, not of the cluster.

const indexes = new WeakMap<readonly { namespace: string }[], ReadonlyMap<string, readonly { namespace: string }[]>>();
const NONE: readonly never[] = Object.freeze([]);

function indexOf<T extends { namespace: string }>(all: readonly T[]): ReadonlyMap<string, readonly T[]> {
  let index = indexes.get(all) as ReadonlyMap<string, readonly T[]> | undefined;
  if (index === undefined) {
    const built = new Map<string, T[]>();
    for (const object of all) {
      const list = built.get(object.namespace);
      if (list === undefined) built.set(object.namespace, [object]);
      else list.push(object);
    }
    index = built;
    indexes.set(all, index);
  }
  return index;
}

/** The objects of `all` in `namespace`, in their original order. */
export function inNamespace<T extends { namespace: string }>(all: readonly T[], namespace: string): readonly T[] {
  return indexOf(all).get(namespace) ?? NONE;
}
