// The one table of Kubernetes kinds the agent lists and watches. Everything per kind is derived
// from a row here (runtime/kube/cluster-cache.ts): the informer and its collection path, the
// per-namespace informers under CAPSTAN_WATCH_SCOPE=namespaces, the slimming on the way in,
// the ClusterView listing its objects are served through, and its line in /readyz. Adding a
// kind is adding a row (and, for a new listing, its method on ClusterView and ClusterCache,
// which the compiler asks for); the chart's RBAC must grant it too (chart/templates/_helpers.tpl).
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { ScannerReportStatus } from '../../domain/security/trivy-reports.ts';
import { slimPod } from './slim-pod.ts';
import { slimEndpointSlice, slimHpa, slimIngressClass, slimLease, slimLimitRange, slimPdb, slimResourceQuota, slimStorageClass } from './slim-policy.ts';
import { slimConfigAuditReport, slimVulnerabilityReport } from './slim-reports.ts';
import { slimConfigMap, slimController, slimDaemonSet, slimDeployment, slimEvent, slimIngress, slimNamespace, slimNode, slimPv, slimPvc, slimSecret, slimService } from './slim.ts';

/** The ClusterView methods that hand out an array of cached objects: what a kind can feed. */
export type ListingName = Exclude<{ [K in keyof ClusterView]: ClusterView[K] extends () => readonly unknown[] ? K : never }[keyof ClusterView], 'syncStatus'>;
/** What one element of a listing is: a row's slimmer must produce exactly that. */
export type ListingOf<L extends ListingName> = ReturnType<ClusterView[L]> extends readonly (infer T)[] ? T : never;

/**
 * Where a kind's objects live: `cluster` (cluster-scoped: nodes, PVs...), `namespaced` (listed
 * cluster-wide, or once per watched namespace in namespaces scope), or always one fixed
 * namespace whatever the scope (node heartbeats in kube-node-lease).
 */
export type KindScope = 'cluster' | 'namespaced' | { readonly namespace: string };

export interface Kind<L extends ListingName> {
  /** API group; '' for the core group (`/api/v1`). */
  readonly group: string;
  readonly version: string;
  readonly scope: KindScope;
  /** The ClusterView listing its objects are served through (several kinds may feed one, in table order). */
  readonly listing: L;
  /** Keeps only what the service reads (runtime/kube/slim*.ts); null drops the object. */
  readonly slim: (raw: unknown) => ListingOf<L> | null;
  /** LIST and WATCH PartialObjectMetadata only: the object's data never reaches the agent (Secrets). */
  readonly metadataOnly: boolean;
  /**
   * A CRD that may not be installed (trivy-operator's reports): asked for until it is served,
   * never holding readiness back nor shown in /readyz, its state in `scannerReportStatus`, and
   * not read at all when the agent does not read scanner reports.
   */
  readonly optional: boolean;
}

/** Any row of the table, the listing and slimmer kept together. */
export type AnyKind = { [L in ListingName]: Kind<L> }[ListingName];

interface KindInput<L extends ListingName> {
  group: string;
  version: string;
  scope: KindScope;
  listing: L;
  slim: (raw: unknown) => ListingOf<L> | null;
  metadataOnly?: boolean;
}

/** A row: the slimmer is checked against the listing's element type here. */
export function kind<L extends ListingName>(input: KindInput<L>): Kind<L> & { readonly optional: false } {
  return { ...input, metadataOnly: input.metadataOnly ?? false, optional: false };
}

/** A row for a CRD that may be absent (see Kind.optional). */
export function optionalKind<L extends ListingName>(input: KindInput<L>): Kind<L> & { readonly optional: true } {
  return { ...input, metadataOnly: input.metadataOnly ?? false, optional: true };
}

/** Table rows by resource name (the plural the API path ends with, and /readyz's name). */
export type KindTable = Readonly<Record<string, AnyKind>>;

/**
 * Every kind, keyed by resource, in the order /readyz and ClusterView.syncStatus() name them.
 * Reading by RBAC: a LIST refused with 403 is served empty and named (`unreadable`), never
 * unready; what the diagnosis reads to explain failures (docs/diagnosis.md) leaves the analyzer
 * that needs it silent, and says so, under a narrower RBAC.
 */
