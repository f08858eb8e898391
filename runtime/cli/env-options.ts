// Agent settings read from CAPSTAN_* environment variables (what the Helm chart sets),
// shared by `capstan agent` and `capstan demo` so both honour the same configuration.
import { parseCidrList } from '../ip-guard/cidr.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AgentOptions, AgentTerminalOptions } from '../agent.ts';
import { DEFAULT_REATTACH_GRACE_SECS } from '../terminal/limits.ts';
import type { CookieSecure } from '../http/app.ts';
import { parseProxySecret } from '../http/client-ip.ts';
import { parseCorsOrigins } from '../http/cors.ts';
import { DEFAULT_SHEDDING } from '../http/middleware/load-shedding.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../http/middleware/rate-limit.ts';
import { parseWatchScope } from '../kube/watch-scope.ts';
import { RateLimitClass } from '../../schema/access.ts';
import { DEFAULT_SCANNING, ScanMode, type ScanningConfig } from '../../schema/security-scan.ts';
import { SsoPublicUrl } from '../../schema/sso.ts';
import { configuredUrlProblem, type OutboundPolicy } from '../../domain/outbound/address.ts';
import { outboundPolicyFromEnv } from '../outbound/client.ts';
import * as v from 'valibot';

type EnvOptions = Pick<AgentOptions, 'watchScope' | 'apiDocs' | 'chatWebhookUrl' | 'kubeletScrape' | 'accounts' | 'settingDefaults' | 'encryptionKey' | 'cookieSecure' | 'trustedProxyCidrs' | 'proxySecret' | 'corsOrigins' | 'shedding' | 'rateLimits' | 'scanning' | 'license' | 'ssoPublicUrl' | 'terminal' | 'expert'>;

/** Throws naming the variable when a value is unusable, so the agent never starts half-configured. */
export function agentOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvOptions & Pick<AgentOptions, 'outbound'> {
  const outbound = outboundPolicyFromEnv(env);
  return {
    outbound,
    watchScope: parseWatchScope(env.CAPSTAN_WATCH_SCOPE, 'CAPSTAN_WATCH_SCOPE'),
    apiDocs: env.CAPSTAN_ENABLE_API_DOCS === 'true',
    kubeletScrape: parseKubeletScrape(env.METRICS_KUBELET_SCRAPE, parseBoolean(env.METRICS_KUBELET_INSECURE_TLS, false, 'METRICS_KUBELET_INSECURE_TLS')),
    accounts: { adminPassword: env.CAPSTAN_ADMIN_PASSWORD, viewerPassword: env.CAPSTAN_VIEWER_PASSWORD },
    settingDefaults: {
      sessionIdleTimeoutSecs: parseWholeNumber(env.CAPSTAN_SESSION_IDLE_TIMEOUT, 28800, 'CAPSTAN_SESSION_IDLE_TIMEOUT'),
      auditWebhookUrl: parseOutboundUrl(env.CAPSTAN_AUDIT_WEBHOOK_URL, 'CAPSTAN_AUDIT_WEBHOOK_URL', outbound),
      auditWebhookToken: nonEmpty(env.CAPSTAN_AUDIT_WEBHOOK_TOKEN),
      activityRetentionDays: parsePositive(env.CLUSTER_EVENTS_RETENTION_DAYS, 7, 'CLUSTER_EVENTS_RETENTION_DAYS'),
      allowlist: parseCidrs(env.CAPSTAN_IP_ALLOWLIST, 'CAPSTAN_IP_ALLOWLIST'),
      denylist: parseCidrs(env.CAPSTAN_IP_DENYLIST, 'CAPSTAN_IP_DENYLIST'),
      prometheusUrl: parsePrometheusUrl(env.PROMETHEUS_URL, outbound),
    },
    encryptionKey: nonEmpty(env.CAPSTAN_ENCRYPTION_KEY) ?? undefined,
    cookieSecure: parseCookieSecure(env.CAPSTAN_COOKIE_SECURE),
    trustedProxyCidrs: env.CAPSTAN_TRUSTED_PROXY_CIDRS ?? '',
    proxySecret: parseProxySecret(env.CAPSTAN_UI_PROXY_SECRET),
    corsOrigins: parseCorsOrigins(env.CAPSTAN_CORS_ORIGINS, 'CAPSTAN_CORS_ORIGINS'),
    shedding: { ...DEFAULT_SHEDDING, maxInFlight: parsePositive(env.CAPSTAN_MAX_IN_FLIGHT, DEFAULT_SHEDDING.maxInFlight, 'CAPSTAN_MAX_IN_FLIGHT') },
    rateLimits: parseRateLimits(env.CAPSTAN_RATE_LIMITS),
    chatWebhookUrl: parseOutboundUrl(env.CAPSTAN_CHAT_WEBHOOK_URL, 'CAPSTAN_CHAT_WEBHOOK_URL', outbound),
    scanning: parseScanning(env),
    ssoPublicUrl: parseSsoPublicUrl(env.CAPSTAN_SSO_PUBLIC_URL),
    terminal: parseTerminal(env),
    expert: parseExpert(env),
    license: {
      key: nonEmpty(env.CAPSTAN_LICENSE_KEY),
      apiUrl: parseWebhookUrl(env.CAPSTAN_LICENSE_API_URL, 'CAPSTAN_LICENSE_API_URL'),
      // For tests and self-hosted issuers (docs/licensing.md): keys signed by another issuer.
      ...(nonEmpty(env.CAPSTAN_LICENSE_PUBLIC_KEY) === null ? {} : { publicKeyPem: env.CAPSTAN_LICENSE_PUBLIC_KEY }),
    },
  };
}

