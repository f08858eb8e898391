import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditLog } from '../../runtime/audit/audit-log.ts';
import { auditChainKey } from '../../runtime/crypto/secret-box.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { migrations } from '../../runtime/store/migrations.ts';
import type { AuditLogTable } from '../../runtime/store/tables.ts';
import { ACCESS_RETENTION_MS, AUDIT_RETENTION_MS } from '../../runtime/audit/audit-log.ts';
import { createApp } from '../../runtime/http/app.ts';
import { silentLogger } from '../../runtime/log.ts';
import { routes } from '../../runtime/routes.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

/** The hash an unkeyed chain used (and what anyone can compute): SHA-256 over the row's content. */
function unkeyedHash(row: Omit<AuditLogTable, 'hash'>): string {
  const content = [row.id, row.ts, row.actor, row.category, row.action, row.status, row.outcome, row.severity, row.namespace, row.detail, row.prev_hash];
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** A database as the release before keyed chains left it: `rows` unkeyed rows, the second one edited afterwards when `tamper`. */
async function legacyDatabase(rows: number, tamper: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-legacy-audit-'));
  const clock = new ManualClock();
  const db = await openDatabase(dir, clock, { migrations: migrations.filter((m) => m.version <= 7) });
  let prev = '';
  for (let id = 1; id <= rows; id++) {
    const row = { id, ts: clock.now().getTime() + id, actor: 'admin@10.0.0.1', category: 'auth', action: 'POST /auth/login', status: 200, outcome: 'success', severity: 'info', namespace: null, detail: '{}', prev_hash: prev };
    const hash = unkeyedHash(row);
    await db.insertInto('audit_log').values({ ...row, hash }).execute();
    prev = hash;
  }
  if (tamper) await db.updateTable('audit_log').set({ actor: 'mallory@10.0.0.9' }).where('id', '=', 2).execute();
  await db.destroy();
  return { dir, clock };
}

async function harness() {
  const clock = new ManualClock();
  const services = await testServices({ clock });
  const app = createApp({
    routes,
    services,
    middleware: services.middleware,
    validateOutput: true,
    log: silentLogger,
  });
  const env = { incoming: { socket: { remoteAddress: '203.0.113.5' } } };
  const request = (method: string, path: string, body?: unknown, cookie?: string) =>
    app.request(path, { method, headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) }, env);
  const signIn = async () => {
    const res = await request('POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  };
  const rows = () => services.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
  const verify = async (cookie: string) => (await (await request('GET', '/api/agent/audit/verify-chain', undefined, cookie)).json()) as Record<string, unknown>;
  return { clock, services, request, signIn, rows, verify };
}

describe('audit log', () => {
  it('records sign-ins, denials and writes as user@ip in the chain, and routine reads in the access log', async () => {
    const h = await harness();
    await h.request('POST', '/auth/login', { username: 'admin', password: 'wrong password' });
    const cookie = await h.signIn();
    await h.request('GET', '/namespaces');
    await h.request('GET', '/namespaces', undefined, cookie);
    const audit = (await h.rows()).map((r) => [r.actor, r.category, r.action, r.status, r.outcome]);
    assert.deepEqual(audit, [
      ['anonymous@203.0.113.5', 'login', 'POST /auth/login', 401, 'denied'],
      ['admin@203.0.113.5', 'login', 'POST /auth/login', 200, 'success'],
    ], 'a request with no credential at all is summarised, not chained (anonymous-audit.test.ts)');
    await h.services.audit.flushAccess();
    const access = await h.services.db.selectFrom('access_log').select(['actor', 'action', 'status']).execute();
    assert.deepEqual(access, [{ actor: 'admin@203.0.113.5', action: 'GET /namespaces', status: 200 }]);
  });

  it('reports an untouched chain as intact', async () => {
    const h = await harness();
    const cookie = await h.signIn();
    for (let i = 0; i < 20; i++) await h.request('POST', '/auth/login', { username: 'admin', password: `wrong ${i}` });
    assert.deepEqual(await h.verify(cookie), { intact: true, rows_checked: 21 });
  });

  it('detects an edited row as a content edit at that row', async () => {
    const h = await harness();
    const cookie = await h.signIn();
    for (let i = 0; i < 5; i++) await h.request('POST', '/auth/login', { username: 'admin', password: `wrong ${i}` });
    await h.services.db.updateTable('audit_log').set({ actor: 'someone-else@10.0.0.1' }).where('id', '=', 3).execute();
    assert.deepEqual(await h.verify(cookie), { intact: false, rows_checked: 3, first_bad_row: 3, problem: 'content_edit' });
  });

  it('detects a deleted row as a linkage break at the row after it', async () => {
    const h = await harness();
    const cookie = await h.signIn();
    for (let i = 0; i < 5; i++) await h.request('POST', '/auth/login', { username: 'admin', password: `wrong ${i}` });
    await h.services.db.deleteFrom('audit_log').where('id', '=', 3).execute();
    assert.deepEqual(await h.verify(cookie), { intact: false, rows_checked: 3, first_bad_row: 4, problem: 'linkage_break' });
  });

  it('detects a row rewritten and re-hashed forward with plain SHA-256, as someone with the database but not the key could', async () => {
    const h = await harness();
    const cookie = await h.signIn();
    for (let i = 0; i < 5; i++) await h.request('POST', '/auth/login', { username: 'admin', password: `wrong ${i}` });
    let previous = '';
    for (const row of await h.rows()) {
      const forged = { ...row, actor: row.id === 3 ? 'someone-else@10.0.0.1' : row.actor, prev_hash: row.id > 3 ? previous : row.prev_hash };
      const hash = row.id >= 3 ? unkeyedHash(forged) : row.hash;
      await h.services.db.updateTable('audit_log').set({ actor: forged.actor, prev_hash: forged.prev_hash, hash }).where('id', '=', row.id).execute();
      previous = hash;
    }
    assert.deepEqual(await h.verify(cookie), { intact: false, rows_checked: 3, first_bad_row: 3, problem: 'content_edit' });
  });

  it('prunes rows past 365 days on insert and still verifies from the oldest surviving row', async () => {
    const h = await harness();
    for (let i = 0; i < 3; i++) await h.request('POST', '/auth/login', { username: 'admin', password: `wrong ${i}` });
    h.clock.advance(AUDIT_RETENTION_MS + 1000);
    const cookie = await h.signIn();
    assert.deepEqual((await h.rows()).map((r) => r.id), [4]);
    // The sign-in row anchors the chain; the verify request's own row is written after it answers.
    assert.deepEqual(await h.verify(cookie), { intact: true, rows_checked: 1 });
  });

  it('prunes access-log rows past 7 days on a later insert', async () => {
    const h = await harness();
    // A fresh session each time: a week-old one would have idled out (and its reads be denials).
    const read = async () => assert.equal((await h.request('GET', '/namespaces', undefined, await h.signIn())).status, 200);
    await read();
    h.clock.advance(ACCESS_RETENTION_MS - 60_000);
    await read();
    h.clock.advance(120_000);
    await read();
    await h.services.audit.flushAccess();
    const kept = await h.services.db.selectFrom('access_log').select('ts').orderBy('ts').execute();
    assert.equal(kept.length, 2, 'the first read is past 7 days; the two later ones stay');
  });

  it('keys the chain with the at-rest key: another key does not verify it', async () => {
    const h = await harness();
    await h.signIn();
    const other = new AuditLog(h.services.db, h.clock, auditChainKey(Buffer.alloc(32, 1)));
    assert.deepEqual(await other.verifyChain(), { intact: false, rows_checked: 1, first_bad_row: 1, problem: 'content_edit' });
  });

  it('re-keys a chain written before keying once, recording in the keyed chain whether the unkeyed one was intact', async () => {
    const key = auditChainKey(Buffer.alloc(32, 9));
    for (const tamper of [false, true]) {
      const { dir, clock } = await legacyDatabase(4, tamper);
      await assert.rejects(openDatabase(dir, clock), /encryption key/, 'unkeyed rows cannot be upgraded without the key');
      const db = await openDatabase(dir, clock, { auditChainKey: key });
      try {
        const log = new AuditLog(db, clock, key);
        assert.deepEqual(await log.verifyChain(), { intact: true, rows_checked: 5 });
        const marker = await db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
        assert.equal(marker.action, 'audit.chain.keyed');
        assert.deepEqual(
          JSON.parse(marker.detail),
          tamper ? { legacy_rows: '4', legacy_intact: 'false', legacy_first_bad_row: '2', legacy_problem: 'content_edit' } : { legacy_rows: '4', legacy_intact: 'true' },
        );
        await log.record({ actor: 'system@local', category: 'auth', action: 'test.next', outcome: 'success', severity: 'info', detail: {} });
        assert.deepEqual(await log.verifyChain(), { intact: true, rows_checked: 6 });
        assert.equal((await new AuditLog(db, clock, auditChainKey(Buffer.alloc(32, 1))).verifyChain()).intact, false);
      } finally {
        await db.destroy();
      }
    }
  });

  it('keeps verify-chain to signed-in admins, closed to API keys', async () => {
    const h = await harness();
    assert.equal((await h.request('GET', '/audit/verify-chain')).status, 401);
    const viewer = await h.request('POST', '/auth/login', { username: 'viewer', password: VIEWER_PASSWORD });
    const viewerCookie = (viewer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.equal((await h.request('GET', '/audit/verify-chain', undefined, viewerCookie)).status, 403);
    const route = routes.find((r) => r.path === '/audit/verify-chain');
    assert.deepEqual(route?.access, { auth: 'credential', role: 'admin', scope: null });
  });
});
