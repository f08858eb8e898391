// Assembles the services every handler receives, and the middleware chain around every route,
// from one database and data dir (what each service computes lives with it: the security
// answers in security/answers.ts, the diagnosis in diagnosis/service.ts, the settings'
// defaults in store/setting-defaults.ts). The agent and the in-process tests share this assembly,
// so tests exercise the same wiring production runs.
import type { AgentSettings, Services } from '../handlers/context.ts';
import type { ClusterView } from '../domain/cluster/model.ts';
import type { Clock } from '../domain/clock.ts';
import { planBuckets } from '../domain/history/buckets.ts';
import type { HistoryReader, NetworkView } from '../handlers/metrics/service.ts';
import type { Licensing } from '../handlers/license/service.ts';
import { addressLists } from './ip-guard/cidr.ts';
import type { PodLogs } from '../handlers/logs/service.ts';
import { createAppStore } from './apps/app-store.ts';
import { createModelRunner } from './copilot/runner.ts';
import { createAiContextStore } from './copilot/documents.ts';
import { createChatWebhook } from './copilot/chat-webhook.ts';
import { startReportScheduler, type ReportScheduler } from './copilot/report-scheduler.ts';
import { createCopilotStore } from './copilot/store.ts';
import { createOAuthService, type AgentOAuth } from './oauth/oauth.ts';
import { networkOff } from './metrics/kubelet-scraper.ts';
import { noPodLogs } from './kube/logs.ts';
import { IpGuard } from './ip-guard/ip-guard.ts';
import { createMemo } from './cache/memo.ts';
import { DEFAULT_SCANNING, type ScanningConfig } from '../schema/security-scan.ts';
import { createScanRunner, type ScanRunner } from './security/scan-runner.ts';
import { selfScanCollector } from './security/self-scan-collector.ts';
import { inFlightLimiter, prometheusConnection } from './observability/prometheus.ts';
import { createOwnMetrics } from './observability/own-metrics.ts';
import { grafanaConnection } from './observability/grafana.ts';
import { LicenseManager } from './license/license.ts';
import { ed25519Check, SHIPPED_PUBLIC_KEY_PEM } from './license/keys.ts';
import { AuditLog } from './audit/audit-log.ts';
import { AuditWebhookForwarder } from './audit/webhook-forwarder.ts';
import { createOutboundClient, type OutboundClient, type Resolver } from './outbound/client.ts';
import type { OutboundPolicy } from '../domain/outbound/address.ts';
import { createSecondFactor } from './auth/second-factor.ts';
import { createAuthService, type AgentAuth } from './auth/service.ts';
import type { PasswordHasher } from './auth/password.ts';
import { createUserDirectory } from './auth/users.ts';
import { createSsoService } from './sso/sso.ts';
import { createLdapDirectory } from './sso/ldap.ts';
import { createOidcService } from './sso/oidc.ts';
import { createSamlService } from './sso/saml.ts';
import { auditChainKey, createSecretBox } from './crypto/secret-box.ts';
import type { RouteMiddleware } from './http/app.ts';
import { auditing } from './http/middleware/audit.ts';
import { anonymousLimit } from './http/middleware/anonymous-limit.ts';
import { requestShape } from './http/middleware/request-shape.ts';
import { SUMMARY_INTERVAL_MS, UnauthenticatedSummary } from './audit/unauthenticated-summary.ts';
import { authentication, roleCheck } from './http/middleware/authenticate.ts';
import { ipAccess } from './http/middleware/ip-access.ts';
import { rateLimiting, type RateLimits } from './http/middleware/rate-limit.ts';
import { killSwitches } from './http/middleware/kill-switch.ts';
import { licensing } from './http/middleware/licensing.ts';
import { DEFAULT_SHEDDING, loadShedding, type SheddingOptions } from './http/middleware/load-shedding.ts';
import type { Logger } from './log.ts';
import { credentialWrites, type Db } from './store/database.ts';
import { SettingsStore } from './store/settings.ts';
import { settingValues, type SettingDefaults } from './store/setting-defaults.ts';
import { createPostureService, createScannerReportsService, operatorReportsInUse, operatorReportsServed, scanCollector } from './security/answers.ts';
import { createDiagnosisService } from './diagnosis/service.ts';
import { createCapacityService } from './resources/capacity.ts';
import { createLayoutStore } from './graph/layout-store.ts';
import { noObjectReader } from './kube/object-reader.ts';
import { noCustomResources } from './kube/custom-resources.ts';
import { createTerminal, noTerminal, type TerminalConfig } from './terminal/agent-terminal.ts';
import { createPodExec, noPodExec } from './terminal/pod-exec.ts';
import { sessionRecords } from './terminal/session-records.ts';
import { TERMINAL_MAX_PER_USER, TERMINAL_MAX_TOTAL } from './terminal/limits.ts';
import type { KubeAccess } from './kube/client.ts';
import { createTaskStore } from './tasks/store.ts';
import type { ExpertHop } from './helm/expert-client.ts';
import { helmRuntime } from './helm/helm-service.ts';
import { createHelmConfigStore } from './helm/config-store.ts';
import type { CustomResourceCatalog } from '../domain/resources/custom.ts';
import { noClusterWrites } from './kube/writes.ts';
import type { ClusterWrites } from '../handlers/actions/service.ts';
import type { ObjectReader } from '../handlers/resources/service.ts';
import { createCrashLogReader, noCrashLogs } from './diagnosis/crash-logs.ts';
import type { AnalyzerEntry } from '../domain/diagnosis/engine.ts';

