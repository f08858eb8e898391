// MCP over OAuth, the authorization server's state: registered public clients, single-use
// authorization codes checked with PKCE (S256), and one-hour access tokens bound to the
// resource they were asked for. Codes and tokens are random 256-bit values; only their
// SHA-256 is stored, and comparisons of secrets are constant-time.
//
// Registration is anonymous (RFC 7591, as MCP clients expect), so the registry is bounded:
// at most MAX_OAUTH_CLIENTS clients; one no user ever approved is forgotten UNUSED_CLIENT_TTL_MS
// after it registered (pruned on the registration path and by the admin list); the route's
// `register` rate class limits each address. An admin deletes clients (Admin → Access control → OAuth clients):
// that revokes their live tokens, and a client that ever had tokens stays as a deleted row for
// DELETED_CLIENT_KEEP_MS, so a token still presented answers "revoked" rather than "unknown"
// (which the auth_flood ban counts as forged). See docs/mcp.md.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import * as v from 'valibot';
import type { Kysely } from 'kysely';
import type { Clock } from '../../domain/clock.ts';
import type { OAuthClient, OAuthService } from '../../handlers/oauth/service.ts';
import type { Principal } from '../../handlers/context.ts';
import { fail, ok } from '../../handlers/result.ts';
import type { Db } from '../store/database.ts';
import type { Database } from '../store/tables.ts';

export const OAUTH_TOKEN_PREFIX = 'capstan_oat_';
export const ACCESS_TOKEN_SECS = 3600;
const CODE_SECS = 600;
/** Registered clients kept at most (docs/mcp.md). */
export const MAX_OAUTH_CLIENTS = 1000;
/** A client no user ever authorized is forgotten this long after it registered. */
export const UNUSED_CLIENT_TTL_MS = 24 * 3600 * 1000;
/** How long a deleted client's row outlives it (its tokens expired within the hour). */
const DELETED_CLIENT_KEEP_MS = 30 * 24 * 3600 * 1000;
/** Retry-After for a full registry that no expiry will free (every client authorized). */
const FULL_RETRY_SECS = 3600;

const random = () => encodeBase64urlNoPadding(randomBytes(32));
const sha256 = (text: string) => createHash('sha256').update(text).digest();
const hashHex = (text: string) => sha256(text).toString('hex');

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(encodeBase64urlNoPadding(sha256(verifier)));
  const given = Buffer.from(challenge);
  return computed.length === given.length && timingSafeEqual(computed, given);
}

export type OAuthTokenCheck =
  | { ok: true; principal: Extract<Principal, { via: 'oauth' }>; resource: string }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'owner_inactive' };

export interface AgentOAuth extends OAuthService {
  /** The token's user, as that user is right now (role re-read, deactivation refuses), and the resource it is bound to. */
  resolveToken(token: string): Promise<OAuthTokenCheck>;
}

const Uris = v.array(v.string());

