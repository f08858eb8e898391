import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { webSocketServer } from './http/sockets.ts';
import { systemClock } from '../domain/clock.ts';
import type { AgentSettings, Services } from '../handlers/context.ts';
import { seedAccounts, type SeedOptions } from './auth/accounts.ts';
import { bcryptHasher, type PasswordHasher } from './auth/password.ts';
import { persistentSecret } from './auth/secrets.ts';
import { createApp, type CookieSecure } from './http/app.ts';
import { parseTrustedProxies } from './http/client-ip.ts';
import type { SheddingOptions } from './http/middleware/load-shedding.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './http/middleware/rate-limit.ts';
import { auditChainKey, loadEncryptionKey } from './crypto/secret-box.ts';
import { assembleServices } from './services.ts';
import type { SettingDefaults } from './store/setting-defaults.ts';
import { outboundPolicyFromEnv } from './outbound/client.ts';
import type { OutboundPolicy } from '../domain/outbound/address.ts';
import { openDatabase } from './store/database.ts';
import { createTransport, loadKubeConfig } from './kube/client.ts';
import { createCustomResources } from './kube/custom-resources.ts';
import { tokenRequestCredentials } from './terminal/session-credentials.ts';
import { expertHop } from './helm/expert-client.ts';
import { TERMINAL_MAX_PER_USER, TERMINAL_MAX_TOTAL } from './terminal/limits.ts';
import { kubeletDirect, kubeletThroughProxy, type KubeletScrapeMode } from './kube/kubelet.ts';
import { ClusterCache } from './kube/cluster-cache.ts';
import { watchedNamespaces, type WatchScope } from './kube/watch-scope.ts';
import { createPodLogs } from './kube/logs.ts';
import { createObjectReader } from './kube/object-reader.ts';
import { createClusterWrites } from './kube/writes.ts';
import { HistoryStore } from './metrics/history-store.ts';
import { KubeletNetworkScraper, networkOff } from './metrics/kubelet-scraper.ts';
import { HistorySampler } from './metrics/sampler.ts';
import type { Logger } from './log.ts';
import { scheduleStartupCollection } from './memory.ts';
import { rawEndpoints, routes } from './routes.ts';
import { CAPSTAN_VERSION } from './version.ts';
import { startHeartbeat, type Heartbeat } from './license/heartbeat.ts';
import { kubeSystemFingerprint } from './license/fingerprint.ts';
import type { ScanningConfig } from '../schema/security-scan.ts';

export interface AgentOptions {
  /** Absent: the in-cluster service account. */
  kubeconfig?: string;
  /** `host:port` or `:port`; port 0 picks a free one. */
  listen: string;
  dataDir: string;
  settings: AgentSettings;
  /**
   * CAPSTAN_WATCH_SCOPE (`--watch-scope`): `cluster` (default) lists namespaced kinds
   * cluster-wide; `namespaces` lists each of `settings.tenantNamespaces` on its own, for RBAC
   * that grants them only as per-namespace Roles (rbac.clusterWide=false).
   */
  watchScope?: WatchScope;
  /** CAPSTAN_ADMIN_PASSWORD / CAPSTAN_VIEWER_PASSWORD; used only when those accounts do not exist yet. */
  accounts?: SeedOptions;
  /** Password hashing; absent (always, outside tests): bcrypt at BCRYPT_COST. */
  passwords?: PasswordHasher;
  /** Helm values seeding the runtime-editable settings (idle timeout, audit webhook, IP lists, ...). */
  settingDefaults?: Partial<SettingDefaults>;
  /** METRICS_KUBELET_SCRAPE: pod network counters from each node's kubelet, directly or through the API server's node proxy. */
  kubeletScrape?: { mode: KubeletScrapeMode; insecureTls: boolean } | null;
  /** How often the history sampler runs (60 s; tests shorten it). */
  historySampleIntervalMs?: number;
  /** CAPSTAN_ENCRYPTION_KEY; absent, a key generated once into the data dir. */
  encryptionKey?: string;
  cookieSecure?: CookieSecure;
  shedding?: SheddingOptions;
  /** CAPSTAN_RATE_LIMITS: requests a minute per caller for each rate-limit class. */
  rateLimits?: RateLimits;
  /** security.trustedProxyCidrs, comma-separated; empty trusts nobody. */
  trustedProxyCidrs?: string;
  /** CAPSTAN_UI_PROXY_SECRET: the secret `capstan ui` vouches for the client address with (runtime/http/client-ip.ts). */
  proxySecret?: string | null;
  /** CAPSTAN_CORS_ORIGINS: browser origins besides the agent's own (the install's public URL). */
  corsOrigins?: readonly string[];
  validateOutput?: boolean;
  /** Serve the schema routes (`CAPSTAN_ENABLE_API_DOCS=true`). */
  apiDocs?: boolean;
  /** CAPSTAN_CHAT_WEBHOOK_URL (`alerting.chatWebhookUrl`): where SRE reports are posted. */
  chatWebhookUrl?: string | null;
  /** Where outbound calls may go (CAPSTAN_OUTBOUND_ALLOW_LOOPBACK, KUBERNETES_SERVICE_HOST; docs/security.md "Outbound calls"); default: from the environment. */
  outbound?: OutboundPolicy;
  /** Licensing (docs/licensing.md). */
  license?: {
    /** `license.key` (CAPSTAN_LICENSE_KEY): the install key; an admin's key (PUT /admin/license) wins over it. */
    key?: string | null;
    /** `license.apiUrl` (CAPSTAN_LICENSE_API_URL): where the heartbeat goes; null or empty sends none. */
    apiUrl?: string | null;
    /** CAPSTAN_LICENSE_PUBLIC_KEY: for tests and self-hosted issuers only; default the key Capstan ships. */
    publicKeyPem?: string;
    /** The heartbeat's period and jitter (daily, up to an hour; tests shorten both). */
    heartbeatIntervalMs?: number;
    heartbeatJitterMs?: number;
  };
  /** CAPSTAN_SCANNING_ENABLED, _MODE, _RETENTION_DAYS (`security.scanning.*`). */
  scanning?: ScanningConfig;
  /** CAPSTAN_TERMINAL_* (`terminal.*`): the sidecar the browser terminal's shells run in; absent: no terminal. */
  terminal?: AgentTerminalOptions | null;
  /** CAPSTAN_EXPERT_URL and _TOKEN_FILE (`expertMode.enabled`): the expert pod and the projected token the agent calls it with; absent: no Helm. */
  expert?: { url: string; tokenFile: string } | null;
  /** CAPSTAN_SSO_PUBLIC_URL (`sso.publicUrl`): Admin → SSO's prefill; handlers read it as `settings.ssoPublicUrl`. */
  ssoPublicUrl?: string | null;
  log: Logger;
}

