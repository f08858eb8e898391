import type { LicensedFeature, Scope } from '../schema/access.ts';
import type { App, AppDefinition } from '../schema/apps.ts';
import type { AuditEvent, AuditPage, AuditQuery, ChainReport, PurgeRequest } from '../schema/audit.ts';
import type { SettingKey, SettingValues } from '../schema/settings.ts';

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

export interface ContainerResources {
  cpuRequestM: number | null;
  cpuLimitM: number | null;
  memRequestBytes: number | null;
  memLimitBytes: number | null;
}

export interface Termination {
  exitCode: number;
  reason: string | null;
  signal: number | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  /** Present when waiting: CrashLoopBackOff, ImagePullBackOff, ContainerCreating... */
  waiting: { reason: string; message: string | null } | null;
  runningSince: string | null;
  terminated: Termination | null;
  lastTerminated: Termination | null;
}

/** A pod as the informer keeps it. */
export interface PodObject {
  namespace: string;
  name: string;
  phase: string;
  createdAt: string | null;
  startedAt: string | null;
  nodeName: string | null;
  labels: Readonly<Record<string, string>>;
  /** The workload that runs it: Deployment (through its ReplicaSet), StatefulSet, DaemonSet, Job, CronJob; a bare pod owns itself. */
  workload: { kind: string; name: string };
  /** The direct controller (a ReplicaSet for a Deployment's pod); null for a bare pod. */
  owner: { kind: string; name: string } | null;
  /** ConfigMaps, Secrets and PersistentVolumeClaims it reads, by name (volumes, envFrom, env). */
  refs: { configMaps: string[]; secrets: string[]; pvcs: string[] };
  ready: boolean;
  /** When the Ready condition last changed. */
  readySince: string | null;
  /** PodScheduled=False: why the scheduler could not place it. */
  unschedulable: { reason: string; message: string | null } | null;
  containers: { name: string; image: string; resources: ContainerResources }[];
  statuses: ContainerStatus[];
}

/** A node as the informer keeps it. */
export interface NodeObject {
  name: string;
  ready: boolean;
  createdAt: string | null;
  labels: Readonly<Record<string, string>>;
  /** Where its kubelet serves container metrics: `/metrics/cadvisor` unless the node's `capstan.dev/container-metrics-path` annotation says otherwise. */
  containerMetricsPath: string;
  /** The kubelet's address (InternalIP, else the first address) and port, from the node's status; null when not reported. */
  kubelet: { address: string; port: number } | null;
}

export interface EventObject {
  namespace: string;
  involvedKind: string;
  involvedName: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  firstSeen: string | null;
  lastSeen: string | null;
}

export interface WorkloadObject {
  namespace: string;
  name: string;
  kind: 'Deployment' | 'DaemonSet';
  desired: number;
  available: number;
}

export interface NamespacedName {
  namespace: string;
  name: string;
}

export interface PvcObject extends NamespacedName {
  phase: string;
  /** The PersistentVolume it is bound to. */
  volumeName: string | null;
}

export interface ServiceObject extends NamespacedName {
  /** Null: a Service without a selector (its endpoints are managed by hand). */
  selector: Readonly<Record<string, string>> | null;
}

/** ReplicaSets, StatefulSets, Jobs and CronJobs: what the cluster model needs to draw ownership. */
export interface ControllerObject extends NamespacedName {
  kind: 'ReplicaSet' | 'StatefulSet' | 'Job' | 'CronJob';
  owner: { kind: string; name: string } | null;
}

export interface IngressObject extends NamespacedName {
  /** Backend Services, by name. */
  services: string[];
  hosts: string[];
}

/** Metadata only: a Secret's data never enters Capstan's cache. */
export interface SecretObject extends NamespacedName {
  type: string;
}

export interface PvObject {
  name: string;
  phase: string;
  claim: NamespacedName | null;
  storageClass: string | null;
}

export interface PodUsage {
  cpuM: number;
  memBytes: number;
}

/** Pod usage from metrics.k8s.io, polled in the background; `available:false` says why. */
export type MetricsSnapshot =
  | { available: true; at: string; pods: ReadonlyMap<string, PodUsage> }
  | { available: false; reason: string };

export interface CacheSyncStatus {
  resource: string;
  synced: boolean;
  /** ISO time since which this informer has failed to LIST or WATCH; null while healthy. */
  failing_since: string | null;
}

