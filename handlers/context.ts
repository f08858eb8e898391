import type { Scope } from '../schema/access.ts';
import type { ChainReport } from '../schema/audit.ts';

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

/** Who is calling, once authentication succeeded. The role is read from the user table on every request. */
export type Principal = {
  userId: number;
  username: string;
  role: Role;
} & ({ via: 'session'; sessionId: string } | { via: 'api_key'; keyId: number; scopes: readonly Scope[] });

export interface ApiKeyRecord {
  id: number;
  owner: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
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
  /** Returns the key itself once; only its hash is kept. */
  createApiKey(userId: number, name: string, scopes: readonly Scope[], expiresAt: Date | null): Promise<{ key: string; record: ApiKeyRecord }>;
  /** One owner's keys, or everyone's with null. */
  listApiKeys(ownerId: number | null): Promise<ApiKeyRecord[]>;
  /** False when no such key (of that owner, unless ownerId is null) exists. */
  revokeApiKey(keyId: number, ownerId: number | null): Promise<boolean>;
}

export interface AuditService {
  verifyChain(): Promise<ChainReport>;
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
  audit: AuditService;
  settings: AgentSettings;
  clock: Clock;
}

/** ...plus what belongs to this one request. */
export interface HandlerContext extends Services {
  request: RequestInfo;
  principal: Principal | null;
}