export interface AgentTerminalOptions {
  sidecarUrl: string;
  key: string;
  /** The ServiceAccount each session's token is minted for (TokenRequest). */
  serviceAccount: { namespace: string; name: string };
  reattachGraceSecs: number;
  /**
   * CAPSTAN_TERMINAL_ADMIN_* (`terminal.enabled` with `rbac.allowWrites`): the sidecar admins'
   * sessions run in, under its own Unix user and key, with tokens for the writer account.
   * Absent: every session is the read-only one.
   */
  admin?: { sidecarUrl: string; key: string; serviceAccount: { namespace: string; name: string } } | null;
}

export interface RunningAgent {
  url: string;
  port: number;
  cache: ClusterCache;
  /**
   * What its handlers are given (the same diagnosis cache, settings and stores): for an
   * in-process benchmark that calls a handler function on the state the agent serves.
   */
  services: Services;
  /** Resolves once every informer has synced (what /readyz reports). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  // Refused before anything is created: `namespaces` without tenant namespaces would watch nothing.
  const scope = options.watchScope ?? 'cluster';
  const watched = watchedNamespaces(scope, options.settings.tenantNamespaces);
  options.log.info(watched === null ? 'watching cluster-wide' : 'watching per namespace', watched === null ? { scope } : { scope, namespaces: watched });
  mkdirSync(options.dataDir, { recursive: true });
  const clock = systemClock;
  const encryptionKey = loadEncryptionKey(options.encryptionKey, options.dataDir);
  const db = await openDatabase(options.dataDir, clock, { auditChainKey: auditChainKey(encryptionKey) });
  const passwords = options.passwords ?? bcryptHasher();
  await seedAccounts(db, options.dataDir, clock, options.accounts ?? {}, passwords, options.log.child('accounts'));
  const kubeConfig = loadKubeConfig(options.kubeconfig);
  // security.scanning.enabled=false: the chart grants no read of trivy-operator's reports, so
  // none is attempted (scanner_reports says `off` rather than `forbidden`).
  const transport = createTransport(kubeConfig);
  const cache = new ClusterCache(transport, clock, options.log, watched, options.scanning?.enabled ?? true);
  const customResources = createCustomResources(transport, options.log.child('custom-resources'));
  const historyStore = new HistoryStore(db, clock);
  const scrape = options.kubeletScrape;
  const scraper = scrape
    ? new KubeletNetworkScraper(scrape.mode === 'proxy' ? kubeletThroughProxy(kubeConfig) : kubeletDirect(kubeConfig, scrape), () => cache.nodes(), clock, options.log.child('kubelet-scrape'))
    : null;
  const rateLimits = options.rateLimits ?? DEFAULT_RATE_LIMITS;
  const sampler = new HistorySampler(historyStore, cache, options.settings, clock, options.log.child('history'), options.historySampleIntervalMs, scraper);
  const services = await assembleServices({
    db,
    clock,
    passwords,
    cluster: cache,
    logs: createPodLogs(kubeConfig),
    objects: createObjectReader(kubeConfig),
    customResources,
    expertHop: options.expert ? expertHop(options.expert) : null,
    podExecAccess: kubeConfig,
    terminal: options.terminal
      ? {
          sidecarUrl: options.terminal.sidecarUrl,
          key: options.terminal.key,
          credentials: tokenRequestCredentials(kubeConfig, options.terminal.serviceAccount),
          admin: options.terminal.admin ? { sidecarUrl: options.terminal.admin.sidecarUrl, key: options.terminal.admin.key, credentials: tokenRequestCredentials(kubeConfig, options.terminal.admin.serviceAccount) } : null,
          maxPerUser: TERMINAL_MAX_PER_USER,
          maxTotal: TERMINAL_MAX_TOTAL,
          reattachGraceSecs: options.terminal.reattachGraceSecs,
        }
      : null,
    writes: createClusterWrites(kubeConfig, clock),
    history: historyStore,
    network: scraper ?? networkOff,
    settings: { ...options.settings, ssoPublicUrl: options.ssoPublicUrl ?? options.settings.ssoPublicUrl ?? null },
    sessionSecret: persistentSecret(options.dataDir, 'session-secret'),
    encryptionKey,
    defaults: options.settingDefaults,
    shedding: options.shedding,
    rateLimits,
    chatWebhookUrl: options.chatWebhookUrl ?? null,
    outbound: options.outbound ?? outboundPolicyFromEnv(),
    corsOrigins: options.corsOrigins ?? [],
    scanning: options.scanning,
    license: { installKey: options.license?.key ?? null, publicKeyPem: options.license?.publicKeyPem },
    log: options.log,
  });
  const apiUrl = options.license?.apiUrl;
  const heartbeat: Heartbeat | null = apiUrl
    ? startHeartbeat({
        apiUrl,
        key: () => services.license.key(),
        installs: (listener) => services.license.onInstall(listener),
        fingerprint: kubeSystemFingerprint(kubeConfig),
        intervalMs: options.license?.heartbeatIntervalMs,
        jitterMs: options.license?.heartbeatJitterMs,
        log: options.log.child('license-heartbeat'),
      })
    : null;
  const app = createApp({
    routes,
    rawEndpoints,
    services,
    middleware: services.middleware,
    cookieSecure: options.cookieSecure ?? 'auto',
    trustedProxies: parseTrustedProxies(options.trustedProxyCidrs ?? ''),
    proxySecret: options.proxySecret ?? null,
    validateOutput: options.validateOutput ?? false,
    apiDocs: options.apiDocs ? { version: CAPSTAN_VERSION } : undefined,
    corsOrigins: services.corsOrigins,
    log: options.log.child('http'),
  });
  const { hostname, port } = parseListen(options.listen);
  const server = await new Promise<ServerType>((resolve) => {
    // WebSocket routes (none declared yet) are accepted through this server (runtime/http/sockets.ts).
    const s = serve({ fetch: app.fetch, hostname, port, websocket: { server: webSocketServer() } }, () => resolve(s));
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${hostname === '0.0.0.0' ? '127.0.0.1' : hostname}:${bound}`;
  options.log.info('agent listening', { url, dataDir: options.dataDir, rateLimitsPerMin: rateLimits });
  let collection: NodeJS.Timeout | null = null;
  let closed = false;
  const ready = cache.start().then(() => {
    // Stopped while the informers were still listing: start nothing behind a closed database.
    if (closed) return;
    collection = scheduleStartupCollection(options.log);
    return sampler.start();
  });
  return {
    url,
    port: bound,
    cache,
    services,
    ready,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        cache.stop();
        customResources.stop();
        if (collection) clearTimeout(collection);
        services.stop();
        heartbeat?.stop();
        // Buffered history samples, access rows and the pending anonymous summary are written before the database closes.
        // Each step is logged, so a shutdown that stalls says where (runtime/cli/agent-command.ts bounds it).
        server.close(() => {
          options.log.info('shutdown: connections closed');
          void Promise.all([sampler.stop(), services.audit.flushAccess(), services.unauthenticatedSummary.flush()])
            .then(() => options.log.info('shutdown: buffers written'))
            .then(() => db.destroy())
            .then(resolve);
        });
        // Shutdown is not graceful on purpose: a keep-alive client must not hold it open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

export function parseListen(listen: string): { hostname: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(listen);
  if (!match) throw new Error(`--listen must be host:port or :port, got "${listen}"`);
  const port = Number(match[2]);
  if (port > 65535) throw new Error(`--listen port out of range: ${port}`);
  return { hostname: match[1] === '' ? '0.0.0.0' : (match[1] ?? '0.0.0.0'), port };
}