const noHistory = (clock: Clock): HistoryReader => ({
  query: (q) => Promise.resolve({ bucketSecs: planBuckets(q.from, q.to, clock.now(), q.buckets).bucketSecs, points: [] }),
});

/**
 * Each outbound caller's limits (runtime/outbound/client.ts): a collector or a chat answers a
 * POST with little; a model's answer (a streamed tool loop step) may take a while and be long.
 */
const AUDIT_WEBHOOK_LIMITS = { timeoutMs: 5000, maxResponseBytes: 64 * 1024 };
const CHAT_WEBHOOK_LIMITS = { timeoutMs: 10_000, maxResponseBytes: 64 * 1024 };
const PROVIDER_LIMITS = { timeoutMs: 120_000, maxResponseBytes: 8 * 1024 * 1024 };

export interface ServiceOptions {
  db: Db;
  clock: Clock;
  cluster: ClusterView;
  settings: AgentSettings;
  /** 32-byte HMAC key for session cookies. */
  sessionSecret: Buffer;
  /** 32-byte at-rest key (see crypto/secret-box.ts). */
  encryptionKey: Buffer;
  defaults?: Partial<SettingDefaults>;
  /** A fixed answer for `has()` (tests of other surfaces); absent, the license in force (`license`) answers. */
  licensing?: Licensing;
  /** `license.key` and the public key keys are verified with (default: the one Capstan ships; docs/licensing.md). */
  license?: { installKey?: string | null; publicKeyPem?: string };
  /** How passwords are hashed and checked (runtime/auth/password.ts): bcrypt at BCRYPT_COST, except in tests. */
  passwords: PasswordHasher;
  /** Container logs (incident details, the dependencies crashed containers name); none without a cluster. */
  logs?: PodLogs;
  /** One object read live (the resource detail view); none without a cluster. */
  objects?: ObjectReader;
  customResources?: CustomResourceCatalog;
  /** The agent's own API-server access for pod shells (runtime/terminal/pod-exec.ts); none: pod exec answers not_ready. */
  podExecAccess?: KubeAccess | null;
  /** The expert pod's hop (runtime/helm/expert-client.ts); none: the chart did not install it, Helm answers expert_mode_disabled. */
  expertHop?: ExpertHop | null;
  /** The browser terminal's sidecar and session credentials (runtime/terminal/agent-terminal.ts); none: no terminal. */
  terminal?: TerminalConfig | null;
  /** Writes to the cluster (docs/actions.md); none without a cluster. */
  writes?: ClusterWrites;
  history?: HistoryReader;
  network?: NetworkView;
  /** The diagnosis analyzers (default: every one in domain/diagnosis/analyzers); tests hand in their own. */
  analyzers?: readonly AnalyzerEntry[];
  shedding?: SheddingOptions;
  /** Per-minute allowance per rate-limit class (tests raise it to hammer routes). */
  rateLimits?: RateLimits;
  /** Requests a minute one address may make without a credential (DEFAULT_ANONYMOUS_PER_MIN). */
  anonymousPerMin?: number;
  /** The chat incoming webhook SRE reports are posted to (`alerting.chatWebhookUrl`). */
  chatWebhookUrl?: string | null;
  /**
   * Where outbound calls to configured endpoints may go (runtime/outbound/client.ts): the agent
   * reads it from the environment (CAPSTAN_OUTBOUND_ALLOW_LOOPBACK, KUBERNETES_SERVICE_HOST);
   * tests say explicitly that their fakes on 127.0.0.1 may be reached.
   */
  outbound: OutboundPolicy & { resolve?: Resolver };
  /** CAPSTAN_CORS_ORIGINS: other browser origins whose writes are not cross-site (runtime/http/cors.ts). */
  corsOrigins?: readonly string[];
  /** security.scanning.* (CAPSTAN_SCANNING_*); DEFAULT_SCANNING when absent. */
  scanning?: ScanningConfig;
  /** Starts a scan's collection after POST answered (the next event-loop turn); tests run it when they choose. */
  scanSchedule?: (collect: () => void) => void;
  log: Logger;
}