/**
 * CAPSTAN_SSO_PUBLIC_URL (`sso.publicUrl`): the origin Admin → SSO prefills OIDC's and SAML's
 * public_url with, checked by the same rule as that field, so a value the wizard would refuse
 * stops the start instead of surfacing later in a form.
 */
export function parseSsoPublicUrl(value: string | undefined): string | null {
  const url = nonEmpty(value);
  if (url === null) return null;
  const parsed = v.safeParse(SsoPublicUrl, url);
  if (!parsed.success) throw new Error(`CAPSTAN_SSO_PUBLIC_URL must be http(s)://host[:port] (scheme, host and port only), got "${url}"`);
  return parsed.output;
}

/** security.scanning.enabled, .mode and .retentionDays (the chart's CAPSTAN_SCANNING_* variables); unset keeps the spec's default. */
export function parseScanning(env: NodeJS.ProcessEnv): ScanningConfig {
  const mode = env.CAPSTAN_SCANNING_MODE === undefined || env.CAPSTAN_SCANNING_MODE === '' ? DEFAULT_SCANNING.mode : env.CAPSTAN_SCANNING_MODE;
  const parsedMode = v.safeParse(ScanMode, mode);
  if (!parsedMode.success) throw new Error(`CAPSTAN_SCANNING_MODE must be auto, operator or self, got "${mode}"`);
  const retentionDays = parsePositive(env.CAPSTAN_SCANNING_RETENTION_DAYS, DEFAULT_SCANNING.retentionDays, 'CAPSTAN_SCANNING_RETENTION_DAYS');
  if (retentionDays > 3650) throw new Error(`CAPSTAN_SCANNING_RETENTION_DAYS must be at most 3650, got "${retentionDays}"`);
  return { enabled: parseBoolean(env.CAPSTAN_SCANNING_ENABLED, DEFAULT_SCANNING.enabled, 'CAPSTAN_SCANNING_ENABLED'), mode: parsedMode.output, retentionDays };
}

/**
 * CAPSTAN_RATE_LIMITS: `class=perMinute` pairs, comma-separated (`read=6000,write=300`); a
 * class not named keeps its default. A startup option, so a load test or a busy automation
 * account raises its allowance by configuration, never by a code change; the agent logs the
 * limits it runs with.
 */
export function parseRateLimits(value: string | undefined): RateLimits {
  const limits: Record<RateLimitClass, number> = { ...DEFAULT_RATE_LIMITS };
  const entries = (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const seen = new Set<string>();
  for (const entry of entries) {
    const match = /^([a-z]+)\s*=\s*(\S+)$/.exec(entry);
    if (!match) throw new Error(`CAPSTAN_RATE_LIMITS: "${entry}" is not class=perMinute`);
    const [, name = '', count = ''] = match;
    const rateClass = v.safeParse(RateLimitClass, name);
    if (!rateClass.success) throw new Error(`CAPSTAN_RATE_LIMITS: "${name}" is not a rate-limit class (${RateLimitClass.options.join(', ')})`);
    if (seen.has(name)) throw new Error(`CAPSTAN_RATE_LIMITS: "${name}" is given twice`);
    seen.add(name);
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1) throw new Error(`CAPSTAN_RATE_LIMITS: ${name} must be a whole number of requests a minute, at least 1, got "${count}"`);
    limits[rateClass.output] = n;
  }
  return limits;
}

function parseWholeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${value}"`);
  return n;
}

