import type { CustomResourceCatalog } from '../domain/resources/custom.ts';
import type { PodExecService, TerminalService } from './terminal/service.ts';
import type { TaskService } from './tasks/service.ts';
import type { Role, Scope } from '../schema/access.ts';
import type { Clock } from '../domain/clock.ts';
import type { ClusterView } from '../domain/cluster/model.ts';
import type { ScopedClusterView } from '../domain/cluster/scoped.ts';
import type { ScopedDiagnosis } from '../domain/diagnosis/scoped.ts';
import type { ScopedPosture, ScopedScannerReports } from '../domain/security/scoped.ts';
import type { AddressLists, IpBans } from './ip-guard/service.ts';
import type { Licensing } from './license/service.ts';
import type { SecondFactorService, UserDirectory } from './accounts/service.ts';
import type { ApplicationStore } from './apps/service.ts';
import type { CopilotServices } from './copilot/service.ts';
import type { AuditService } from './audit/service.ts';
import type { AuthService } from './auth/service.ts';
import type { DiagnosisService } from './diagnosis/service.ts';
import type { PostureService, ScannerReportsService } from './security/service.ts';
import type { ScanService } from './security/scan-service.ts';
import type { PodLogs } from './logs/service.ts';
import type { CapacityService, ObjectReader } from './resources/service.ts';
import type { LayoutStore } from './graph/service.ts';
import type { ClusterWrites } from './actions/service.ts';
import type { HistoryReader, NetworkView } from './metrics/service.ts';
import type { OAuthService } from './oauth/service.ts';
import type { LicenseService } from './license/service.ts';
import type { OutboundUrls, RuntimeSettings, Secrets } from './settings/service.ts';
import type { LdapDirectory, SsoService } from './sso/service.ts';
import type { OidcService } from './sso/oidc-service.ts';
import type { SamlService } from './sso/saml-service.ts';
import type { HelmConfigStore, HelmService } from './helm/service.ts';
import type { ObservabilityService } from './observability/service.ts';
import type { HelmReleaseSource } from '../domain/helm/release.ts';

// What a handler may touch. Handlers are pure: every side effect or piece of live state
// arrives through these services, which the runtime implements and tests replace. Each
// service's interface lives beside the handlers that use it; this file only assembles them.

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

/** Answers computed at most once per `ttlMs` (the overview's 30 s server cache). */
export interface Memo {
  get<T>(key: string, ttlMs: number, compute: () => T): { value: T; cachedAt: Date };
  /**
   * `compute()`, kept while every one of `sources` is the same object as when it was computed
   * (the informer cache hands out a new array only when something changed), and for at most
   * `minAgeMs` after it was computed even if they changed, so a churning source cannot make
   * every request recompute.
   */
  derive<T>(key: string, sources: readonly unknown[], minAgeMs: number, compute: () => T): T;
}

export interface RequestInfo {
  /** The client address as the runtime determined it. */
  ip: string;
  /** The origin the client used (`https://capstan.example.com`), from X-Forwarded-Proto/Host only through a trusted proxy. */
  origin: string;
  /** Adds fields to this request's audit row (redacted before it is written). */
  noteAudit(fields: Readonly<Record<string, string>>): void;
  /** A cookie the request carried (OIDC's flow cookie); absent outside HTTP requests. */
  cookie?(name: string): string | undefined;
  /** The query string exactly as sent, without `?` (SAML's redirect binding signs its bytes); absent outside HTTP requests. */
  rawQuery?(): string;
}

