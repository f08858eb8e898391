// Dynamic client registration is anonymous (RFC 7591, as MCP clients expect), so it must stay
// bounded (review defect 12): a total cap on registered clients, a per-address rate class, expiry
// of clients nobody ever authorized, and an admin view that lists and deletes clients (deleting
// one revokes its tokens).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';
import { MAX_OAUTH_CLIENTS, UNUSED_CLIENT_TTL_MS } from '../../runtime/oauth/oauth.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { migrations } from '../../runtime/store/migrations.ts';
import { testApp } from '../support/app.ts';
import { ManualClock } from '../support/services.ts';

const REDIRECT = 'http://127.0.0.1:33418/callback';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = encodeBase64urlNoPadding(createHash('sha256').update(VERIFIER).digest());

type App = Awaited<ReturnType<typeof testApp>>;

async function setUp(t: TestContext): Promise<App> {
  const h = await testApp();
  t.after(() => h.services.stop());
  return h;
}

/** Registers from `ip` (a fresh address by default, so the per-address class is not what refuses). */
let nextHost = 1;
const register = (h: App, ip = `198.51.100.${String(nextHost++ % 250)}`, name = 'Desktop Assistant') =>
  h.call('POST', '/api/agent/oauth/register', { body: { client_name: name, redirect_uris: [REDIRECT] }, ip });

const clientRows = async (h: App) => (await h.services.db.selectFrom('oauth_clients').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

const authorizeQuery = (clientId: string) =>
  new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's1' });

/** The user approves on the consent screen and the client exchanges the code: a live token. */
async function connect(h: App, clientId: string, cookie: string): Promise<string> {
  const decided = await h.call('POST', '/api/agent/oauth/consent', { cookie, body: { ...Object.fromEntries(authorizeQuery(clientId)), approve: true } });
  assert.equal(decided.status, 200, decided.text);
  const code = new URL(String(decided.body.redirect_to)).searchParams.get('code') ?? '';
  const issued = await h.call('POST', '/api/agent/oauth/token', { body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: VERIFIER } });
  assert.equal(issued.status, 200, issued.text);
  return String(issued.body.access_token);
}

describe('OAuth dynamic client registration is bounded', () => {
  it(`refuses a registration once ${String(MAX_OAUTH_CLIENTS)} clients are registered (503 with Retry-After), and the table stays bounded`, async (t) => {
    const h = await setUp(t);
    const at = h.clock.now().getTime();
    const rows = Array.from({ length: MAX_OAUTH_CLIENTS - 1 }, (_, i) => ({ id: `mcp_seed${String(i)}`, name: 'seeded', redirect_uris: JSON.stringify([REDIRECT]), created_at: at }));
    for (let i = 0; i < rows.length; i += 200) await h.services.db.insertInto('oauth_clients').values(rows.slice(i, i + 200)).execute();
    assert.equal((await register(h)).status, 200, 'the last free slot is taken');
    for (let i = 0; i < 3; i++) {
      const refused = await register(h);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.error, 'registration_full');
      assert.match(String(refused.body.message), /full/);
      assert.ok(Number(refused.headers.get('retry-after')) > 0, 'says when a slot frees up');
    }
    assert.equal(await clientRows(h), MAX_OAUTH_CLIENTS);
    // Never-authorized clients expire; then registration works again, and the expired are gone.
    h.clock.advance(UNUSED_CLIENT_TTL_MS + 1000);
    assert.equal((await register(h)).status, 200, 'a slot is free once unused clients expire');
    assert.equal(await clientRows(h), 1, 'expired clients are pruned, not just hidden');
  });

  it(`limits registrations per address (${String(DEFAULT_RATE_LIMITS.register)} a minute), not for everyone`, async (t) => {
    const h = await setUp(t);
    assert.ok(DEFAULT_RATE_LIMITS.register < DEFAULT_RATE_LIMITS.login, 'tighter than the sign-in class it used to share');
    for (let i = 0; i < DEFAULT_RATE_LIMITS.register; i++) assert.equal((await register(h, '203.0.113.9')).status, 200);
    const refused = await register(h, '203.0.113.9');
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.error, 'rate_limited');
    assert.equal((await register(h, '203.0.113.10')).status, 200, 'another address is not held back');
    assert.equal(await clientRows(h), DEFAULT_RATE_LIMITS.register + 1);
  });

  it('expires a client no user ever authorized after the TTL; an authorized one stays', async (t) => {
    const h = await setUp(t);
    const admin = await h.signIn();
    const unused = String((await register(h)).body.client_id);
    const used = String((await register(h)).body.client_id);
    await connect(h, used, admin);
    h.clock.advance(UNUSED_CLIENT_TTL_MS - 1000);
    assert.equal((await h.call('GET', `/api/agent/oauth/authorize?${authorizeQuery(unused).toString()}`)).status, 302, 'still valid just before the TTL');
    h.clock.advance(2000);
    const expired = await h.call('GET', `/api/agent/oauth/authorize?${authorizeQuery(unused).toString()}`);
    assert.deepEqual([expired.status, expired.body.error], [400, 'invalid_client'], expired.text);
    assert.equal((await h.call('GET', `/api/agent/oauth/authorize?${authorizeQuery(used).toString()}`)).status, 302, 'an authorized client does not expire');
    // A day later the admin's session has idled out: sign in again.
    const listed = await h.call('GET', '/api/agent/admin/oauth/clients', { cookie: await h.signIn() });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual((listed.body.clients as { client_id: string }[]).map((c) => c.client_id), [used]);
    assert.equal(await clientRows(h), 1, 'the expired client is pruned');
  });
});