function parsePositive(value: string | undefined, fallback: number, name: string): number {
  const n = parseWholeNumber(value, fallback, name);
  if (n === 0) throw new Error(`${name} must be at least 1`);
  return n;
}

function parseBoolean(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function parseKubeletScrape(value: string | undefined, insecureTls: boolean): AgentOptions['kubeletScrape'] {
  if (value === undefined || value === '' || value === 'false') return null;
  if (value === 'true' || value === 'direct') return { mode: 'direct', insecureTls };
  if (value === 'proxy') return { mode: 'proxy', insecureTls };
  throw new Error(`METRICS_KUBELET_SCRAPE must be false, true (direct), direct or proxy, got "${value}"`);
}

function parseCookieSecure(value: string | undefined): CookieSecure {
  if (value === undefined || value === '') return 'auto';
  if (value === 'auto' || value === 'true' || value === 'false') return value;
  throw new Error(`CAPSTAN_COOKIE_SECURE must be auto, true or false, got "${value}"`);
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function parseWebhookUrl(value: string | undefined, name: string): string | null {
  const url = nonEmpty(value);
  if (url !== null && (!/^https?:\/\/[^\s]+$/i.test(url) || !URL.canParse(url))) throw new Error(`${name} must be an http(s) URL, got "${url}"`);
  return url;
}

/** A webhook the outbound client posts to: refused at start by the rules a saved URL meets (docs/security.md "Outbound calls"). */
function parseOutboundUrl(value: string | undefined, name: string, policy: OutboundPolicy): string | null {
  const url = parseWebhookUrl(value, name);
  const problem = url === null ? null : configuredUrlProblem(url, policy, 'endpoint');
  if (problem !== null) throw new Error(`${name} ${problem}, got "${url ?? ''}"`);
  return url;
}

/** PROMETHEUS_URL: a base URL the outbound rules allow (no query), or unset. */
function parsePrometheusUrl(value: string | undefined, policy: OutboundPolicy): string | null {
  const url = parseWebhookUrl(value, 'PROMETHEUS_URL');
  const problem = url === null ? null : configuredUrlProblem(url, policy, 'base');
  if (problem !== null) throw new Error(`PROMETHEUS_URL ${problem}, got "${url ?? ''}"`);
  return url;
}

function parseCidrs(value: string | undefined, name: string): string[] {
  const entries = (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const parsed = parseCidrList(entries);
  if (!parsed.ok) throw new Error(`${name}: "${parsed.entry}" ${parsed.reason}`);
  return entries;
}

/**
 * CAPSTAN_TERMINAL_URL (the sidecar on loopback; empty: no terminal), CAPSTAN_TERMINAL_KEY_FILE
 * (the key both containers mount), CAPSTAN_TERMINAL_SERVICE_ACCOUNT (`namespace/name`, the
 * account each session's token is minted for), CAPSTAN_TERMINAL_REATTACH_GRACE_SECS; and the
 * admin sidecar (admins' sessions, with write verbs) under CAPSTAN_TERMINAL_ADMIN_URL,
 * _ADMIN_KEY_FILE and _ADMIN_SERVICE_ACCOUNT, each its own: a viewer's shell holds the viewer
 * sidecar's key, so that key must open nothing on the admin sidecar.
 */
export function parseTerminal(env: NodeJS.ProcessEnv): AgentTerminalOptions | null {
  const url = nonEmpty(env.CAPSTAN_TERMINAL_URL);
  if (url === null) {
    if (nonEmpty(env.CAPSTAN_TERMINAL_ADMIN_URL) !== null) throw new Error('CAPSTAN_TERMINAL_ADMIN_URL needs CAPSTAN_TERMINAL_URL: the admin sidecar serves admins only, beside the terminal sidecar');
    return null;
  }
  // CAPSTAN_TERMINAL_KEY_MAKE=true (the chart): a fresh key per start for each sidecar, written
  // where its read-only mount of the same volume finds it; no Secret to seed or keep.
  const make = env.CAPSTAN_TERMINAL_KEY_MAKE === 'true';
  const viewer = terminalSidecar(env, { url: 'CAPSTAN_TERMINAL_URL', keyFile: 'CAPSTAN_TERMINAL_KEY_FILE', account: 'CAPSTAN_TERMINAL_SERVICE_ACCOUNT' }, make);
  const adminUrl = nonEmpty(env.CAPSTAN_TERMINAL_ADMIN_URL);
  const adminKeyFile = nonEmpty(env.CAPSTAN_TERMINAL_ADMIN_KEY_FILE);
  // Checked before any key is made: one file would hand the admin key to the viewer sidecar.
  if (adminUrl !== null && adminKeyFile !== null && resolve(adminKeyFile) === resolve(env.CAPSTAN_TERMINAL_KEY_FILE ?? '')) throw new Error(`CAPSTAN_TERMINAL_ADMIN_KEY_FILE must be another file than CAPSTAN_TERMINAL_KEY_FILE, both are "${adminKeyFile}"`);
  const admin = adminUrl === null ? null : terminalSidecar(env, { url: 'CAPSTAN_TERMINAL_ADMIN_URL', keyFile: 'CAPSTAN_TERMINAL_ADMIN_KEY_FILE', account: 'CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT' }, make);
  if (admin !== null) {
    // Each would hand a viewer's session what is an admin's: the same shell, key or account.
    if (admin.sidecarUrl.replace(/\/$/, '') === viewer.sidecarUrl.replace(/\/$/, '')) throw new Error(`CAPSTAN_TERMINAL_ADMIN_URL must be another sidecar than CAPSTAN_TERMINAL_URL, both are "${admin.sidecarUrl}"`);
    if (admin.key === viewer.key) throw new Error('CAPSTAN_TERMINAL_ADMIN_KEY_FILE must hold another key than CAPSTAN_TERMINAL_KEY_FILE: the terminal sidecar\'s shells can read that one');
    if (admin.serviceAccount.namespace === viewer.serviceAccount.namespace && admin.serviceAccount.name === viewer.serviceAccount.name) throw new Error('CAPSTAN_TERMINAL_ADMIN_SERVICE_ACCOUNT must name another account than CAPSTAN_TERMINAL_SERVICE_ACCOUNT (the read-only one)');
  }
  return {
    ...viewer,
    reattachGraceSecs: parsePositive(env.CAPSTAN_TERMINAL_REATTACH_GRACE_SECS, DEFAULT_REATTACH_GRACE_SECS, 'CAPSTAN_TERMINAL_REATTACH_GRACE_SECS'),
    admin,
  };
}

/** One sidecar's address, key (made first when `make`) and account, each refusal naming its variable. */
function terminalSidecar(env: NodeJS.ProcessEnv, names: { url: string; keyFile: string; account: string }, make: boolean): { sidecarUrl: string; key: string; serviceAccount: { namespace: string; name: string } } {
  const url = nonEmpty(env[names.url]) ?? '';
  if (!/^ws:\/\/(127\.0\.0\.1|\[::1\]|localhost):[0-9]{1,5}\/?$/.test(url)) throw new Error(`${names.url} must be ws://127.0.0.1:<port> (the sidecar in the same pod), got "${url}"`);
  const keyFile = nonEmpty(env[names.keyFile]);
  if (keyFile === null) throw new Error(`${names.url} needs ${names.keyFile}`);
  if (make) {
    mkdirSync(dirname(keyFile), { recursive: true });
    // The last start's file is read-only (0440) even to us: replaced, not rewritten.
    rmSync(keyFile, { force: true });
    writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o440 });
  }
  const key = readFileSync(keyFile, 'utf8').trim();
  if (key.length < 32) throw new Error(`${names.keyFile} must hold at least 32 characters, ${keyFile} holds ${key.length}`);
  const value = env[names.account] ?? '';
  const account = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  if (!account) throw new Error(`${names.account} must be namespace/name, got "${value}"`);
  return { sidecarUrl: url, key, serviceAccount: { namespace: account[1] ?? '', name: account[3] ?? '' } };
}

/**
 * CAPSTAN_EXPERT_URL (the expert pod's Service; empty: no expert mode) and
 * CAPSTAN_EXPERT_TOKEN_FILE (the token the kubelet projects for the expert's audience).
 */
export function parseExpert(env: NodeJS.ProcessEnv): { url: string; tokenFile: string } | null {
  const url = nonEmpty(env.CAPSTAN_EXPERT_URL);
  if (url === null) return null;
  if (!/^http:\/\/[a-z0-9.-]+(:[0-9]{1,5})?\/?$/.test(url)) throw new Error(`CAPSTAN_EXPERT_URL must be http://<service>:<port>, got "${url}"`);
  const tokenFile = nonEmpty(env.CAPSTAN_EXPERT_TOKEN_FILE);
  if (tokenFile === null) throw new Error('CAPSTAN_EXPERT_URL needs CAPSTAN_EXPERT_TOKEN_FILE (the projected token for the expert audience)');
  return { url: url.replace(/\/$/, ''), tokenFile };
}
