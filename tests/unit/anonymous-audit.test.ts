// Issue 11 item 4: requests with no credential at all cost the 365-day chained audit log
// nothing per request. They are limited per address before authentication, counted, and
// summarised in at most one chained row per address per minute; forged credentials still
// go to the chain one by one and feed auth_flood. Stored detail is capped in size.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DETAIL_CHARS, MAX_DETAIL_VALUE_CHARS } from '../../runtime/audit/detail-cap.ts';
import { SUMMARY_INTERVAL_MS } from '../../runtime/audit/unauthenticated-summary.ts';
import { DEFAULT_ANONYMOUS_PER_MIN } from '../../runtime/http/middleware/anonymous-limit.ts';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

const chained = async (h: Awaited<ReturnType<typeof testApp>>) => h.services.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
const bytesOf = (rows: { actor: string; action: string; detail: string }[]) => rows.reduce((n, r) => n + r.actor.length + r.action.length + r.detail.length, 0);

describe('anonymous requests and the audit log', () => {
  it('writes no chained row per anonymous 401, and at most one summary row per address per minute', async () => {
    const h = await testApp();
    const longQuery = `namespace=${'q'.repeat(10_000)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await h.call('GET', `/api/agent/namespaces?${longQuery}&n=${i}`)).status);
    assert.equal(statuses.filter((s) => s === 401).length, DEFAULT_ANONYMOUS_PER_MIN);
    assert.equal(statuses.filter((s) => s === 429).length, 200 - DEFAULT_ANONYMOUS_PER_MIN);
    const rows = await chained(h);
    assert.ok(rows.length <= 1, `200 anonymous requests wrote ${rows.length} chained rows`);
    assert.ok(bytesOf(rows) <= 2048, `and ${bytesOf(rows)} bytes`);

    // The minute passes (no sleeping: the audit clock is the test's): the pending count is written once.
    h.clock.advance(SUMMARY_INTERVAL_MS);
    await h.services.unauthenticatedSummary.flush();
    const after = await chained(h);
    const summaries = after.filter((r) => r.action === 'auth.unauthenticated_summary');
    assert.equal(summaries.length, 1, JSON.stringify(after.map((r) => r.action)));
    const summary = summaries.at(0);
    assert.equal(summary?.actor, 'anonymous@192.0.2.10');
    const detail = JSON.parse(summary.detail) as Record<string, string>;
    assert.equal(detail.requests, '200');
    assert.equal(detail.rate_limited, String(200 - DEFAULT_ANONYMOUS_PER_MIN));
    assert.match(detail.summary ?? '', /^200 unauthenticated requests from 192\.0\.2\.10/);
    assert.ok(bytesOf(after) <= 4096, `${bytesOf(after)} bytes in all`);
    await h.services.unauthenticatedSummary.flush();
    assert.equal((await chained(h)).length, after.length, 'nothing new: nothing is written twice');
    const verify = await h.services.audit.verifyChain();
    assert.equal(verify.intact, true);
  });

  it('answers 429 rate_limited with Retry-After past the allowance, per address, before authentication', async () => {
    const h = await testApp();
    for (let i = 0; i < DEFAULT_ANONYMOUS_PER_MIN; i++) assert.equal((await h.call('GET', '/api/agent/me')).status, 401);
    const limited = await h.call('GET', '/api/agent/me');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await h.call('GET', '/api/agent/me', { ip: '192.0.2.11' })).status, 401, 'another address has its own allowance');
    const cookie = (await h.login('admin', ADMIN_PASSWORD, { ip: '192.0.2.12' })).cookie;
    assert.equal((await h.call('GET', '/api/agent/me', { cookie })).status, 200, 'a signed-in user at that address is not anonymous');
    h.clock.advance(60_000);
    assert.equal((await h.call('GET', '/api/agent/me')).status, 401, 'the allowance refills with the clock');
  });

  it('still chains forged credentials one by one and counts them toward auth_flood', async () => {
    const h = await testApp();
    for (let i = 0; i < 5; i++) assert.equal((await h.call('GET', '/api/agent/namespaces', { key: 'capstan_nope' })).status, 401);
    const rows = await chained(h);
    assert.equal(rows.filter((r) => r.action === 'GET /namespaces' && r.status === 401).length, 5);
    for (let i = 0; i < 15; i++) await h.call('GET', '/api/agent/namespaces', { key: 'capstan_nope' });
    assert.equal((await h.call('GET', '/api/agent/namespaces')).status, 403, 'the 20 forged keys banned the address');
  });

  it('keeps a failed sign-in in the chain (a wrong password is not a missing credential)', async () => {
    const h = await testApp();
    assert.equal((await h.login('admin', 'wrong password')).status, 401);
    const rows = await chained(h);
    assert.deepEqual(rows.map((r) => [r.actor, r.action, r.status]), [['anonymous@192.0.2.10', 'POST /auth/login', 401]]);
  });

  it('caps each stored detail value and the whole detail, saying what was cut', async () => {
    const h = await testApp();
    const huge = 'a'.repeat(200_000);
    await h.call('GET', `/api/agent/namespaces?namespace=${huge}`, { key: 'capstan_nope' });
    const [row] = await chained(h);
    const detail = JSON.parse(row?.detail ?? '{}') as Record<string, string>;
    assert.ok((detail.query ?? '').length <= MAX_DETAIL_VALUE_CHARS, `query kept ${detail.query?.length} chars`);
    assert.match(detail.query ?? '', /…\[truncated \d+ chars\]$/);
    assert.equal(detail.path, '/api/agent/namespaces');

    const many: Record<string, string> = {};
    for (let i = 0; i < 100; i++) many[`field_${String(i).padStart(3, '0')}`] = 'b'.repeat(MAX_DETAIL_VALUE_CHARS);
    await h.services.audit.append({ actor: 'system', category: 'auth', action: 'test.big', status: null, outcome: 'success', severity: 'info', namespace: null, detail: many });
    const big = (await chained(h)).at(-1);
    assert.ok((big?.detail.length ?? 0) <= MAX_DETAIL_CHARS + 512, `stored ${big?.detail.length} chars`);
    const kept = JSON.parse(big?.detail ?? '{}') as Record<string, string>;
    assert.equal(kept.field_000, 'b'.repeat(MAX_DETAIL_VALUE_CHARS), 'what fits is kept whole');
    assert.match(kept.truncated ?? '', /^\d+ fields dropped/);
  });
});

describe('API key requests in the audit log', () => {
  const mint = async (h: Awaited<ReturnType<typeof testApp>>, scopes: string[]) => {
    const cookie = await h.signIn('admin');
    const res = await h.call('POST', '/api/agent/me/api-keys', { cookie, body: { name: 'scoped', scopes } });
    assert.equal(res.status, 200, res.text);
    return { key: String(res.body.key), id: (res.body.api_key as { id: number }).id };
  };

  it('records a key refused for scope, or on a key-forbidden route, as <owner>@<ip>', async () => {
    const h = await testApp();
    const { key } = await mint(h, ['metrics:read']);
    assert.equal((await h.call('GET', '/api/agent/namespaces', { key, ip: '198.51.100.7' })).status, 403);
    assert.equal((await h.call('GET', '/api/agent/me/api-keys', { key, ip: '198.51.100.7' })).status, 403);
    const rows = (await chained(h)).filter((r) => r.status === 403);
    assert.deepEqual(rows.map((r) => [r.actor, r.action]), [
      ['admin@198.51.100.7', 'GET /namespaces'],
      ['admin@198.51.100.7', 'GET /me/api-keys'],
    ]);
  });

  it("stores the refused key's id in the row (needs the redactor to keep api_key_id)", async () => {
    const h = await testApp();
    const { key, id } = await mint(h, ['metrics:read']);
    assert.equal((await h.call('GET', '/api/agent/namespaces', { key })).status, 403);
    const row = (await chained(h)).find((r) => r.status === 403);
    assert.equal((JSON.parse(row?.detail ?? '{}') as Record<string, string>).api_key_id, String(id));
  });
});
