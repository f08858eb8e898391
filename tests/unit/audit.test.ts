import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCESS_RETENTION_MS, AUDIT_RETENTION_MS } from '../../runtime/audit/audit-log.ts';
import { createApp } from '../../runtime/http/app.ts';
import { silentLogger } from '../../runtime/log.ts';
import { routes } from '../../runtime/routes.ts';
import { ADMIN_PASSWORD, ManualClock, testServices, VIEWER_PASSWORD } from '../support/services.ts';

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
      ['anonymous@203.0.113.5', 'http', 'GET /namespaces', 401, 'denied'],
    ]);
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
    for (let i = 0; i < 5; i++) await h.request('GET', '/namespaces');
    await h.services.db.updateTable('audit_log').set({ actor: 'someone-else@10.0.0.1' }).where('id', '=', 3).execute();
    assert.deepEqual(await h.verify(cookie), { intact: false, rows_checked: 3, first_bad_row: 3, problem: 'content_edit' });
  });

  it('detects a deleted row as a linkage break at the row after it', async () => {
    const h = await harness();
    const cookie = await h.signIn();
    for (let i = 0; i < 5; i++) await h.request('GET', '/namespaces');
    await h.services.db.deleteFrom('audit_log').where('id', '=', 3).execute();
    assert.deepEqual(await h.verify(cookie), { intact: false, rows_checked: 3, first_bad_row: 4, problem: 'linkage_break' });
  });

  it('prunes rows past 365 days on insert and still verifies from the oldest surviving row', async () => {
    const h = await harness();
    for (let i = 0; i < 3; i++) await h.request('GET', '/namespaces');
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