export interface AgentSettings {
  /** Empty means every non-system namespace (spec §1 "Namespace blocklist"). */
  tenantNamespaces: readonly string[];
  /** `sso.publicUrl` (CAPSTAN_SSO_PUBLIC_URL, validated at start): prefills Admin → SSO's public_url; null or absent when not set. */
  ssoPublicUrl?: string | null;
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
  addressLists: AddressLists;
  /** Whether a URL configured for outbound calls may be saved (refused ranges, no query or fragment: docs/security.md). */
  outbound: OutboundUrls;
  /** The configured Prometheus, called through the outbound client, and per-user query slots (runtime/observability/prometheus.ts). */
  observability: ObservabilityService;
  licensing: Licensing;
  /** The key in force and the admin's hold on it (Admin → License). */
  license: LicenseService;
  memo: Memo;
  logs: PodLogs;
  /** Each node's requests, usage and pods against its allocatable (aggregates over every pod). */
  capacity: CapacityService;
  /** One object read live, for the detail view (a GET per request). */
  objects: ObjectReader;
  /** The Tasks tray's rows (runtime/tasks/store.ts); long operations record themselves through it. */
  tasks: TaskService;
  /** The browser terminal: sessions relayed to the sidecar's shells, and their audit (runtime/terminal/agent-terminal.ts). */
  terminal: TerminalService;
  /** Shells in pods' containers over the API server's exec, recorded as terminal sessions (runtime/terminal/pod-exec.ts). */
  podExec: PodExecService;
  /** The CRDs and their objects, from caches started on first use (runtime/kube/custom-resources.ts). */
  customResources: CustomResourceCatalog;
  /** Helm through the expert pod: values, the dry run, the writes as Tasks (runtime/helm/helm-service.ts). */
  helm: HelmService;
  /** Saved Helm repositories and registries, passwords sealed (runtime/helm/config-store.ts). */
  helmConfigs: HelmConfigStore;
  /** The Helm release list over the whole cluster (unscoped: handlers get it cut, `HandlerContext.helmReleases`). */
  helmReleases: HelmReleaseSource;
  /** Writes to the cluster (restart, scale, delete, cordon), each checked against the agent's RBAC. */
  writes: ClusterWrites;
  /** The whole-cluster diagnosis (unscoped: handlers get it cut, `HandlerContext.diagnosis`). */
  diagnosis: DiagnosisService;
  /** The built-in security checks over the whole cluster (unscoped: handlers get it cut, `HandlerContext.posture`). */
  posture: PostureService;
  /** trivy-operator's reports over the whole cluster (unscoped: handlers get them cut); the posture already counts them. */
  scannerReports: ScannerReportsService;
  /** Scans and their stored history (POST /security/scan, the score trend). */
  scans: ScanService;
  history: HistoryReader;
  network: NetworkView;
  apps: ApplicationStore;
  /** Each user's saved topology layouts. */
  layouts: LayoutStore;
  oauth: OAuthService;
  /** SSO configuration, identities, groups and roles (docs/sso.md). */
  sso: SsoService;
  /** LDAP template direct bind. */
  ldap: LdapDirectory;
  /** OpenID Connect relying party (runtime/sso/oidc.ts). */
  oidc: OidcService;
  /** SAML 2.0 service provider (runtime/sso/saml.ts). */
  saml: SamlService;
  /** The copilot's stores and its model runner (the AI SDK tool loop). */
  copilot: CopilotServices;
  clock: Clock;
}

/**
 * ...plus what belongs to this one request. Public routes' handlers get this: maybe nobody
 * signed in. The cluster and the answers derived from it come already cut to the namespaces
 * the caller may see (domain/scoped.ts, applied by the runtime): no handler cuts anything.
 */
export interface HandlerContext extends Omit<Services, 'diagnosis' | 'posture' | 'scannerReports' | 'customResources' | 'helmReleases'> {
  /** The cluster already cut to the namespaces the caller may see (the runtime wraps `Services.cluster`). */
  cluster: ScopedClusterView;
  /** The whole-cluster diagnosis as the caller may read it (root causes in hidden namespaces unnamed). */
  diagnosis: ScopedDiagnosis;
  /** The built-in checks' posture and findings in the visible namespaces, and stored scans' counts summed over them. */
  posture: ScopedPosture;
  /** trivy-operator's vulnerability findings in the visible namespaces, and whether the reports are read. */
  scannerReports: ScopedScannerReports;
  /** Custom resources without the objects of namespaces the caller may not see. */
  customResources: CustomResourceCatalog;
  /** Helm releases of the namespaces the caller may see. */
  helmReleases: HelmReleaseSource;
  request: RequestInfo;
  principal: Principal | null;
}

/** A principal that signed in with a password: the person at the keyboard (no API key, no OAuth token). */
export type SessionPrincipal = Extract<Principal, { via: 'session' }>;

/** What a credential route's handler gets: the runtime guarantees the principal (runtime/http/route.ts). */
export interface AuthedContext extends HandlerContext {
  principal: Principal;
}

/** What the handler of a route no key or token can reach (`scope: null`) gets: a session's principal. */
export interface SessionContext extends HandlerContext {
  principal: SessionPrincipal;
}
