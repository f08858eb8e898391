import { sql } from 'kysely';
import * as v from 'valibot';
import type { AccountSummary, ApiKeyRecord, AuthService } from '../../handlers/auth/service.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Principal } from '../../handlers/context.ts';
import { Scope } from '../../schema/access.ts';
import type { ApiKeysTable } from '../store/tables.ts';
import { mintApiKey, parseApiKey, secretMatches } from './api-key-token.ts';
import type { Db } from '../store/database.ts';
import { findUser } from './accounts.ts';
import type { PasswordHasher } from './password.ts';
import { issueSessionToken, verifySessionToken } from './session-token.ts';
import { CredentialCache, type WriteGeneration } from './credential-cache.ts';

export const LOCKOUT_THRESHOLD = 6;
export const LOCKOUT_MS = 15 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often, so polling does not turn every read into a write. */
const TOUCH_INTERVAL_MS = 30 * 1000;

export interface SessionPolicy {
  /** Sliding idle timeout in seconds; 0 disables the idle check (spec: security.sessionIdleTimeout). Read per request: admins edit it at runtime. */
  idleTimeoutSecs: () => Promise<number>;
}

export type SessionCheck = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'malformed' | 'forged' | 'expired' | 'revoked' };

export type ApiKeyCheck = { ok: true; principal: Extract<Principal, { via: 'api_key' }> } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'owner_inactive' };

export interface AgentAuth extends AuthService {
  /**
   * Resolves a `capstan_session` cookie to its principal, sliding the idle timeout unless
   * `slide` is false (an open stream's re-check: a stream alone does not keep a session alive).
   */
  resolveSession(token: string | undefined, options?: { slide?: boolean }): Promise<SessionCheck>;
  /** Resolves an API key to its owner, with the owner's current role and the key's scopes. */
  resolveApiKey(value: string): Promise<ApiKeyCheck>;
}

const StoredScopes = v.array(Scope);

/** The `api_keys.scopes` column (a JSON array), checked on the way out. */
function storedScopes(text: string): Scope[] {
  return v.parse(StoredScopes, JSON.parse(text));
}

