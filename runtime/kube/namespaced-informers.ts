// One resource listed namespace by namespace (CAPSTAN_WATCH_SCOPE=namespaces) and served as if
// it were one cluster-wide informer: the cache and everything reading ClusterView see one
// array, and /readyz one line per resource naming the namespaces RBAC refused.
import type { CacheSyncStatus } from '../../domain/cluster/model.ts';
import type { Informer } from './informer.ts';

/** What ClusterCache needs of a resource's cache, whether one informer or one per namespace. */
export interface CacheSource<T> {
  readonly resource: string;
  /** Resolves once every LIST behind it completed (or was refused) once. */
  start(): Promise<void>;
  stop(): void;
  status(): CacheSyncStatus;
  /** Since when it has been unable to refresh (the earliest of its lists); null while healthy. Cheap: asked on every request. */
  failingSince(): Date | null;
  /** Keeps its identity until something in it changes, as Informer.values() does. */
  values(): readonly T[];
}

export class PerNamespaceInformer<T> implements CacheSource<T> {
  private readonly all: () => readonly T[];

  constructor(
    readonly resource: string,
    private readonly members: readonly Informer<T>[],
  ) {
    this.all = joined(() => members.map((m) => m.values()));
  }

  async start(): Promise<void> {
    await Promise.all(this.members.map((m) => m.start()));
  }

  stop(): void {
    for (const member of this.members) member.stop();
  }

  status(): CacheSyncStatus {
    return combinedStatus(
      this.resource,
      this.members.map((m) => m.status()),
    );
  }

  failingSince(): Date | null {
    let earliest: Date | null = null;
    for (const member of this.members) {
      const since = member.failingSince();
      if (since !== null && (earliest === null || since < earliest)) earliest = since;
    }
    return earliest;
  }

  values(): readonly T[] {
    return this.all();
  }
}

/**
 * One line for a resource listed in several namespaces: synced once all are, failing since the
 * earliest failure, forbidden when any namespace is refused (a reader cannot tell which objects
 * are missing, so it must treat the whole list as incomplete), with the refused namespaces named.
 */
export function combinedStatus(resource: string, parts: readonly CacheSyncStatus[]): CacheSyncStatus {
  const failing = parts.map((p) => p.failing_since).filter((t): t is string => t !== null);
  const refused = [...new Set(parts.flatMap((p) => p.forbidden_namespaces))].sort();
  return {
    resource,
    synced: parts.every((p) => p.synced),
    failing_since: failing.length === 0 ? null : failing.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)),
    forbidden: parts.some((p) => p.forbidden),
    forbidden_namespaces: refused,
  };
}

/**
 * Several informers' arrays as one, rebuilt only when one of them changed: like each
 * informer's values(), the result keeps its identity between changes.
 */
export function joined<T>(parts: () => readonly (readonly T[])[]): () => readonly T[] {
  let last: readonly (readonly T[])[] = [];
  let all: readonly T[] = [];
  return () => {
    const now = parts();
    if (now.length !== last.length || now.some((part, i) => part !== last[i])) {
      last = now;
      all = now.length === 1 ? (now[0] ?? []) : now.flat();
    }
    return all;
  };
}