export const KINDS = {
  namespaces: kind({ group: '', version: 'v1', scope: 'cluster', listing: 'namespaces', slim: slimNamespace }),
  pods: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'pods', slim: slimPod }),
  nodes: kind({ group: '', version: 'v1', scope: 'cluster', listing: 'nodes', slim: slimNode }),
  events: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'events', slim: slimEvent }),
  deployments: kind({ group: 'apps', version: 'v1', scope: 'namespaced', listing: 'workloads', slim: slimDeployment }),
  daemonsets: kind({ group: 'apps', version: 'v1', scope: 'namespaced', listing: 'workloads', slim: slimDaemonSet }),
  services: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'services', slim: slimService }),
  persistentvolumeclaims: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'pvcs', slim: slimPvc }),
  replicasets: kind({ group: 'apps', version: 'v1', scope: 'namespaced', listing: 'controllers', slim: slimController('ReplicaSet') }),
  statefulsets: kind({ group: 'apps', version: 'v1', scope: 'namespaced', listing: 'controllers', slim: slimController('StatefulSet') }),
  jobs: kind({ group: 'batch', version: 'v1', scope: 'namespaced', listing: 'controllers', slim: slimController('Job') }),
  cronjobs: kind({ group: 'batch', version: 'v1', scope: 'namespaced', listing: 'controllers', slim: slimController('CronJob') }),
  ingresses: kind({ group: 'networking.k8s.io', version: 'v1', scope: 'namespaced', listing: 'ingresses', slim: slimIngress }),
  configmaps: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'configMaps', slim: slimConfigMap }),
  // Metadata only: a Secret's data (and its type) is never sent to the agent (docs/install.md).
  secrets: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'secrets', slim: slimSecret, metadataOnly: true }),
  persistentvolumes: kind({ group: '', version: 'v1', scope: 'cluster', listing: 'pvs', slim: slimPv }),
  endpointslices: kind({ group: 'discovery.k8s.io', version: 'v1', scope: 'namespaced', listing: 'endpointSlices', slim: slimEndpointSlice }),
  ingressclasses: kind({ group: 'networking.k8s.io', version: 'v1', scope: 'cluster', listing: 'ingressClasses', slim: slimIngressClass }),
  storageclasses: kind({ group: 'storage.k8s.io', version: 'v1', scope: 'cluster', listing: 'storageClasses', slim: slimStorageClass }),
  // Node heartbeats live in one system namespace whatever the scope.
  leases: kind({ group: 'coordination.k8s.io', version: 'v1', scope: { namespace: 'kube-node-lease' }, listing: 'nodeLeases', slim: slimLease }),
  resourcequotas: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'resourceQuotas', slim: slimResourceQuota }),
  limitranges: kind({ group: '', version: 'v1', scope: 'namespaced', listing: 'limitRanges', slim: slimLimitRange }),
  horizontalpodautoscalers: kind({ group: 'autoscaling', version: 'v2', scope: 'namespaced', listing: 'hpas', slim: slimHpa }),
  poddisruptionbudgets: kind({ group: 'policy', version: 'v1', scope: 'namespaced', listing: 'pdbs', slim: slimPdb }),
  // trivy-operator's reports (domain/security/trivy-reports.ts): GET /security/findings says how they stand.
  vulnerabilityreports: optionalKind({ group: 'aquasecurity.github.io', version: 'v1alpha1', scope: 'namespaced', listing: 'vulnerabilityReports', slim: slimVulnerabilityReport }),
  configauditreports: optionalKind({ group: 'aquasecurity.github.io', version: 'v1alpha1', scope: 'namespaced', listing: 'configAuditReports', slim: slimConfigAuditReport }),
} satisfies KindTable;

export type KindName = keyof typeof KINDS;
/** The optional rows, which are exactly what scannerReportStatus() reports on. */
export type OptionalKindName = { [K in KindName]: (typeof KINDS)[K]['optional'] extends true ? K : never }[KindName];

// Compile-time checks on the table (a type error on TABLE_CHECKED names what is wrong): every
// ClusterView listing is fed by some row, and the optional rows are exactly
// scannerReportStatus()'s keys.
type Fed = (typeof KINDS)[KindName]['listing'];
type EveryListingFed = [Exclude<ListingName, Fed>] extends [never] ? true : { unfed: Exclude<ListingName, Fed> };
type OptionalRowsAreTheScannerReports = [OptionalKindName, keyof ScannerReportStatus] extends [keyof ScannerReportStatus, OptionalKindName] ? true : { optional: OptionalKindName };
export const TABLE_CHECKED: readonly [EveryListingFed, OptionalRowsAreTheScannerReports] = [true, true];

/**
 * A row's collection path: `/api/v1/pods`, `/apis/apps/v1/deployments`, or for a kind in one
 * fixed namespace `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases`.
 * runtime/kube/watch-scope.ts's namespacedPath narrows a `namespaced` row's path to a namespace.
 */
export function collectionPath(resource: string, row: Pick<AnyKind, 'group' | 'version' | 'scope'>): string {
  const api = row.group === '' ? `/api/${row.version}` : `/apis/${row.group}/${row.version}`;
  return typeof row.scope === 'object' ? `${api}/namespaces/${encodeURIComponent(row.scope.namespace)}/${resource}` : `${api}/${resource}`;
}