function toRecord(row: Omit<ApiKeysTable, 'id' | 'user_id' | 'secret_hash'> & { id: number; owner: string }): ApiKeyRecord {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: row.id,
    owner: row.owner,
    name: row.name,
    prefix: row.prefix,
    scopes: storedScopes(row.scopes),
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

/** The session row a cookie resolves to, as read with its user. */
interface SessionRow {
  id: string;
  created_at: number;
  last_seen_at: number;
  principal: Extract<Principal, { via: 'session' }>;
  active: boolean;
}

/** The API key row a prefix resolves to, as read with its owner. */
interface ApiKeyRow {
  id: number;
  secret_hash: string;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  principal: Extract<Principal, { via: 'api_key' }>;
  active: boolean;
}

/**
 * `writes` counts writes to the credential tables through `db` (database.ts credentialWrites);
 * with it, verified rows are kept briefly (credential-cache.ts), without it every request reads them.
 */
export function createAuthService(db: Db, clock: Clock, secret: Buffer, policy: SessionPolicy, passwords: PasswordHasher, writes: WriteGeneration | null = null): AgentAuth {
  const now = () => clock.now().getTime();
  const sessionRows = new CredentialCache<SessionRow | null>(clock, writes);
  const apiKeyRows = new CredentialCache<ApiKeyRow | null>(clock, writes);

  async function sessionRow(storedId: string): Promise<SessionRow | null> {
    const cached = sessionRows.get(storedId);
    if (cached !== undefined) return cached;
    const generation = sessionRows.generation();
    const row = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.created_at', 'sessions.last_seen_at', 'users.id as user_id', 'users.username', 'users.role', 'users.active'])
      .where('sessions.id', '=', storedId)
      .executeTakeFirst();
    const found: SessionRow | null = row
      ? { id: row.id, created_at: row.created_at, last_seen_at: row.last_seen_at, active: row.active === 1, principal: { userId: row.user_id, username: row.username, role: row.role, via: 'session', sessionId: row.id } }
      : null;
    sessionRows.set(storedId, found, generation);
    return found;
  }

  async function apiKeyRow(prefix: string): Promise<ApiKeyRow | null> {
    const cached = apiKeyRows.get(prefix);
    if (cached !== undefined) return cached;
    const generation = apiKeyRows.generation();
    const row = await db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select(['api_keys.id', 'api_keys.secret_hash', 'api_keys.scopes', 'api_keys.expires_at', 'api_keys.revoked_at', 'api_keys.last_used_at', 'users.id as user_id', 'users.username', 'users.role', 'users.active'])
      .where('api_keys.prefix', '=', prefix)
      .executeTakeFirst();
    const found: ApiKeyRow | null = row
      ? {
          id: row.id,
          secret_hash: row.secret_hash,
          expires_at: row.expires_at,
          revoked_at: row.revoked_at,
          last_used_at: row.last_used_at,
          active: row.active === 1,
          principal: { userId: row.user_id, username: row.username, role: row.role, via: 'api_key', keyId: row.id, scopes: storedScopes(row.scopes) },
        }
      : null;
    apiKeyRows.set(prefix, found, generation);
    return found;
  }

  return {
    async beginAttempt(username, ip) {
      const t = now();
      // A streak whose window has passed, or whose lock has expired, starts over.
      const stale = sql<boolean>`(locked_until IS NOT NULL AND locked_until <= ${t}) OR (locked_until IS NULL AND ${t} - first_failed_at > ${LOCKOUT_MS})`;
      const counted = sql<number>`CASE WHEN ${stale} THEN 1 ELSE count + 1 END`;
      // One statement checks the lock and counts the attempt, so no other attempt (in this
      // process or the recovery CLI's) can be judged between the two; a locked pair matches
      // the WHERE of no update and returns no row.
      const row = await db
        .insertInto('login_failures')
        .values({ username, ip, count: 1, first_failed_at: t, locked_until: null })
        .onConflict((oc) =>
          oc
            .columns(['username', 'ip'])
            .doUpdateSet({
              count: counted,
              first_failed_at: sql<number>`CASE WHEN ${stale} THEN ${t} ELSE first_failed_at END`,
              locked_until: sql<number | null>`CASE WHEN ${counted} >= ${LOCKOUT_THRESHOLD} THEN ${t + LOCKOUT_MS} ELSE NULL END`,
            })
            .where(sql<boolean>`locked_until IS NULL OR locked_until <= ${t}`),
        )
        .returning('locked_until')
        .executeTakeFirst();
      if (row) return { admitted: true, lockedUntil: row.locked_until === null ? null : new Date(row.locked_until) };
      const lock = await db.selectFrom('login_failures').select('locked_until').where('username', '=', username).where('ip', '=', ip).executeTakeFirst();
      // Cleared in between (the recovery CLI): still refused this once, with the shortest wait.
      return { admitted: false, lockedUntil: new Date(lock?.locked_until ?? t) };
    },

    async refundAttempt(username, ip) {
      // The count drops by this one attempt; a lock stands only while the attempts left still reach it.
      await db
        .updateTable('login_failures')
        .set({ count: sql<number>`max(count - 1, 0)`, locked_until: sql<number | null>`CASE WHEN count - 1 >= ${LOCKOUT_THRESHOLD} THEN locked_until ELSE NULL END` })
        .where('username', '=', username)
        .where('ip', '=', ip)
        .execute();
    },

    async checkPassword(username, password): Promise<AccountSummary | null> {
      const user = await findUser(db, username);
      const matches = await passwords.verify(password, user?.password_hash ?? null);
      if (!user || !matches || user.active !== 1 || user.password_hash === null) return null;
      return { id: user.id, username: user.username, role: user.role, totpEnabled: user.totp_enabled === 1 };
    },

    async clearFailures(username, ip) {
      // A success among attempts that used up the allowance (parallel guesses, one of them
      // right) leaves the lock in place, so the allowance is never more than six per window.
      const t = now();
      await db
        .deleteFrom('login_failures')
        .where('username', '=', username)
        .where('ip', '=', ip)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', t)]))
        .execute();
    },

    async startSession(userId, ip) {
      const { token, storedId } = issueSessionToken(secret);
      const t = now();
      await db.insertInto('sessions').values({ id: storedId, user_id: userId, created_at: t, last_seen_at: t, ip }).execute();
      return { token, sessionId: storedId };
    },

    async endSession(sessionId) {
      await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
    },

    async resolveSession(token, options) {
      if (token === undefined || token === '') return { ok: false, reason: 'missing' };
      const check = verifySessionToken(secret, token);
      if (!check.ok) return { ok: false, reason: check.reason };
      const row = await sessionRow(check.storedId);
      if (!row || !row.active) return { ok: false, reason: 'revoked' };
      const t = now();
      const idleTimeoutSecs = await policy.idleTimeoutSecs();
      const idle = idleTimeoutSecs > 0 && t - row.last_seen_at > idleTimeoutSecs * 1000;
      if (idle || t - row.created_at > SESSION_ABSOLUTE_MS) {
        await db.deleteFrom('sessions').where('id', '=', row.id).execute();
        return { ok: false, reason: 'expired' };
      }
      if (options?.slide !== false && t - row.last_seen_at > TOUCH_INTERVAL_MS) {
        await db.updateTable('sessions').set({ last_seen_at: t }).where('id', '=', row.id).execute();
      }
      return { ok: true, principal: row.principal };
    },

    async resolveApiKey(value) {
      const parsed = parseApiKey(value);
      if (!parsed) return { ok: false, reason: 'malformed' };
      const row = await apiKeyRow(parsed.prefix);
      if (!row || !secretMatches(parsed.secret, row.secret_hash)) return { ok: false, reason: 'unknown' };
      const t = now();
      if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
      if (row.expires_at !== null && row.expires_at <= t) return { ok: false, reason: 'expired' };
      if (!row.active) return { ok: false, reason: 'owner_inactive' };
      if (row.last_used_at === null || t - row.last_used_at > TOUCH_INTERVAL_MS) {
        await db.updateTable('api_keys').set({ last_used_at: t }).where('id', '=', row.id).execute();
      }
      return { ok: true, principal: row.principal };
    },

    async createApiKey(userId, name, scopes, expiresAt) {
      const minted = mintApiKey();
      const created_at = now();
      const values = { user_id: userId, name, prefix: minted.prefix, secret_hash: minted.secretHash, scopes: JSON.stringify([...new Set(scopes)].sort()), created_at, expires_at: expiresAt?.getTime() ?? null, revoked_at: null, last_used_at: null };
      const { id } = await db.insertInto('api_keys').values(values).returning('id').executeTakeFirstOrThrow();
      const owner = await db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirstOrThrow();
      return { key: minted.key, record: toRecord({ ...values, id, owner: owner.username }) };
    },

    async listApiKeys(ownerId) {
      let query = db
        .selectFrom('api_keys')
        .innerJoin('users', 'users.id', 'api_keys.user_id')
        .select(['api_keys.id', 'users.username as owner', 'api_keys.name', 'api_keys.prefix', 'api_keys.scopes', 'api_keys.created_at', 'api_keys.expires_at', 'api_keys.revoked_at', 'api_keys.last_used_at'])
        .orderBy('api_keys.id');
      if (ownerId !== null) query = query.where('api_keys.user_id', '=', ownerId);
      return (await query.execute()).map(toRecord);
    },

    async revokeApiKey(keyId, ownerId) {
      // Revoking twice is fine and keeps the first revocation time.
      let query = db.updateTable('api_keys').set({ revoked_at: sql<number>`coalesce(revoked_at, ${now()})` }).where('id', '=', keyId);
      if (ownerId !== null) query = query.where('user_id', '=', ownerId);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
