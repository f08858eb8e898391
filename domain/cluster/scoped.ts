// The cluster as a handler may show it: every namespaced object outside the visible
// namespaces (spec §1 "Namespace blocklist", and tenantNamespaces when set) is simply not
// there. Applied once, here, so no handler can forget to filter.
import { isVisibleNamespace } from '../namespaces/visibility.ts';
import type { Unreadable } from '../../schema/health.ts';
import { keptWhile } from '../derived.ts';
import type { ClusterView, MetricsSnapshot, PvObject } from './model.ts';
import { unreadableOf } from './unreadable.ts';

export interface ScopedClusterView extends ClusterView {
  /** Whether the caller may see this namespace (whether or not it exists). */
  inScope(namespace: string): boolean;
  /** What RBAC keeps Capstan from reading, without refusals in namespaces the caller may not see (unreadableOf). */
  unreadable(): Unreadable[];
}

/** The first of `namespaces` the caller may not see, or undefined (the one out-of-scope refusal names it: handlers/namespaces/scope.ts). */
export function firstHidden(view: Pick<ScopedClusterView, 'inScope'>, namespaces: readonly string[]): string | undefined {
  return namespaces.find((ns) => !view.inScope(ns));
}

/**
 * Wraps `view` so every accessor answers only what is visible. The informer cache hands out
 * the same array until something changes, so each filtered answer is kept for as long as
 * its source array is the same one: 5000 pods are filtered once per change, not per request.
 */
export function scopeClusterView(view: ClusterView, tenantNamespaces: readonly string[]): ScopedClusterView {
  const inScope = (namespace: string) => isVisibleNamespace(namespace, tenantNamespaces);
  const namespaced = <T extends { namespace: string }>(read: () => readonly T[]) => keptWhile(read, (all) => all.filter((o) => inScope(o.namespace)));
  // A PersistentVolume is cluster-wide, but one bound to a hidden claim tells of that namespace.
  const unclaimedOrVisible = (pv: PvObject) => pv.claim === null || inScope(pv.claim.namespace);
  return {
    inScope,
    namespaces: keptWhile(() => view.namespaces(), (all) => all.filter((ns) => inScope(ns.name))),
    pods: namespaced(() => view.pods()),
    nodes: () => view.nodes(),
    events: namespaced(() => view.events()),
    workloads: namespaced(() => view.workloads()),
    services: namespaced(() => view.services()),
    pvcs: namespaced(() => view.pvcs()),
    controllers: namespaced(() => view.controllers()),
    ingresses: namespaced(() => view.ingresses()),
    configMaps: namespaced(() => view.configMaps()),
    secrets: namespaced(() => view.secrets()),
    pvs: keptWhile(() => view.pvs(), (all) => all.filter(unclaimedOrVisible)),
    endpointSlices: namespaced(() => view.endpointSlices()),
    ingressClasses: () => view.ingressClasses(),
    storageClasses: () => view.storageClasses(),
    nodeLeases: () => view.nodeLeases(),
    resourceQuotas: namespaced(() => view.resourceQuotas()),
    limitRanges: namespaced(() => view.limitRanges()),
    hpas: namespaced(() => view.hpas()),
    pdbs: namespaced(() => view.pdbs()),
    metrics: keptWhile(() => view.metrics(), (snapshot) => visibleMetrics(snapshot, inScope)),
    vulnerabilityReports: namespaced(() => view.vulnerabilityReports()),
    configAuditReports: namespaced(() => view.configAuditReports()),
    scannerReportStatus: () => view.scannerReportStatus(),
    syncStatus: () => view.syncStatus(),
    unreadable: () => unreadableOf(view.syncStatus(), inScope),
    staleSince: () => view.staleSince(),
  };
}

/** Pod usage keyed `namespace/pod`, without the pods of hidden namespaces. */
function visibleMetrics(snapshot: MetricsSnapshot, inScope: (namespace: string) => boolean): MetricsSnapshot {
  if (!snapshot.available) return snapshot;
  const pods = new Map([...snapshot.pods].filter(([key]) => inScope(key.slice(0, key.indexOf('/')))));
  return { ...snapshot, pods };
}
