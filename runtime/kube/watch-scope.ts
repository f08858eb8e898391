// Where the agent's informers list from. `cluster` (the default) lists every namespaced kind
// cluster-wide, which needs a ClusterRole over them. `namespaces` is for installs with
// rbac.clusterWide=false (spec §5 "Roles and Kubernetes permissions"): the chart grants the
// namespaced reads only as Roles in each tenant namespace, so a cluster-wide LIST of pods would
// be refused and the agent lists each tenant namespace on its own instead.
import { isSystemNamespace } from '../../domain/namespaces/visibility.ts';

export const WATCH_SCOPES = ['cluster', 'namespaces'] as const;
export type WatchScope = (typeof WATCH_SCOPES)[number];

export function parseWatchScope(value: string | undefined, name: string): WatchScope {
  if (value === undefined || value === '') return 'cluster';
  const scope = WATCH_SCOPES.find((s) => s === value);
  if (scope === undefined) throw new Error(`${name} must be cluster or namespaces, got "${value}"`);
  return scope;
}

/**
 * The namespaces to list one by one, or null to list cluster-wide. In `namespaces` scope these
 * are the tenant namespaces minus the system ones (never shown, so never worth a watch, and
 * never granted by the chart), without repeats, in name order. Throws when none remain: the
 * agent would otherwise run blind, ready and empty.
 */
export function watchedNamespaces(scope: WatchScope, tenantNamespaces: readonly string[]): readonly string[] | null {
  if (scope === 'cluster') return null;
  const watched = [...new Set(tenantNamespaces)].filter((ns) => !isSystemNamespace(ns)).sort();
  if (watched.length === 0) {
    const given = tenantNamespaces.length === 0 ? 'none are set' : `only system namespaces are set (${tenantNamespaces.join(', ')}), which Capstan never shows`;
    throw new Error(`CAPSTAN_WATCH_SCOPE=namespaces lists each tenant namespace on its own, but ${given}: set CAPSTAN_TENANT_NAMESPACES (--tenant-namespaces) to the namespaces Capstan was granted, or use CAPSTAN_WATCH_SCOPE=cluster`);
  }
  return watched;
}

/**
 * A cluster-wide collection path narrowed to one namespace: `/api/v1/pods` becomes
 * `/api/v1/namespaces/<ns>/pods`, `/apis/apps/v1/deployments` becomes
 * `/apis/apps/v1/namespaces/<ns>/deployments` (the resource is always the last segment).
 */
export function namespacedPath(path: string, namespace: string): string {
  const cut = path.lastIndexOf('/');
  if (cut <= 0 || path.includes('/namespaces/')) throw new Error(`not a cluster-wide collection path: ${path}`);
  return `${path.slice(0, cut)}/namespaces/${encodeURIComponent(namespace)}${path.slice(cut)}`;
}
