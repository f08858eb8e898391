// Admin management of local accounts and of everyone's sessions.
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../domain/clock.ts';
import type { SessionRecord, UserDirectory, UserRecord } from '../../handlers/accounts/service.ts';
import { fail, ok, taken } from '../../handlers/result.ts';
import type { SsoProvider } from '../../schema/sso.ts';
import type { Database, UsersTable } from '../store/tables.ts';
import type { Db } from '../store/database.ts';
import type { PasswordHasher } from './password.ts';

type UserRow = Omit<UsersTable, 'id' | 'totp_secret' | 'totp_enabled' | 'totp_last_step' | 'totp_disable_attempts' | 'role_pinned'> & {
  id: number;
  totp_enabled: number;
  role_pinned: number;
  provider: SsoProvider | null;
};

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    active: row.active === 1,
    totp_enabled: row.totp_enabled === 1,
    created_at: new Date(row.created_at).toISOString(),
    // Only an SSO account's role can be pinned against anything: a local one is only ever set by hand.
    role_pinned: row.provider !== null && row.role_pinned === 1,
    sso_provider: row.provider,
  };
}

const USER_COLUMNS = ['users.id', 'users.username', 'users.role', 'users.password_hash', 'users.active', 'users.created_at', 'users.totp_enabled', 'users.role_pinned', 'sso_identities.provider'] as const;

/** Users with the provider of their SSO identity (an account has at most one; none for a local account). */
const users = (db: Db | Transaction<Database>) => db.selectFrom('users').leftJoin('sso_identities', 'sso_identities.user_id', 'users.id').select(USER_COLUMNS);

/**
 * Everything that lets a deactivated account act ends with it (spec §5: a token "dies when the
 * account is deactivated"): its sessions, API keys, OAuth access tokens and authorization codes
 * not yet exchanged. Revoked, not just refused while inactive, so reactivating the account does
 * not bring them back; runs in the deactivation's transaction, so there is no moment between.
 */
async function endCredentials(trx: Transaction<Database>, userId: number, at: number): Promise<void> {
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
  // Revoking twice keeps the first revocation time.
  await trx.updateTable('api_keys').set({ revoked_at: sql<number>`coalesce(revoked_at, ${at})` }).where('user_id', '=', userId).execute();
  await trx.updateTable('oauth_tokens').set({ revoked_at: sql<number>`coalesce(revoked_at, ${at})` }).where('user_id', '=', userId).execute();
  await trx.updateTable('oauth_codes').set({ used_at: sql<number>`coalesce(used_at, ${at})` }).where('user_id', '=', userId).execute();
}

export function createUserDirectory(db: Db, clock: Clock, passwords: PasswordHasher): UserDirectory {
  const byName = (username: string) => users(db).where('users.username', '=', username).executeTakeFirst();

  return {
    async list() {
      return (await users(db).orderBy('users.id').execute()).map(toUser);
    },

    async create(username, password, role) {
      if (await byName(username)) return fail(taken('username', `user ${username} already exists`));
      await db.insertInto('users').values({ username, role, password_hash: await passwords.hash(password), active: 1, created_at: clock.now().getTime() }).execute();
      const row = await byName(username);
      if (!row) throw new Error('user vanished after insert');
      return ok(toUser(row));
    },

    async update(username, change) {
      return db.transaction().execute(async (trx) => {
        const row = await users(trx).where('users.username', '=', username).executeTakeFirst();
        if (!row) return fail({ code: 'not_found', message: `no user ${username}` });
        const role = change.role ?? row.role;
        const active = change.active === undefined ? row.active : change.active ? 1 : 0;
        const losesAdmin = row.role === 'admin' && row.active === 1 && (role !== 'admin' || active !== 1);
        if (losesAdmin) {
          const admins = await trx.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'admin').where('active', '=', 1).executeTakeFirstOrThrow();
          if (admins.n <= 1) return fail({ code: 'invalid_input', field: change.role ? 'role' : 'active', message: 'that would leave no active admin' });
        }
        // A role set by hand is pinned: SSO sign-ins no longer change it (domain/sso/roles.ts).
        await trx.updateTable('users').set({ role, active, ...(change.role !== undefined ? { role_pinned: 1 } : {}) }).where('id', '=', row.id).execute();
        if (active !== 1) await endCredentials(trx, row.id, clock.now().getTime());
        return ok(toUser({ ...row, role, active, role_pinned: change.role !== undefined ? 1 : row.role_pinned }));
      });
    },

    async sessions(userId) {
      let q = db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.id', 'users.username', 'sessions.ip', 'sessions.created_at', 'sessions.last_seen_at'])
        .orderBy('sessions.created_at', 'desc');
      if (userId !== null) q = q.where('sessions.user_id', '=', userId);
      return (await q.execute()).map(
        (r): SessionRecord => ({ id: r.id, username: r.username, ip: r.ip, created_at: new Date(r.created_at).toISOString(), last_seen_at: new Date(r.last_seen_at).toISOString() }),
      );
    },

    async changePassword(userId, current, next, keepSession) {
      const row = await db.selectFrom('users').select(['password_hash', 'active']).where('id', '=', userId).executeTakeFirst();
      if (!row || row.active !== 1) return fail({ code: 'not_found', message: 'no such active account' });
      if (row.password_hash === null) return fail({ code: 'invalid_input', field: 'current_password', message: 'this account signs in through SSO and has no password here' });
      if (!(await passwords.verify(current, row.password_hash))) return fail({ code: 'invalid_input', field: 'current_password', message: 'the current password is wrong' });
      if (current === next) return fail({ code: 'invalid_input', field: 'new_password', message: 'the new password must differ from the current one' });
      const hash = await passwords.hash(next);
      return db.transaction().execute(async (trx) => {
        // Checked again inside the write: a change that raced this one since the check wins, and this one fails.
        const still = await trx.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
        if (still?.password_hash !== row.password_hash) return fail({ code: 'conflict', field: 'current_password', message: 'the password changed meanwhile; sign in again' });
        await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
        const ended = await trx.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepSession).executeTakeFirst();
        return ok({ sessionsEnded: Number(ended.numDeletedRows) });
      });
    },

    async revokeSession(sessionId, userId) {
      let q = db.deleteFrom('sessions').where('id', '=', sessionId);
      if (userId !== null) q = q.where('user_id', '=', userId);
      return Number((await q.executeTakeFirst()).numDeletedRows) > 0;
    },
  };
}
