// Cluster-side recovery (spec §5 item 6), run with exec access into the agent pod against
// the same database the running agent uses. Both actions are written to the audit chain.
import type { Clock } from '../../domain/clock.ts';
import type { LocalLogin } from '../../schema/settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Db } from '../store/database.ts';
import type { SettingsStore } from '../store/settings.ts';
import { bcryptHasher } from './password.ts';

const ACTOR = 'recovery@local';

export interface RecoveryReport {
  created: boolean;
  bansCleared: number;
  sessionsEnded: number;
}

/**
 * Resets the password of `username` (creating the account when it is gone), makes it an
 * active admin, removes its second factor, ends its sessions, clears every IP ban and turns
 * password sign-in back on for everyone.
 */
export async function recoverAdmin(db: Db, clock: Clock, settings: SettingsStore, audit: AuditLog, username: string, password: string): Promise<RecoveryReport> {
  if (password.length < 8) throw new Error('the new password must be at least 8 characters');
  // Always the production cost: recovery is an operator's CLI, never a test's shortcut.
  const hash = await bcryptHasher().hash(password);
  const report = await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
    let userId: number;
    if (existing) {
      userId = existing.id;
      await trx.updateTable('users').set({ password_hash: hash, role: 'admin', active: 1, totp_enabled: 0, totp_secret: null, totp_last_step: null }).where('id', '=', userId).execute();
    } else {
      const inserted = await trx.insertInto('users').values({ username, role: 'admin', password_hash: hash, active: 1, created_at: clock.now().getTime() }).returning('id').executeTakeFirstOrThrow();
      userId = inserted.id;
    }
    const sessions = await trx.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    await trx.deleteFrom('login_failures').where('username', '=', username).execute();
    const bans = await trx.deleteFrom('ip_bans').executeTakeFirst();
    return { created: !existing, bansCleared: Number(bans.numDeletedRows), sessionsEnded: Number(sessions.numDeletedRows) };
  });
  await setLocalLogin(settings, 'all');
  await audit.record({
    actor: ACTOR,
    category: 'auth',
    action: 'recovery.recover_admin',
    outcome: 'success',
    severity: 'critical',
    detail: { username, created: String(report.created), bans_cleared: String(report.bansCleared), sessions_ended: String(report.sessionsEnded), local_login: 'all' },
  });
  return report;
}

/** `app.enable_local_login`: the way back after password sign-in was turned off (the browser offers none). */
export async function enableLocalLogin(settings: SettingsStore, audit: AuditLog, adminOnly: boolean): Promise<LocalLogin> {
  const mode: LocalLogin = adminOnly ? 'admin_only' : 'all';
  await setLocalLogin(settings, mode);
  await audit.record({ actor: ACTOR, category: 'auth', action: 'recovery.enable_local_login', outcome: 'success', severity: 'warning', detail: { local_login: mode } });
  return mode;
}

async function setLocalLogin(settings: SettingsStore, mode: LocalLogin): Promise<void> {
  const security = await settings.get('security');
  await settings.set('security', { ...security, local_login: mode });
}
