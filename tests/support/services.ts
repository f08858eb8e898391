// Real services over a throwaway data dir, for tests that run the HTTP app in-process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterView } from '../../domain/cluster/model.ts';
import type { Clock } from '../../domain/clock.ts';
import type { HistoryReader, NetworkView } from '../../handlers/metrics/service.ts';
import type { Licensing } from '../../handlers/license/service.ts';
import type { AnalyzerEntry } from '../../domain/diagnosis/engine.ts';
import { seedAccounts } from '../../runtime/auth/accounts.ts';
import { TEST_PASSWORDS } from './passwords.ts';
import { auditChainKey, loadEncryptionKey } from '../../runtime/crypto/secret-box.ts';
import type { RateLimits } from '../../runtime/http/middleware/rate-limit.ts';
import { silentLogger } from '../../runtime/log.ts';
import type { OutboundPolicy } from '../../domain/outbound/address.ts';
import type { Resolver } from '../../runtime/outbound/client.ts';
import { assembleServices, type AssembledServices } from '../../runtime/services.ts';
import type { SettingDefaults } from '../../runtime/store/setting-defaults.ts';
import { openDatabase, type Db } from '../../runtime/store/database.ts';
import type { ScanningConfig } from '../../schema/security-scan.ts';

export const ADMIN_PASSWORD = 'correct horse battery staple';
export const VIEWER_PASSWORD = 'viewer password 1';

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-11-21T12:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export const emptyCluster: ClusterView = {
  namespaces: () => [],
  pods: () => [],
  nodes: () => [],
  events: () => [],
  workloads: () => [],
  services: () => [],
  pvcs: () => [],
  controllers: () => [],
  ingresses: () => [],
  configMaps: () => [],
  secrets: () => [],
  pvs: () => [],
  endpointSlices: () => [],
  ingressClasses: () => [],
  storageClasses: () => [],
  nodeLeases: () => [],
  resourceQuotas: () => [],
  limitRanges: () => [],
  hpas: () => [],
  pdbs: () => [],
  metrics: () => ({ available: false, reason: 'no cluster in this test' }),
  vulnerabilityReports: () => [],
  configAuditReports: () => [],
  scannerReportStatus: () => ({ vulnerabilityreports: 'off', configauditreports: 'off' }),
  syncStatus: () => [],
  staleSince: () => null,
};

export interface TestServiceOptions {
  cluster?: ClusterView;
  clock?: Clock;
  idleTimeoutSecs?: number;
  tenantNamespaces?: string[];
  /** `sso.publicUrl` as the agent read it from CAPSTAN_SSO_PUBLIC_URL. */
  ssoPublicUrl?: string | null;
  defaults?: Partial<SettingDefaults>;
  licensing?: Licensing;
  /** The install key and the public key license keys are verified with (tests sign with their own pair). */
  license?: { installKey?: string | null; publicKeyPem?: string };
  rateLimits?: RateLimits;
  history?: HistoryReader;
  network?: NetworkView;
  analyzers?: readonly AnalyzerEntry[];
  chatWebhookUrl?: string;
  /** Where outbound calls may go; default: loopback allowed (the dev switch), for the fakes on 127.0.0.1. */
  outbound?: OutboundPolicy & { resolve?: Resolver };
  corsOrigins?: readonly string[];
  scanning?: ScanningConfig;
  /** Where a scan's collection is queued after POST answers (default: the next event-loop turn). */
  scanSchedule?: (collect: () => void) => void;
}

export type TestServices = AssembledServices & { dataDir: string; db: Db };

/** The agent's own service assembly over a fresh database (a fixed session key; the at-rest key generated into the data dir). */
export async function testServices(options: TestServiceOptions = {}): Promise<TestServices> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-services-'));
  const clock = options.clock ?? new ManualClock();
  // The at-rest key as the agent gets it with CAPSTAN_ENCRYPTION_KEY unset (generated into the data
  // dir), so the recovery CLIs, run against the same dir, derive the same audit chain key.
  const encryptionKey = loadEncryptionKey(undefined, dataDir);
  const db = await openDatabase(dataDir, clock, { auditChainKey: auditChainKey(encryptionKey) });
  await seedAccounts(db, dataDir, clock, { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD }, TEST_PASSWORDS, silentLogger);
  const services = await assembleServices({
    db,
    clock,
    passwords: TEST_PASSWORDS,
    cluster: options.cluster ?? emptyCluster,
    settings: { tenantNamespaces: options.tenantNamespaces ?? [], ssoPublicUrl: options.ssoPublicUrl ?? null },
    sessionSecret: Buffer.alloc(32, 7),
    encryptionKey,
    defaults: { ...options.defaults, ...(options.idleTimeoutSecs !== undefined ? { sessionIdleTimeoutSecs: options.idleTimeoutSecs } : {}) },
    licensing: options.licensing,
    license: options.license,
    rateLimits: options.rateLimits,
    history: options.history,
    network: options.network,
    analyzers: options.analyzers,
    chatWebhookUrl: options.chatWebhookUrl ?? null,
    // The dev switch, said explicitly: the fakes these tests talk to (tests/support/fake-llm.ts,
    // webhook receivers) listen on 127.0.0.1. Everything else the guard refuses stays refused.
    outbound: options.outbound ?? { allowLoopback: true, kubernetesApiHosts: [] },
    corsOrigins: options.corsOrigins ?? [],
    scanning: options.scanning,
    scanSchedule: options.scanSchedule,
    log: silentLogger,
  });
  return Object.assign(services, { dataDir, db });
}
