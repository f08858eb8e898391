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

export type Role = 'admin' | 'viewer';

/** Who is calling, once authentication succeeded. */
export interface Principal {
  userId: number;
  username: string;
  role: Role;
  /** Stored id of the session the request came in on. */
  sessionId: string;
}

export interface AccountSummary {
  id: number;
  username: string;
  role: Role;
}

/** Password accounts, lockout bookkeeping and sessions (spec §5). */
export interface AuthService {
  /** When this account may try again from this address; null when not locked out. */
  lockedUntil(username: string, ip: string): Promise<Date | null>;
  /** The active account whose password this is, else null (timing does not reveal which part was wrong). */
  checkPassword(username: string, password: string): Promise<AccountSummary | null>;
  /** Counts a failed password; returns the lock's end when this failure locked the account. */
  recordFailure(username: string, ip: string): Promise<Date | null>;
  clearFailures(username: string, ip: string): Promise<void>;
  startSession(userId: number, ip: string): Promise<{ token: string }>;
  endSession(sessionId: string): Promise<void>;
}

export interface RequestInfo {
  /** The client address as the runtime determined it. */
  ip: string;
}

export interface AgentSettings {
  /** Empty means every non-system namespace (spec §1 "Namespace blocklist"). */
  tenantNamespaces: readonly string[];
}

/** What the runtime hands every handler: long-lived services... */
export interface Services {
  cluster: ClusterView;
  auth: AuthService;
  settings: AgentSettings;
  clock: Clock;
}

/** ...plus what belongs to this one request. */
export interface HandlerContext extends Services {
  request: RequestInfo;
  principal: Principal | null;
}