export function createOAuthService(db: Db, clock: Clock): AgentOAuth {
  const now = () => clock.now().getTime();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  /** Forgets clients never authorized within the TTL, and deleted clients' rows once kept long enough. */
  const prune = async (q: Kysely<Database>) => {
    const t = now();
    await q
      .deleteFrom('oauth_clients')
      .where((eb) => eb.or([eb.and([eb('last_authorized_at', 'is', null), eb('created_at', '<=', t - UNUSED_CLIENT_TTL_MS)]), eb('deleted_at', '<=', t - DELETED_CLIENT_KEEP_MS)]))
      .execute();
  };
  const toClient = (row: { id: string; name: string; redirect_uris: string; created_at: number }): OAuthClient => ({
    client_id: row.id,
    client_name: row.name,
    redirect_uris: v.parse(Uris, JSON.parse(row.redirect_uris)),
    created_at: new Date(row.created_at).toISOString(),
  });

  return {
    async registerClient(name, redirectUris) {
      // One transaction: the count and the insert cannot interleave with another registration.
      return db.transaction().execute(async (trx) => {
        await prune(trx);
        const t = now();
        const held = await trx.selectFrom('oauth_clients').select((eb) => eb.fn.countAll<number>().as('n')).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
        if (held.n >= MAX_OAUTH_CLIENTS) {
          const oldest = await trx
            .selectFrom('oauth_clients')
            .select((eb) => eb.fn.min('created_at').as('at'))
            .where('deleted_at', 'is', null)
            .where('last_authorized_at', 'is', null)
            .executeTakeFirst();
          const frees = oldest?.at ?? null;
          const retryAfterSecs = frees === null ? FULL_RETRY_SECS : Math.max(1, Math.ceil((frees + UNUSED_CLIENT_TTL_MS - t) / 1000));
          return fail({
            code: 'registration_full',
            message: `OAuth client registration is full (${String(MAX_OAUTH_CLIENTS)} clients): a client no user approved expires 24 hours after it registered, and an admin can delete clients under Admin → Access control → OAuth clients`,
            retryAfterSecs,
          });
        }
        const row = { id: `mcp_${encodeBase64urlNoPadding(randomBytes(12))}`, name, redirect_uris: JSON.stringify(redirectUris), created_at: t };
        await trx.insertInto('oauth_clients').values(row).execute();
        return ok(toClient(row));
      });
    },

    async client(clientId) {
      const row = await db
        .selectFrom('oauth_clients')
        .select(['id', 'name', 'redirect_uris', 'created_at'])
        .where('id', '=', clientId)
        .where('deleted_at', 'is', null)
        .where((eb) => eb.or([eb('last_authorized_at', 'is not', null), eb('created_at', '>', now() - UNUSED_CLIENT_TTL_MS)]))
        .executeTakeFirst();
      return row ? toClient(row) : null;
    },

    async issueCode(grant) {
      const code = random();
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('oauth_codes')
          .values({ code_hash: hashHex(code), client_id: grant.clientId, user_id: grant.userId, redirect_uri: grant.redirectUri, code_challenge: grant.codeChallenge, resource: grant.resource, expires_at: now() + CODE_SECS * 1000, used_at: null })
          .execute();
        // A user approved it: no longer an anonymous registration that expires unused.
        await trx.updateTable('oauth_clients').set({ last_authorized_at: now() }).where('id', '=', grant.clientId).execute();
      });
      return code;
    },

    async exchangeCode(request) {
      return db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hashHex(request.code)).executeTakeFirst();
        if (!row || row.used_at !== null || row.expires_at <= now()) return { error: 'the authorization code is unknown, used or expired' };
        // Spent whatever happens next: a code is tried once.
        await trx.updateTable('oauth_codes').set({ used_at: now() }).where('code_hash', '=', row.code_hash).execute();
        if (row.client_id !== request.clientId || row.redirect_uri !== request.redirectUri) return { error: 'the code was issued to another client or redirect URI' };
        if (!pkceMatches(request.codeVerifier, row.code_challenge)) return { error: 'code_verifier does not match the code_challenge' };
        if (request.resource !== null && request.resource !== row.resource) return { error: 'resource differs from the one authorized' };
        const token = `${OAUTH_TOKEN_PREFIX}${random()}`;
        const issued = now();
        await trx
          .insertInto('oauth_tokens')
          .values({ id: `grant_${encodeBase64urlNoPadding(randomBytes(9))}`, token_hash: hashHex(token), client_id: row.client_id, user_id: row.user_id, resource: row.resource, created_at: issued, expires_at: issued + ACCESS_TOKEN_SECS * 1000, revoked_at: null, last_used_at: null })
          .execute();
        return { token, expiresInSecs: ACCESS_TOKEN_SECS, resource: row.resource };
      });
    },

    async grants(userId) {
      const rows = await db
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_tokens.client_id')
        .select(['oauth_tokens.id', 'oauth_tokens.client_id', 'oauth_clients.name', 'oauth_tokens.created_at', 'oauth_tokens.expires_at', 'oauth_tokens.last_used_at'])
        .where('oauth_tokens.user_id', '=', userId)
        .where('oauth_tokens.revoked_at', 'is', null)
        .where('oauth_tokens.expires_at', '>', now())
        .orderBy('oauth_tokens.created_at', 'desc')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        client_id: r.client_id,
        client_name: r.name,
        created_at: new Date(r.created_at).toISOString(),
        expires_at: new Date(r.expires_at).toISOString(),
        last_used_at: r.last_used_at === null ? null : new Date(r.last_used_at).toISOString(),
      }));
    },

    async revoke(userId, grantId) {
      const result = await db.updateTable('oauth_tokens').set({ revoked_at: now() }).where('id', '=', grantId).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async listClients() {
      await prune(db);
      const t = now();
      const rows = await db
        .selectFrom('oauth_clients as c')
        .select(['c.id', 'c.name', 'c.redirect_uris', 'c.created_at', 'c.last_authorized_at'])
        .select((eb) => [
          eb
            .selectFrom('oauth_tokens as t')
            .whereRef('t.client_id', '=', 'c.id')
            .where('t.revoked_at', 'is', null)
            .where('t.expires_at', '>', t)
            .select((sub) => sub.fn.countAll<number>().as('n'))
            .as('live_tokens'),
          eb
            .selectFrom('oauth_tokens as t')
            .whereRef('t.client_id', '=', 'c.id')
            .select((sub) => sub.fn.max('t.last_used_at').as('m'))
            .as('last_used_at'),
        ])
        .where('c.deleted_at', 'is', null)
        .orderBy('c.created_at', 'desc')
        .orderBy('c.id')
        .execute();
      return {
        limit: MAX_OAUTH_CLIENTS,
        clients: rows.map((r) => ({
          ...toClient(r),
          last_authorized_at: iso(r.last_authorized_at),
          expires_at: r.last_authorized_at === null ? iso(r.created_at + UNUSED_CLIENT_TTL_MS) : null,
          live_tokens: r.live_tokens ?? 0,
          last_used_at: iso(r.last_used_at ?? null),
        })),
      };
    },

    async deleteClient(clientId) {
      return db.transaction().execute(async (trx) => {
        await prune(trx);
        const row = await trx.selectFrom('oauth_clients').select('id').where('id', '=', clientId).where('deleted_at', 'is', null).executeTakeFirst();
        if (!row) return null;
        const t = now();
        const revoked = await trx.updateTable('oauth_tokens').set({ revoked_at: t }).where('client_id', '=', clientId).where('revoked_at', 'is', null).where('expires_at', '>', t).executeTakeFirst();
        await trx.updateTable('oauth_codes').set({ used_at: t }).where('client_id', '=', clientId).where('used_at', 'is', null).execute();
        const tokens = await trx.selectFrom('oauth_tokens').select('id').where('client_id', '=', clientId).limit(1).executeTakeFirst();
        // A client that never had a token goes at once; one that had stays, deleted, while a token may still be presented.
        if (tokens) await trx.updateTable('oauth_clients').set({ deleted_at: t }).where('id', '=', clientId).execute();
        else await trx.deleteFrom('oauth_clients').where('id', '=', clientId).execute();
        return { tokensRevoked: Number(revoked.numUpdatedRows) };
      });
    },

    async resolveToken(token) {
      if (!token.startsWith(OAUTH_TOKEN_PREFIX) || token.length !== OAUTH_TOKEN_PREFIX.length + 43) return { ok: false, reason: 'malformed' };
      const row = await db
        .selectFrom('oauth_tokens')
        .innerJoin('users', 'users.id', 'oauth_tokens.user_id')
        .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_tokens.client_id')
        .select(['oauth_tokens.id', 'oauth_tokens.resource', 'oauth_tokens.expires_at', 'oauth_tokens.revoked_at', 'users.id as user_id', 'users.username', 'users.role', 'users.active', 'oauth_clients.name as client_name'])
        .where('oauth_tokens.token_hash', '=', hashHex(token))
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'unknown' };
      if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
      if (row.expires_at <= now()) return { ok: false, reason: 'expired' };
      if (row.active !== 1) return { ok: false, reason: 'owner_inactive' };
      await db.updateTable('oauth_tokens').set({ last_used_at: now() }).where('id', '=', row.id).execute();
      return {
        ok: true,
        resource: row.resource,
        principal: { userId: row.user_id, username: row.username, role: row.role, via: 'oauth', tokenId: row.id, clientName: row.client_name, scopes: ['mcp:read'] },
      };
    },
  };
}
