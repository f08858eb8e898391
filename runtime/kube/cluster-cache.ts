import type { CacheSyncStatus, ClusterView, MetricsSnapshot } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import type { ScannerReportStatus } from '../../domain/security/trivy-reports.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { collectionPath, KINDS, type AnyKind, type KindTable, type ListingName, type ListingOf, type OptionalKindName } from './kinds.ts';
import { MetricsPoller } from './metrics-poller.ts';
import { joined, PerNamespaceInformer, type CacheSource } from './namespaced-informers.ts';
import { ReportSource } from './slim-reports.ts';
import { namespacedPath } from './watch-scope.ts';

/** A listing no row feeds (the scanner reports when they are not read): kept by identity, so what is derived from it is not derived again. */
const EMPTY: readonly never[] = [];

/**
 * The informers behind ClusterView, one per row of the kinds table (runtime/kube/kinds.ts).
 * Handlers read these arrays; no request ever LISTs the API server.
 */
export class ClusterCache implements ClusterView {
  /** Every required row's cache, in table order: what start() waits for and /readyz names. */
  private readonly informers: readonly CacheSource<unknown>[];
  /** The optional rows' sources (trivy-operator's reports) by resource; none when the agent does not read them. */
  private readonly reportSources: ReadonlyMap<string, ReportSource<unknown>>;
  /** Each listing's array, joined over the rows that feed it in table order. */
  private readonly listings: ReadonlyMap<ListingName, () => readonly unknown[]>;
  private readonly metricsPoller: MetricsPoller;

  /**
   * `watched`: null lists every namespaced kind cluster-wide; a list of namespaces lists each
   * of them on its own (CAPSTAN_WATCH_SCOPE=namespaces, for an install whose RBAC grants the
   * namespaced reads only as Roles there). Cluster-scoped kinds, and kinds in one fixed
   * namespace, are listed as the table says either way. Any LIST RBAC refuses is served empty
   * and reported forbidden, never left unready. `kinds`: the table (tests add rows to it).
   */
  constructor(transport: KubeTransport, clock: Clock, log: Logger, watched: readonly string[] | null = null, readScannerReports = true, kinds: KindTable = KINDS) {
    const informerLog = log.child('informer');
    const cacheOf = (resource: string, row: AnyKind): CacheSource<unknown> => {
      const path = collectionPath(resource, row);
      const { slim, metadataOnly } = row;
      return watched === null || row.scope !== 'namespaced'
        ? new Informer<unknown>({ resource, path, transport, slim, log: informerLog, metadataOnly })
        : new PerNamespaceInformer(
            resource,
            watched.map((namespace) => new Informer<unknown>({ resource, namespace, path: namespacedPath(path, namespace), transport, slim, log: informerLog, metadataOnly })),
          );
    };
    const informers: CacheSource<unknown>[] = [];
    const reportSources = new Map<string, ReportSource<unknown>>();
    const sources = new Map<string, { values(): readonly unknown[] }>();
    for (const [resource, row] of Object.entries(kinds)) {
      if (!row.optional) {
        const cache = cacheOf(resource, row);
        informers.push(cache);
        sources.set(resource, cache);
      } else if (readScannerReports) {
        // Outside `informers`: an absent CRD or a refused list never holds readiness back nor
        // shows in /readyz. Whether the CRD is served is asked of one collection the agent may read.
        const path = collectionPath(resource, row);
        const probePath = watched === null || watched[0] === undefined || row.scope !== 'namespaced' ? path : namespacedPath(path, watched[0]);
        const source = new ReportSource<unknown>(resource, probePath, transport, () => cacheOf(resource, row), informerLog);
        reportSources.set(resource, source);
        sources.set(resource, source);
      }
    }
    const listings = new Map<ListingName, () => readonly unknown[]>();
    for (const listing of new Set(Object.values(kinds).map((row) => row.listing))) {
      const parts = Object.entries(kinds).flatMap(([resource, row]) => {
        const source = row.listing === listing ? sources.get(resource) : undefined;
        return source === undefined ? [] : [source];
      });
      const [only] = parts;
      listings.set(listing, parts.length === 0 ? () => EMPTY : parts.length === 1 && only !== undefined ? () => only.values() : joined(() => parts.map((p) => p.values())));
    }
    this.informers = informers;
    this.reportSources = reportSources;
    this.listings = listings;
    this.metricsPoller = new MetricsPoller(transport, clock, log.child('metrics'), watched);
  }

  /**
   * A listing as the table's rows feed it. The one cast: each row's slimmer was checked against
   * its listing's element type where the row was written (kind() in runtime/kube/kinds.ts).
   */
  private listing<L extends ListingName>(name: L): () => readonly ListingOf<L>[] {
    return () => (this.listings.get(name)?.() ?? EMPTY) as readonly ListingOf<L>[];
  }

  readonly namespaces = this.listing('namespaces');
  readonly pods = this.listing('pods');
  readonly nodes = this.listing('nodes');
  readonly events = this.listing('events');
  readonly workloads = this.listing('workloads');
  readonly services = this.listing('services');
  readonly pvcs = this.listing('pvcs');
  readonly controllers = this.listing('controllers');
  readonly ingresses = this.listing('ingresses');
  readonly configMaps = this.listing('configMaps');
  readonly secrets = this.listing('secrets');
  readonly pvs = this.listing('pvs');
  readonly endpointSlices = this.listing('endpointSlices');
  readonly ingressClasses = this.listing('ingressClasses');
  readonly storageClasses = this.listing('storageClasses');
  readonly nodeLeases = this.listing('nodeLeases');
  readonly resourceQuotas = this.listing('resourceQuotas');
  readonly limitRanges = this.listing('limitRanges');
  readonly hpas = this.listing('hpas');
  readonly pdbs = this.listing('pdbs');
  readonly vulnerabilityReports = this.listing('vulnerabilityReports');
  readonly configAuditReports = this.listing('configAuditReports');

  /** Resolves when every informer has synced once and pod metrics were tried once. */
  async start(): Promise<void> {
    for (const source of this.reportSources.values()) source.start();
    await Promise.all([...this.informers.map((i) => i.start()), this.metricsPoller.start()]);
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
    this.metricsPoller.stop();
    for (const source of this.reportSources.values()) source.stop();
  }

  metrics(): MetricsSnapshot {
    return this.metricsPoller.current();
  }

  scannerReportStatus(): ScannerReportStatus {
    const state = (resource: OptionalKindName) => this.reportSources.get(resource)?.state() ?? 'off';
    return { vulnerabilityreports: state('vulnerabilityreports'), configauditreports: state('configauditreports') };
  }

  syncStatus(): readonly CacheSyncStatus[] {
    return this.informers.map((i) => i.status());
  }

  /** Asked on every response (the stale-cache header): reads each source's failure time, builds no status. */
  staleSince(): string | null {
    let earliest: Date | null = null;
    for (const source of this.informers) {
      const since = source.failingSince();
      if (since !== null && (earliest === null || since < earliest)) earliest = since;
    }
    return earliest?.toISOString() ?? null;
  }
}
