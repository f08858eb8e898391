// What a handler may touch. Handlers are pure: every side effect or piece of live state
// arrives through these services, which the runtime implements and tests replace.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A namespace as the informer cache keeps it (slimmed from the API object). */
export interface NamespaceObject {
  name: string;
  phase: string;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
}

export interface CacheSyncStatus {
  resource: string;
  synced: boolean;
}

/** Live cluster state, served from informers: never a LIST per HTTP request. */
export interface ClusterView {
  namespaces(): readonly NamespaceObject[];
  syncStatus(): readonly CacheSyncStatus[];
}

export interface AgentSettings {
  /** Empty means every non-system namespace (spec §1 "Namespace blocklist"). */
  tenantNamespaces: readonly string[];
}

export interface HandlerContext {
  cluster: ClusterView;
  settings: AgentSettings;
  clock: Clock;
}
