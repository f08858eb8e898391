// Real services over a throwaway data dir, for tests that run the HTTP app in-process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterView, Clock, Services } from '../../handlers/context.ts';
import { AuditLog } from '../../runtime/audit/audit-log.ts';
import { seedAccounts } from '../../runtime/auth/accounts.ts';
import { createAuthService, type AgentAuth } from '../../runtime/auth/service.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase, type Db } from '../../runtime/store/database.ts';

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

export const emptyCluster: ClusterView = { namespaces: () => [], syncStatus: () => [] };

export async function testServices(options: { cluster?: ClusterView; clock?: Clock; idleTimeoutSecs?: number; tenantNamespaces?: string[] } = {}): Promise<Services & { auth: AgentAuth; audit: AuditLog; dataDir: string; db: Db }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-services-'));
  const clock = options.clock ?? new ManualClock();
  const db = await openDatabase(dataDir, clock);
  await seedAccounts(db, dataDir, clock, { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD }, silentLogger);
  const auth = createAuthService(db, clock, Buffer.alloc(32, 7), { idleTimeoutSecs: options.idleTimeoutSecs ?? 28800 });
  return {
    cluster: options.cluster ?? emptyCluster,
    auth,
    audit: new AuditLog(db, clock),
    settings: { tenantNamespaces: options.tenantNamespaces ?? [] },
    clock,
    dataDir,
    db,
  };
}