/** Live cluster state, served from informers: never a LIST per HTTP request. */
export interface ClusterView {
  namespaces(): readonly NamespaceObject[];
  pods(): readonly PodObject[];
  nodes(): readonly NodeObject[];
  events(): readonly EventObject[];
  workloads(): readonly WorkloadObject[];
  services(): readonly ServiceObject[];
  pvcs(): readonly PvcObject[];
  controllers(): readonly ControllerObject[];
  ingresses(): readonly IngressObject[];
  configMaps(): readonly NamespacedName[];
  secrets(): readonly SecretObject[];
  pvs(): readonly PvObject[];
  /** Keyed `namespace/pod`. */
  metrics(): MetricsSnapshot;
  syncStatus(): readonly CacheSyncStatus[];
  /** The earliest `failing_since` over every informer (answers may be stale since then), or null. */
  staleSince(): string | null;
}

export type Role = 'admin' | 'viewer';

/** Who is calling, once authentication succeeded. The role is read from the user table on every request. */
export type Principal = {
  userId: number;
  username: string;
  role: Role;
} & (
  | { via: 'session'; sessionId: string }
  | { via: 'api_key'; keyId: number; scopes: readonly Scope[] }
  /** An MCP client's OAuth access token: the approving user, right now, limited to mcp:read. */
  | { via: 'oauth'; tokenId: string; clientName: string; scopes: readonly Scope[] }
);

export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  created_at: string;
}

export interface OAuthGrant {
  id: string;
  client_id: string;
  client_name: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

/** MCP over OAuth: registered clients, authorization codes (PKCE), access tokens bound to one resource. */
export interface OAuthService {
  registerClient(name: string, redirectUris: readonly string[]): Promise<OAuthClient>;
  client(clientId: string): Promise<OAuthClient | null>;
  /** A single-use code for ten minutes, remembering what the token must be bound to. */
  issueCode(grant: { clientId: string; userId: number; redirectUri: string; codeChallenge: string; resource: string }): Promise<string>;
  /** The access token for a code, once; null when the code, client, redirect URI, verifier or resource does not match. */
  exchangeCode(request: { code: string; clientId: string; redirectUri: string; codeVerifier: string; resource: string | null }): Promise<{ token: string; expiresInSecs: number; resource: string } | { error: string }>;
  /** A user's live tokens (Account → Connected apps). */
  grants(userId: number): Promise<OAuthGrant[]>;
  revoke(userId: number, grantId: string): Promise<boolean>;
}

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
  /** A confirmed second factor: sign-in needs a code too. */
  totpEnabled: boolean;
}

export interface UserRecord {
  id: number;
  username: string;
  role: Role;
  active: boolean;
  totp_enabled: boolean;
  created_at: string;
}

