import bcrypt from 'bcryptjs';
import type { AccountSummary, AuthService, Clock, Principal } from '../../handlers/context.ts';
import type { Db } from '../store/database.ts';
import { findUser } from './accounts.ts';
import { issueSessionToken, verifySessionToken } from './session-token.ts';

export const LOCKOUT_THRESHOLD = 6;
export const LOCKOUT_MS = 15 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often, so polling does not turn every read into a write. */
const TOUCH_INTERVAL_MS = 30 * 1000;

// Compared against when the username does not exist, so timing does not reveal which is wrong.
const DUMMY_HASH = bcrypt.hashSync('capstan-timing-equaliser', 12);

export interface SessionPolicy {
  /** Sliding idle timeout in seconds; 0 disables the idle check (spec: security.sessionIdleTimeout). */
  idleTimeoutSecs: number;
}

export type SessionCheck = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'malformed' | 'forged' | 'expired' | 'revoked' };

export interface AgentAuth extends AuthService {
  /** Resolves a `capstan_session` cookie to its principal, sliding the idle timeout. */
  resolveSession(token: string | undefined): Promise<SessionCheck>;
}

export function createAuthService(db: Db, clock: Clock, secret: Buffer, policy: SessionPolicy): AgentAuth {
  const now = () => clock.now().getTime();

  return {
    async lockedUntil(username, ip) {
      const row = await db.selectFrom('login_failures').select('locked_until').where('username', '=', username).where('ip', '=', ip).executeTakeFirst();
      return row?.locked_until && row.locked_until > now() ? new Date(row.locked_until) : null;
    },

    async checkPassword(username, password): Promise<AccountSummary | null> {
      const user = await findUser(db, username);
      const matches = await bcrypt.compare(password, user?.password_hash ?? DUMMY_HASH);
      if (!user || !matches || user.active !== 1 || user.password_hash === null) return null;
      return { id: user.id, username: user.username, role: user.role };
    },

    async recordFailure(username, ip) {
      const t = now();
      return db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('login_failures').selectAll().where('username', '=', username).where('ip', '=', ip).executeTakeFirst();
        // A failure streak older than the lockout window, or an expired lock, starts over.
        const fresh = !row || (row.locked_until !== null ? row.locked_until <= t : t - row.first_failed_at > LOCKOUT_MS);
        const count = fresh ? 1 : row.count + 1;
        const lockedUntil = count >= LOCKOUT_THRESHOLD ? t + LOCKOUT_MS : null;
        await trx
          .insertInto('login_failures')
          .values({ username, ip, count, first_failed_at: fresh ? t : row.first_failed_at, locked_until: lockedUntil })
          .onConflict((oc) => oc.columns(['username', 'ip']).doUpdateSet({ count, first_failed_at: fresh ? t : row.first_failed_at, locked_until: lockedUntil }))
          .execute();
        return lockedUntil === null ? null : new Date(lockedUntil);
      });
    },

    async clearFailures(username, ip) {
      await db.deleteFrom('login_failures').where('username', '=', username).where('ip', '=', ip).execute();
    },

    async startSession(userId, ip) {
      const { token, storedId } = issueSessionToken(secret);
      const t = now();
      await db.insertInto('sessions').values({ id: storedId, user_id: userId, created_at: t, last_seen_at: t, ip }).execute();
      return { token };
    },

    async endSession(sessionId) {
      await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
    },

    async resolveSession(token) {
      if (token === undefined || token === '') return { ok: false, reason: 'missing' };
      const check = verifySessionToken(secret, token);
      if (!check.ok) return { ok: false, reason: check.reason };
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.id', 'sessions.created_at', 'sessions.last_seen_at', 'users.id as user_id', 'users.username', 'users.role', 'users.active'])
        .where('sessions.id', '=', check.storedId)
        .executeTakeFirst();
      if (!row || row.active !== 1) return { ok: false, reason: 'revoked' };
      const t = now();
      const idle = policy.idleTimeoutSecs > 0 && t - row.last_seen_at > policy.idleTimeoutSecs * 1000;
      if (idle || t - row.created_at > SESSION_ABSOLUTE_MS) {
        await db.deleteFrom('sessions').where('id', '=', row.id).execute();
        return { ok: false, reason: 'expired' };
      }
      if (t - row.last_seen_at > TOUCH_INTERVAL_MS) {
        await db.updateTable('sessions').set({ last_seen_at: t }).where('id', '=', row.id).execute();
      }
      return { ok: true, principal: { userId: row.user_id, username: row.username, role: row.role, sessionId: row.id } };
    },
  };
}