export interface AssembledServices extends Services {
  auth: AgentAuth;
  oauth: AgentOAuth;
  audit: AuditLog;
  ipGuard: IpGuard;
  settingsStore: SettingsStore;
  license: LicenseManager;
  forwarder: AuditWebhookForwarder;
  /** The one client every outbound call to a configured endpoint goes through. */
  outboundClient: OutboundClient;
  /** Counts requests refused for carrying no credential; writes their summary rows. */
  unauthenticatedSummary: UnauthenticatedSummary;
  /** The chain every route is wrapped in, outermost first. */
  middleware: RouteMiddleware[];
  /** The origins the chain's cross-site check admits: the app answers CORS for exactly these (createApp's corsOrigins). */
  corsOrigins: readonly string[];
  reportScheduler: ReportScheduler;
  scans: ScanRunner;
  stop(): void;
}

export async function assembleServices(options: ServiceOptions): Promise<AssembledServices> {
  const { db, clock, log } = options;
  const secrets = createSecretBox(options.encryptionKey);
  const settingsStore = new SettingsStore(db, clock, settingValues(options.defaults ?? {}, secrets));
  // Read when scraped: the audit log is made below, the informers' state is the cluster's.
  const ownMetrics = createOwnMetrics({ syncStatus: () => options.cluster.syncStatus(), auditStream: () => audit.streamStats(), now: () => clock.now().getTime() });
  const outboundClient = createOutboundClient({ policy: { allowLoopback: options.outbound.allowLoopback, kubernetesApiHosts: options.outbound.kubernetesApiHosts }, ...(options.outbound.resolve ? { resolve: options.outbound.resolve } : {}), onFailure: ownMetrics.outboundFailure });
  // Loaded once so the forwarder's synchronous view starts from what is stored.
  await settingsStore.get('audit_stream');
  const forwarder = new AuditWebhookForwarder({
    target: () => {
      const stream = settingsStore.peek('audit_stream');
      if (stream.webhook_url === null) return null;
      return { url: stream.webhook_url, token: stream.webhook_token_sealed === null ? null : secrets.open(stream.webhook_token_sealed) };
    },
    log: log.child('audit-stream'),
    fetch: outboundClient.fetcher(AUDIT_WEBHOOK_LIMITS),
  });
  const audit = new AuditLog(db, clock, auditChainKey(options.encryptionKey), forwarder);
  const auth = createAuthService(
    db,
    clock,
    options.sessionSecret,
    { idleTimeoutSecs: async () => (await settingsStore.get('security')).session_idle_timeout_secs },
    options.passwords,
    credentialWrites(db),
  );
  const ipGuard = new IpGuard(db, clock, settingsStore, audit);
  const oauth = createOAuthService(db, clock);
  const licenseManager = new LicenseManager({
    check: ed25519Check(options.license?.publicKeyPem ?? SHIPPED_PUBLIC_KEY_PEM),
    clock,
    installKey: options.license?.installKey ?? null,
    settings: settingsStore,
    secrets,
    log: log.child('license'),
  });
  await licenseManager.load();
  const license = options.licensing ?? licenseManager;
  const unauthenticatedSummary = new UnauthenticatedSummary(audit, clock);
  const memo = createMemo(clock);
  const crashLogs = options.logs ? createCrashLogReader(options.logs, log.child('crash-logs')) : noCrashLogs;
  const scanning = options.scanning ?? DEFAULT_SCANNING;
  // Loaded once so operatorReportsInUse's synchronous view starts from what is stored.
  await settingsStore.get('scanning');
  const scannerReports = createScannerReportsService(options.cluster, memo, operatorReportsInUse(scanning.mode, settingsStore));
  const posture = createPostureService(options.cluster, memo, scannerReports);
  const tasks = await createTaskStore(db, clock, log.child('tasks'));
  const scans = createScanRunner({ db, clock, tasks, config: scanning, collect: scanCollector(posture, scannerReports, options.expertHop ? selfScanCollector(options.cluster, options.expertHop) : null), operatorReportsServed: () => operatorReportsServed(options.cluster), schedule: options.scanSchedule, log: log.child('scans') });
  // Summaries of an interval that ended quietly (no request came to trigger them) are written by this timer.
  const summaryTimer = setInterval(() => {
    unauthenticatedSummary.flushIfDue().catch((err: unknown) => log.error('unauthenticated summary failed', { error: err instanceof Error ? err.message : String(err) }));
  }, SUMMARY_INTERVAL_MS);
  summaryTimer.unref();
  const middleware: RouteMiddleware[] = [
    ipAccess(ipGuard),
    loadShedding(options.shedding ?? DEFAULT_SHEDDING),
    auditing(audit, log.child('audit'), unauthenticatedSummary),
    anonymousLimit(clock, options.anonymousPerMin),
    requestShape(options.corsOrigins ?? []),
    authentication(auth, oauth, (ip, what) => ipGuard.recordForgedCredential(ip, what)),
    roleCheck(),
    rateLimiting(clock, options.rateLimits),
    licensing(license),
    killSwitches(settingsStore),
  ];
  const helmConfigs = createHelmConfigStore(db, clock, secrets);
  const helm = helmRuntime({ hop: options.expertHop ?? null, outbound: outboundClient, configs: helmConfigs, tasks, clock, log: log.child('helm') });
  const terminalRecords = sessionRecords(db, audit, clock, log.child('terminal'));
  const podExec = options.podExecAccess ? createPodExec(options.podExecAccess, terminalRecords, log.child('pod-exec'), { maxPerUser: TERMINAL_MAX_PER_USER, maxTotal: TERMINAL_MAX_TOTAL }) : null;
  const terminal = options.terminal ? createTerminal(options.terminal, terminalRecords) : null;
  const services: Services = {
    cluster: options.cluster,
    auth,
    users: createUserDirectory(db, clock, options.passwords),
    secondFactor: createSecondFactor(db, clock, secrets),
    audit,
    settings: options.settings,
    runtimeSettings: settingsStore,
    secrets,
    ipBans: ipGuard,
    addressLists,
    outbound: { problem: (url, use) => outboundClient.urlProblem(url, use) },
    observability: { prometheus: prometheusConnection(outboundClient, secrets), grafana: grafanaConnection(outboundClient, secrets), acquire: inFlightLimiter(), ownMetrics },
    licensing: license,
    license: licenseManager,
    memo,
    diagnosis: createDiagnosisService(options.cluster, clock, memo, { analyzers: options.analyzers, crashLogs, observe: ownMetrics.diagnosisRun }),
    posture,
    scannerReports,
    scans,
    logs: options.logs ?? noPodLogs,
    capacity: createCapacityService(options.cluster, memo),
    objects: options.objects ?? noObjectReader,
    customResources: options.customResources ?? noCustomResources,
    terminal: terminal ?? noTerminal(terminalRecords),
    podExec: podExec ?? noPodExec,
    tasks,
    helm: helm.service,
    helmConfigs,
    helmReleases: helm.releases,
    writes: options.writes ?? noClusterWrites,
    history: options.history ?? noHistory(clock),
    network: options.network ?? networkOff,
    apps: createAppStore(db, clock),
    layouts: createLayoutStore(db, clock),
    copilot: { store: createCopilotStore(db, clock), documents: createAiContextStore(db, clock), runner: createModelRunner(db, clock, secrets, settingsStore, outboundClient.fetcher(PROVIDER_LIMITS)), chatWebhook: createChatWebhook(options.chatWebhookUrl ?? null, log, outboundClient.fetcher(CHAT_WEBHOOK_LIMITS)) },
    oauth,
    sso: createSsoService(db, clock, secrets, async () => (await settingsStore.get('sso_roles')).default_role),
    ldap: createLdapDirectory(log.child('ldap')),
    oidc: createOidcService(db, clock, secrets, log.child('oidc')),
    saml: createSamlService(db, clock, secrets, log.child('saml')),
    clock,
  };
  const reportScheduler = startReportScheduler(services, log);
  return {
    ...services,
    auth,
    oauth,
    audit,
    ipGuard,
    settingsStore,
    license: licenseManager,
    forwarder,
    outboundClient,
    middleware,
    corsOrigins: options.corsOrigins ?? [],
    unauthenticatedSummary,
    reportScheduler,
    scans,
    stop: () => {
      terminal?.stop();
      podExec?.stop();
      helm.close();
      crashLogs.close();
      clearInterval(summaryTimer);
      scans.stop();
      reportScheduler.stop();
      forwarder.stop();
      void outboundClient.close().catch(() => undefined);
    },
  };
}