export interface SessionRecord {
  /** SHA-256 of the cookie's random part: names the session without being usable as one. */
  id: string;
  username: string;
  ip: string;
  created_at: string;
  last_seen_at: string;
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

/** Local accounts and their sessions, as admins manage them. */
export interface UserDirectory {
  list(): Promise<UserRecord[]>;
  create(username: string, password: string, role: Role): Promise<UserRecord | 'exists'>;
  /** Deactivating ends the user's sessions; the last active admin cannot be demoted or deactivated. */
  update(username: string, change: { role?: Role; active?: boolean }): Promise<UserRecord | 'not_found' | 'last_admin'>;
  /** One user's sessions, or everyone's with null. */
  sessions(userId: number | null): Promise<SessionRecord[]>;
  /** False when no such session (of that user, unless userId is null) exists. */
  revokeSession(sessionId: string, userId: number | null): Promise<boolean>;
}

/** TOTP second factor (RFC 6238) for local accounts. */
export interface SecondFactorService {
  status(userId: number): Promise<{ enabled: boolean; pending: boolean }>;
  /** A fresh secret, inactive until confirmed; refused while one is active. */
  beginEnrolment(userId: number, username: string): Promise<{ secret: string; otpauth_uri: string } | 'already_enabled'>;
  confirm(userId: number, code: string): Promise<'ok' | 'invalid' | 'not_pending'>;
  disable(userId: number, code: string): Promise<'ok' | 'invalid' | 'not_enabled'>;
  /** Accepts a code once: a replay within its window is refused. */
  verify(userId: number, code: string): Promise<'ok' | 'invalid' | 'replayed'>;
}

export interface AuditService {
  verifyChain(): Promise<ChainReport>;
  /** Newest first, keyset-paginated. */
  query(query: AuditQuery): Promise<AuditPage>;
  event(id: number): Promise<AuditEvent | null>;
  /** Events of one actor within five minutes either side of `around`, excluding `exceptId`. */
  siblings(actor: string, around: Date, exceptId: number): Promise<AuditEvent[]>;
  /** Up to `limit` matching rows (newest first) and how many matched in all; `access` reads the access log. */
  export(query: AuditQuery, limit: number): Promise<{ events: AuditEvent[]; totalMatched: number }>;
  purge(request: PurgeRequest): Promise<number>;
  /** Records an event that is not an HTTP request (bans, recovery, purge bookkeeping). */
  record(event: { actor: string; category: string; action: string; outcome: string; severity: string; detail: Readonly<Record<string, string>> }): Promise<void>;
  /** Streaming to audit.webhookUrl: its counters for the admin screen. */
  streamStats(): { queued: number; delivered: number; dropped: number; failures: number; last_error: string | null; last_delivered_at: string | null };
}

/** Settings an admin edits at runtime (and the recovery CLIs), persisted in the database. */
export interface RuntimeSettings {
  get<K extends SettingKey>(key: K): Promise<SettingValues[K]>;
  set<K extends SettingKey>(key: K, value: SettingValues[K]): Promise<void>;
}

/** Encryption at rest for stored credentials. */
export interface Secrets {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export interface IpBan {
  ip: string;
  reason: string;
  created_at: string;
  expires_at: string | null;
}

/** The IP access layer's durable bans. */
export interface IpBans {
  list(): Promise<IpBan[]>;
  lift(ip: string): Promise<boolean>;
}

/** Container logs, read from the API server when asked (a log is not something an informer holds). */
export interface PodLogs {
  tail(namespace: string, pod: string, container: string, options: { previous: boolean; lines: number }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}

export interface HistoryPointValues {
  ts: number;
  cpuM: number | null;
  memBytes: number | null;
  rxBps: number | null;
  txBps: number | null;
}

/** The resource-history store as handlers read it (samples every 60 s, 7 days). */
export interface HistoryReader {
  query(q: { scope: 'cluster' | 'namespace' | 'pod'; namespace?: string; pod?: string; from: Date; to: Date; buckets: number }): Promise<{ bucketSecs: number; points: HistoryPointValues[] }>;
}

export interface NetworkRate {
  rxBps: number;
  txBps: number;
}

/** Pod network from each node's kubelet container metrics (METRICS_KUBELET_SCRAPE). */
export interface NetworkView {
  /** Whether the scrape is on and how its last round went. */
  status(): { enabled: boolean; lastScrapeOk: boolean; lastScrapeError: string | null };
  /** Rates between the last two scrapes, keyed `namespace/pod`; a pod whose counters went back (a restart) is absent. */
  podRates(): ReadonlyMap<string, NetworkRate>;
}

/** Saved applications. Names are unique ignoring case. */
export interface ApplicationStore {
  list(): Promise<App[]>;
  get(id: string): Promise<App | null>;
  create(definition: AppDefinition, createdBy: string): Promise<App | 'name_taken'>;
  update(id: string, definition: AppDefinition): Promise<App | 'not_found' | 'name_taken'>;
  remove(id: string): Promise<boolean>;
}

/** Answers computed at most once per `ttlMs` (the overview's 30 s server cache). */
export interface Memo {
  get<T>(key: string, ttlMs: number, compute: () => T): { value: T; cachedAt: Date };
}

export interface Licensing {
  tier: string;
  has(feature: LicensedFeature): boolean;
}

export interface RequestInfo {
  /** The client address as the runtime determined it. */
  ip: string;
  /** The origin the client used (`https://capstan.example.com`), from X-Forwarded-Proto/Host only through a trusted proxy. */
  origin: string;
  /** Adds fields to this request's audit row (redacted before it is written). */
  noteAudit(fields: Readonly<Record<string, string>>): void;
}

export interface AgentSettings {
  /** Empty means every non-system namespace (spec §1 "Namespace blocklist"). */
  tenantNamespaces: readonly string[];
}

/** What the runtime hands every handler: long-lived services... */
export interface Services {
  cluster: ClusterView;
  auth: AuthService;
  users: UserDirectory;
  secondFactor: SecondFactorService;
  audit: AuditService;
  settings: AgentSettings;
  runtimeSettings: RuntimeSettings;
  secrets: Secrets;
  ipBans: IpBans;
  licensing: Licensing;
  memo: Memo;
  logs: PodLogs;
  history: HistoryReader;
  network: NetworkView;
  apps: ApplicationStore;
  oauth: OAuthService;
  clock: Clock;
}

/** ...plus what belongs to this one request. */
export interface HandlerContext extends Services {
  request: RequestInfo;
  principal: Principal | null;
}
