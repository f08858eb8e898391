import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';

type Event = { id: number; actor: string; category: string; severity: string; action: string; outcome: string; namespace: string | null; detail: Record<string, string> };

async function withHistory() {
  const h = await testApp();
  const admin = await h.signIn();
  await h.call('POST', '/auth/login', { body: { username: 'mallory', password: 'guess' }, ip: '198.51.100.9' });
  await h.call('GET', '/namespaces?namespace=payments&token=s3cr3t-query-token', { cookie: 'forged.cookie', ip: '198.51.100.9' });
  await h.call('POST', '/admin/users', { cookie: admin, body: { username: 'ops', password: 'ops password 1', role: 'viewer' } });
  h.clock.advance(10 * 60_000);
  await h.call('POST', '/activity/retention', { cookie: admin, body: { retention_days: 3 } });
  const events = async (query = '') => {
    const res = await h.call('GET', `/admin/audit/events${query}`, { cookie: admin });
    assert.equal(res.status, 200, res.text);
    return res.body as { events: Event[]; next_cursor: number | null };
  };
  return { ...h, admin, events };
}

describe('audit timeline', () => {
  it('files requests under the spec categories, newest first, with failed sign-ins naming the username tried', async () => {
    const h = await withHistory();
    const { events } = await h.events();
    assert.deepEqual(
      events.map((e) => [e.category, e.action, e.outcome]),
      [
        ['write', 'POST /activity/retention', 'success'],
        ['auth', 'POST /admin/users', 'success'],
        ['http', 'GET /namespaces', 'denied'],
        ['login', 'POST /auth/login', 'denied'],
        ['login', 'POST /auth/login', 'success'],
      ],
    );
    const failed = events[3];
    assert.equal(failed?.actor, 'anonymous@198.51.100.9');
    assert.equal(failed.detail.username, 'mallory');
    assert.equal(failed.severity, 'warning');
    assert.equal(events[2]?.namespace, 'payments', 'namespace comes from the request');
  });

  it('redacts secrets in what it stores and again in what it returns', async () => {
    const h = await withHistory();
    const stored = await h.services.db.selectFrom('audit_log').select('detail').execute();
    assert.ok(!stored.some((r) => r.detail.includes('s3cr3t-query-token')), 'redacted at write time');
    await h.services.db.updateTable('audit_log').set({ detail: JSON.stringify({ note: 'password=hunter2-planted' }) }).where('id', '=', 1).execute();
    const read = await h.call('GET', '/admin/audit/events/1', { cookie: h.admin });
    assert.doesNotMatch(read.text, /hunter2-planted/, 'redacted again on read');
  });

  it('filters by category, severity, actor, namespace, action prefix, outcome, time range and free text', async () => {
    const h = await withHistory();
    // Reading the timeline is itself audited; those rows are left out here.
    const actions = async (query: string) => (await h.events(query)).events.map((e) => e.action).filter((a) => !a.startsWith('GET /admin/audit'));
    assert.deepEqual(await actions('?category=login&category=auth'), ['POST /admin/users', 'POST /auth/login', 'POST /auth/login']);
    assert.deepEqual(await actions('?category=write,http'), ['POST /activity/retention', 'GET /namespaces']);
    assert.deepEqual(await actions('?severity=warning'), ['GET /namespaces', 'POST /auth/login']);
    assert.deepEqual(await actions('?actor=admin'), ['POST /activity/retention', 'POST /admin/users', 'POST /auth/login']);
    assert.deepEqual(await actions('?actor=anonymous@198.51.100.9&outcome=denied'), ['GET /namespaces', 'POST /auth/login']);
    assert.deepEqual(await actions('?namespace=payments'), ['GET /namespaces']);
    assert.deepEqual(await actions('?action=POST%20/admin'), ['POST /admin/users']);
    assert.deepEqual(await actions('?q=mallory'), ['POST /auth/login']);
    assert.deepEqual(await actions('?q=100%25'), [], 'LIKE wildcards in the text are literal');
    const cut = new Date(h.clock.now().getTime() - 5 * 60_000).toISOString();
    assert.deepEqual(await actions(`?from=${cut}`), ['POST /activity/retention']);
    assert.equal((await h.events(`?to=${cut}`)).events.length, 4);
    for (const [query, field] of [['?category=bogus', 'category.0'], ['?severity=loud', 'severity.0'], ['?from=yesterday', 'from'], ['?limit=0', 'limit'], ['?category=access', 'category']] as const) {
      const res = await h.call('GET', `/admin/audit/events${query}`, { cookie: h.admin });
      assert.deepEqual([res.status, res.body.field], [400, field], query);
    }
  });

  it('pages with a keyset cursor that neither skips nor repeats rows while new rows arrive', async () => {
    const h = await withHistory();
    const first = await h.events('?limit=2');
    assert.equal(first.events.length, 2);
    assert.ok(first.next_cursor !== null);
    await h.call('POST', '/activity/retention', { cookie: h.admin, body: { retention_days: 4 } });
    const second = await h.events(`?limit=2&cursor=${String(first.next_cursor)}`);
    const third = await h.events(`?limit=2&cursor=${String(second.next_cursor)}`);
    const ids = [...first.events, ...second.events, ...third.events].map((e) => e.id);
    assert.deepEqual(ids, [5, 4, 3, 2, 1]);
    assert.equal(third.next_cursor, null);
  });

  it("returns one event with the same actor's events within five minutes", async () => {
    const h = await withHistory();
    const { events } = await h.events('?action=POST%20/admin/users');
    const target = events[0];
    assert.ok(target);
    const res = await h.call('GET', `/admin/audit/events/${target.id}`, { cookie: h.admin });
    const body = res.body as { event: Event; siblings: Event[] };
    assert.equal(body.event.id, target.id);
    assert.deepEqual(body.siblings.map((e) => e.action), ['POST /auth/login'], 'the sign-in just before; not the write 10 minutes later');
    assert.equal((await h.call('GET', '/admin/audit/events/999', { cookie: h.admin })).status, 404);
  });

  it('exports JSON with its filters and CSV with the count headers and a truncation banner', async () => {
    const h = await withHistory();
    const csv = await h.call('GET', '/admin/audit/export?format=csv&limit=2', { cookie: h.admin });
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.deepEqual([csv.headers.get('x-total-matched'), csv.headers.get('x-truncated')], ['5', 'true']);
    const lines = csv.text.trimEnd().split('\r\n');
    assert.match(lines[0] ?? '', /^TRUNCATED: 2 of 5/);
    assert.equal(lines[1], 'id,ts,actor,category,severity,action,status,outcome,namespace,detail,source');
    assert.equal(lines.length, 4);

    const json = await h.call('GET', '/admin/audit/export?category=login', { cookie: h.admin });
    assert.equal(json.status, 200);
    assert.deepEqual(json.body.filters, { category: ['login'] });
    assert.equal(json.body.total_matched, 2);
    assert.equal(json.headers.get('x-total-matched'), '2');
    assert.equal(json.headers.get('x-truncated'), 'false');
    assert.equal(json.headers.get('x-generated-at'), h.clock.now().toISOString());
  });

  it('exports the access log only when asked for category=access', async () => {
    const h = await withHistory();
    await h.call('GET', '/namespaces', { cookie: h.admin });
    const res = await h.call('GET', '/admin/audit/export?category=access', { cookie: h.admin });
    assert.deepEqual((res.body.events as Event[]).map((e) => [e.category, e.action]), [['access', 'GET /namespaces']]);
    const mixed = await h.call('GET', '/admin/audit/export?category=access&category=login', { cookie: h.admin });
    assert.deepEqual([mixed.status, mixed.body.field], [400, 'category']);
  });

  it('purges by keep-last-N or age, records it before and after, and the chain still verifies', async () => {
    const h = await withHistory();
    const purge = await h.call('POST', '/admin/audit/purge', { cookie: h.admin, body: { keep_last: 2 } });
    assert.deepEqual(purge.body, { deleted: 4 }, 'the five rows plus the purge-requested row, minus the last two');
    const actions = (await h.events()).events.map((e) => e.action);
    assert.deepEqual(actions, ['POST /admin/audit/purge', 'audit.purge.completed', 'audit.purge.requested', 'POST /activity/retention']);
    assert.deepEqual((await h.call('GET', '/audit/verify-chain', { cookie: h.admin })).body.intact, true);
    const both = await h.call('POST', '/admin/audit/purge', { cookie: h.admin, body: { keep_last: 1, older_than_days: 3 } });
    assert.equal(both.status, 400);
    h.clock.advance(2 * 24 * 3600_000);
    const byAge = await h.call('POST', '/admin/audit/purge', { cookie: await h.signIn(), body: { older_than_days: 1 } });
    assert.equal(byAge.body.deleted, 7, 'every row from two days ago; the new sign-in and the purge-requested row stay');
    assert.deepEqual((await h.call('GET', '/audit/verify-chain', { cookie: await h.signIn() })).body.intact, true);
  });

  it('purging with keep_last 0 keeps its own record, and ids never restart', async () => {
    const h = await withHistory();
    const issued = async () => (await h.services.db.selectFrom('audit_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    const highestBefore = await issued();
    const purge = await h.call('POST', '/admin/audit/purge', { cookie: h.admin, body: { keep_last: 0 } });
    assert.equal(purge.status, 200, purge.text);
    const left = await h.services.db.selectFrom('audit_log').select(['id', 'action', 'detail']).orderBy('id').execute();
    const requested = left.find((r) => r.action === 'audit.purge.requested');
    assert.ok(requested, `the purge's own request survives it: ${JSON.stringify(left)}`);
    assert.deepEqual(JSON.parse(requested.detail), { keep_last: '0' });
    assert.ok(left.some((r) => r.action === 'audit.purge.completed'));
    // Every id ever issued (including the deleted ones the webhook already forwarded) stays taken.
    assert.ok(left.every((r) => r.id > highestBefore), JSON.stringify(left));
    await h.call('POST', '/activity/retention', { cookie: h.admin, body: { retention_days: 5 } });
    assert.ok((await issued()) > Math.max(highestBefore, ...left.map((r) => r.id)));
    assert.equal((await h.call('GET', '/audit/verify-chain', { cookie: h.admin })).body.intact, true);
  });

  it('never reuses an id after every row was deleted', async () => {
    const h = await withHistory();
    const highest = (await h.services.db.selectFrom('audit_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id;
    // Every row aged out at once (the agent was down a year): the table is empty before the next insert.
    await h.services.db.deleteFrom('audit_log').execute();
    await h.services.audit.record({ actor: 'system@local', category: 'auth', action: 'test.after_empty', outcome: 'success', severity: 'info', detail: {} });
    const next = await h.services.db.selectFrom('audit_log').select('id').executeTakeFirstOrThrow();
    assert.ok(next.id > highest, `id ${next.id} after ${highest}`);
  });

  it('is closed to viewers and to API keys of any scope', async () => {
    const h = await withHistory();
    assert.equal((await h.call('GET', '/admin/audit/events', { cookie: await h.signIn('viewer') })).status, 403);
    const key = String((await h.call('POST', '/me/api-keys', { cookie: h.admin, body: { name: 'k', scopes: ['activity:read'] } })).body.key);
    assert.equal((await h.call('GET', '/admin/audit/export', { key })).body.error, 'api_key_forbidden');
  });
});

describe('the unified timeline: the terminal session audit and command record beside the general log', () => {
  async function withTerminal() {
    const h = await withHistory();
    const at = (minutesAgo: number) => h.clock.now().getTime() - minutesAgo * 60_000;
    const admin = await h.services.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
    await h.services.db
      .insertInto('terminal_sessions')
      .values([
        { id: 's-open', user_id: admin.id, username: 'admin', role: 'admin', namespace: 'shop', client_ip: '203.0.113.5', started_at: at(8), ended_at: null, end_reason: null },
        { id: 's-done', user_id: admin.id, username: 'admin', role: 'admin', namespace: 'payments', client_ip: '203.0.113.5', started_at: at(9), ended_at: at(1), end_reason: 'closed' },
      ])
      .execute();
    await h.services.db
      .insertInto('terminal_commands')
      .values([
        { session_id: 's-done', user_id: admin.id, username: 'admin', namespace: 'payments', at: at(7), command: 'kubectl get pods' },
        { session_id: 's-open', user_id: admin.id, username: 'admin', namespace: 'shop', at: at(3), command: 'curl -u alice:[REDACTED] http://shop' },
      ])
      .execute();
    return h;
  }
  type Merged = Event & { source: string; ts: string };
  const view = (events: Event[]) => (events as Merged[]).filter((e) => !e.action.startsWith('GET /admin/audit')).map((e) => `${e.source} ${e.action}`);

  it('merges them newest first, under category terminal, with the account, address and namespace of the session', async () => {
    const h = await withTerminal();
    const { events } = await h.events();
    assert.deepEqual(view(events), [
      'audit_log POST /activity/retention',
      'terminal_session terminal_session_end',
      'terminal_command terminal_command',
      'terminal_command terminal_command',
      'audit_log POST /admin/users',
      'audit_log GET /namespaces',
      'audit_log POST /auth/login',
      'audit_log POST /auth/login',
    ]);
    const command = (events as Merged[]).find((e) => e.source === 'terminal_command' && e.namespace === 'shop');
    assert.deepEqual([command?.category, command?.actor, command?.detail.command, command?.detail.terminal], ['terminal', 'admin@203.0.113.5', 'curl -u alice:[REDACTED] http://shop', 's-open']);
    assert.equal((events as Merged[]).find((e) => e.source === 'terminal_session')?.detail.reason, 'closed');
  });

  it('filters them like the general log: category, namespace, actor, action, text, severity, outcome', async () => {
    const h = await withTerminal();
    const actions = async (query: string) => view((await h.events(query)).events);
    assert.deepEqual(await actions('?category=terminal'), ['terminal_session terminal_session_end', 'terminal_command terminal_command', 'terminal_command terminal_command']);
    assert.deepEqual(await actions('?category=terminal&namespace=payments'), ['terminal_session terminal_session_end', 'terminal_command terminal_command']);
    assert.deepEqual(await actions('?q=kubectl'), ['terminal_command terminal_command']);
    assert.deepEqual(await actions('?action=terminal_session'), ['terminal_session terminal_session_end']);
    assert.deepEqual(await actions('?actor=admin@203.0.113.9&category=terminal'), []);
    assert.deepEqual(await actions('?category=terminal&severity=warning'), []);
    assert.deepEqual(await actions('?category=terminal&outcome=denied'), []);
    assert.deepEqual(await actions('?category=write'), ['audit_log POST /activity/retention']);
  });

  it('pages across sources without skipping or repeating, and exports and counts them', async () => {
    const h = await withTerminal();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await h.events(`?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`)) as unknown as { events: Merged[]; next_cursor: string | null };
      seen.push(...page.events.filter((e) => !e.action.startsWith('GET /admin/audit')).map((e) => `${e.source}#${String(e.id)}`));
      cursor = page.next_cursor;
    } while (cursor !== null);
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    // Each page read is itself audited (newer than every row paged through): left out of both.
    const whole = ((await h.events('?limit=500')).events as Merged[]).filter((e) => !e.action.startsWith('GET /admin/audit')).map((e) => `${e.source}#${String(e.id)}`);
    assert.deepEqual(seen, whole);
    assert.equal(whole.length, 8);
    const exported = await h.call('GET', '/admin/audit/export?format=json&category=terminal', { cookie: h.admin });
    assert.equal((exported.body as { total_matched: number }).total_matched, 3);
  });
});