describe('Admin → OAuth clients', () => {
  it('lists clients with their state and deletes one, revoking its tokens', async (t) => {
    const h = await setUp(t);
    const admin = await h.signIn();
    const clientId = String((await register(h, undefined, 'Claude Desktop')).body.client_id);
    const pending = String((await register(h, undefined, 'Never approved')).body.client_id);
    const token = await connect(h, clientId, admin);
    const bearer = { authorization: `Bearer ${token}` };
    assert.equal((await h.services.oauth.resolveToken(token)).ok, true);

    const listed = await h.call('GET', '/api/agent/admin/oauth/clients', { cookie: admin });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.limit, MAX_OAUTH_CLIENTS);
    const clients = listed.body.clients as { client_id: string; client_name: string; redirect_uris: string[]; last_authorized_at: string | null; expires_at: string | null; live_tokens: number }[];
    const byId = new Map(clients.map((c) => [c.client_id, c]));
    assert.equal(byId.get(clientId)?.client_name, 'Claude Desktop');
    assert.deepEqual(byId.get(clientId)?.redirect_uris, [REDIRECT]);
    assert.equal(byId.get(clientId)?.live_tokens, 1);
    assert.equal(byId.get(clientId)?.expires_at, null, 'authorized: does not expire');
    assert.equal(typeof byId.get(clientId)?.last_authorized_at, 'string');
    assert.equal(byId.get(pending)?.last_authorized_at, null);
    assert.equal(byId.get(pending)?.expires_at, new Date(h.clock.now().getTime() + UNUSED_CLIENT_TTL_MS).toISOString());

    const deleted = await h.call('DELETE', `/api/agent/admin/oauth/clients/${clientId}`, { cookie: admin });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { status: 'deleted', tokens_revoked: 1 });
    const check = await h.services.oauth.resolveToken(token);
    assert.deepEqual(check, { ok: false, reason: 'revoked' }, 'revoked, not unknown: a client holding it is not taken for a forger');
    const refused = await h.call('GET', '/api/agent/mcp/tools', { headers: bearer });
    assert.equal(refused.status, 401, refused.text);
    const gone = await h.call('GET', `/api/agent/oauth/authorize?${authorizeQuery(clientId).toString()}`);
    assert.deepEqual([gone.status, gone.body.error], [400, 'invalid_client'], 'a deleted client cannot start a new flow');
    const after = await h.call('GET', '/api/agent/admin/oauth/clients', { cookie: admin });
    assert.deepEqual((after.body.clients as { client_id: string }[]).map((c) => c.client_id), [pending]);
    assert.equal((await h.call('GET', '/api/agent/me/oauth/grants', { cookie: admin })).body.grants instanceof Array, true);
    assert.deepEqual((await h.call('GET', '/api/agent/me/oauth/grants', { cookie: admin })).body.grants, [], 'no connected app left');
    assert.equal((await h.call('DELETE', `/api/agent/admin/oauth/clients/${clientId}`, { cookie: admin })).status, 404, 'deleted once');
    assert.equal((await h.call('DELETE', `/api/agent/admin/oauth/clients/${pending}`, { cookie: admin })).status, 200);
    assert.equal(await clientRows(h), 1, 'an unused client goes at once; a used one stays as a tombstone so its tokens answer "revoked"');

    const audited = await h.services.db.selectFrom('audit_log').select(['action', 'category', 'status', 'detail']).where('action', 'like', 'DELETE /admin/oauth/clients/%').orderBy('id').execute();
    assert.deepEqual(audited.map((r) => [r.category, r.status]), [['auth', 200], ['auth', 404], ['auth', 200]]);
    assert.match(String(audited[0]?.detail), /"tokens_revoked":"1"/, 'the audit row says how many tokens went');
  });

  it('refuses a viewer (403) and any API key (403 api_key_forbidden)', async (t) => {
    const h = await setUp(t);
    const viewer = await h.signIn('viewer');
    const admin = await h.signIn();
    const clientId = String((await register(h)).body.client_id);
    assert.deepEqual([(await h.call('GET', '/api/agent/admin/oauth/clients', { cookie: viewer })).status], [403]);
    assert.equal((await h.call('DELETE', `/api/agent/admin/oauth/clients/${clientId}`, { cookie: viewer })).status, 403);
    const minted = await h.call('POST', '/api/agent/me/api-keys', { cookie: admin, body: { name: 'automation', scopes: ['mcp:read', 'policy:read'] } });
    assert.equal(minted.status, 200, minted.text);
    const key = String(minted.body.key);
    const byKey = await h.call('GET', '/api/agent/admin/oauth/clients', { key });
    assert.deepEqual([byKey.status, byKey.body.error], [403, 'api_key_forbidden']);
    assert.equal(await clientRows(h), 1, 'nothing deleted');
  });

  it('answers 400 naming the field for an id that is not a client id', async (t) => {
    const h = await setUp(t);
    const admin = await h.signIn();
    const bad = await h.call('DELETE', '/api/agent/admin/oauth/clients/not%20an%20id', { cookie: admin });
    assert.deepEqual([bad.status, bad.body.error, bad.body.field], [400, 'invalid_input', 'id']);
  });
});

