// What RBAC keeps Capstan from reading, as the answers name it: the informer cache serves a
// refused resource empty (never unready), so every surface built on it must say which
// resource, and where, rather than show an empty list as if nothing were there.
import type { Unreadable } from '../../schema/health.ts';
import type { CacheSyncStatus } from './model.ts';

/**
 * One line per refused resource and namespace (namespace null: the cluster-wide LIST was
 * refused), resources in the cache's order, namespaces in name order. Refusals in a namespace
 * `inScope` rejects are left out: that namespace is not the caller's to hear of.
 */
export function unreadableOf(status: readonly CacheSyncStatus[], inScope: (namespace: string) => boolean): Unreadable[] {
  return status
    .filter((s) => s.forbidden)
    .flatMap((s): Unreadable[] => (s.forbidden_namespaces.length === 0 ? [{ resource: s.resource, namespace: null }] : s.forbidden_namespaces.filter(inScope).map((namespace) => ({ resource: s.resource, namespace }))));
}

/** Which of `resources` RBAC refuses in `namespace`: a cluster-wide refusal counts in every namespace. */
export function refusedIn(status: readonly CacheSyncStatus[], namespace: string, resources: readonly string[]): string[] {
  return resources.filter((resource) => status.some((s) => s.resource === resource && s.forbidden && (s.forbidden_namespaces.length === 0 || s.forbidden_namespaces.includes(namespace))));
}