describe('migration 15 (oauth clients: last authorization and deletion)', () => {
  it('marks clients authorized before it by their newest token or code, so they do not expire', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-oauth-migration-'));
    const clock = new ManualClock();
    const at = clock.now().getTime();
    const before = await openDatabase(dir, clock, { migrations: migrations.filter((m) => m.version <= 14) });
    const user = await before.insertInto('users').values({ username: 'u', role: 'viewer', password_hash: null, active: 1, created_at: at }).returning('id').executeTakeFirstOrThrow();
    const client = (id: string) => ({ id, name: id, redirect_uris: '[]', created_at: at - 5000 });
    await before.insertInto('oauth_clients').values([client('mcp_tokened'), client('mcp_coded'), client('mcp_unused')]).execute();
    await before.insertInto('oauth_tokens').values({ id: 'grant_1', token_hash: 'h', client_id: 'mcp_tokened', user_id: user.id, resource: 'r', created_at: at - 1000, expires_at: at + 3_599_000, revoked_at: null, last_used_at: null }).execute();
    await before.insertInto('oauth_codes').values({ code_hash: 'c', client_id: 'mcp_coded', user_id: user.id, redirect_uri: REDIRECT, code_challenge: CHALLENGE, resource: 'r', expires_at: at + 600_000 - 2000, used_at: null }).execute();
    await before.destroy();
    const after = await openDatabase(dir, clock);
    const rows = await after.selectFrom('oauth_clients').select(['id', 'last_authorized_at', 'deleted_at']).orderBy('id').execute();
    assert.deepEqual(rows, [
      { id: 'mcp_coded', last_authorized_at: at - 2000, deleted_at: null },
      { id: 'mcp_tokened', last_authorized_at: at - 1000, deleted_at: null },
      { id: 'mcp_unused', last_authorized_at: null, deleted_at: null },
    ]);
    await after.destroy();
  });
});
