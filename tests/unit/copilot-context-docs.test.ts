// AI Context documents through the production middleware chain: admin-only writes, reads for
// anyone signed in, caps and unique titles with the field named, standing documents attached to
// every run, and `search_context` answering the model from the documents (redacted).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { AI_CONTEXT_LIMITS, type AiContextDoc } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { createAiContextStore } from '../../runtime/copilot/documents.ts';
import { emptyCluster, ManualClock, testServices } from '../support/services.ts';

const cluster: ClusterView = { ...emptyCluster, namespaces: () => [{ name: 'shop', phase: 'Active', createdAt: null, labels: {} }] };

const llm = fakeLlmForFile();

describe('AI Context documents', () => {
  it('admins write, everyone signed in reads, a key never writes', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    const viewer = await h.signIn('viewer');
    const created = await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'Payments runbook', body: '# Payments\nCheck the queue first.', include_in_ai: true } });
    assert.equal(created.status, 200, created.text);
    const doc = created.body as unknown as AiContextDoc;
    assert.equal(doc.updated_by, 'admin');
    assert.equal((await h.call('POST', '/admin/ai/context', { cookie: viewer, body: { title: 'x', body: 'y' } })).status, 403);
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'ai', scopes: ['ai:invoke'] } })).body.key);
    assert.equal((await h.call('DELETE', `/admin/ai/context/${doc.id}`, { key })).status, 403);
    const list = await h.call('GET', '/ai/context', { cookie: viewer });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual((list.body.items as { title: string; chars: number }[]).map((d) => [d.title, d.chars]), [['Payments runbook', 33]]);
    assert.deepEqual(list.body.limits, { ...AI_CONTEXT_LIMITS });
    assert.match(String(list.body.note), /not a filter/);
    assert.equal((await h.call('GET', `/ai/context/${doc.id}`, { key })).body.body, '# Payments\nCheck the queue first.');

    const updated = await h.call('PUT', `/admin/ai/context/${doc.id}`, { cookie: admin, body: { title: 'Payments', body: 'v2', include_in_ai: false } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.include_in_ai, false);
    assert.equal((await h.call('DELETE', `/admin/ai/context/${doc.id}`, { cookie: admin })).status, 200);
    assert.equal((await h.call('GET', `/ai/context/${doc.id}`, { cookie: admin })).status, 404);
    assert.equal((await h.call('DELETE', `/admin/ai/context/${doc.id}`, { cookie: admin })).status, 404);
  });

  it('refuses what breaks a cap or a unique title, naming the field, and keeps nothing of it', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    const bad: [unknown, string][] = [
      [{ title: '', body: 'x' }, 'title'],
      [{ title: 't'.repeat(AI_CONTEXT_LIMITS.max_title_chars + 1), body: 'x' }, 'title'],
      [{ title: 'ok', body: 'b'.repeat(AI_CONTEXT_LIMITS.max_body_chars + 1) }, 'body'],
      [{ title: 'ok' }, 'body'],
      [{ title: 'ok', body: 'x', include_in_ai: 'yes' }, 'include_in_ai'],
    ];
    for (const [body, field] of bad) {
      const res = await h.call('POST', '/admin/ai/context', { cookie: admin, body });
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.field, field);
    }
    assert.equal((await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'Runbook', body: 'a' } })).status, 200);
    const dup = await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'RUNBOOK', body: 'b' } });
    assert.equal(dup.status, 409, dup.text);
    assert.equal(dup.body.field, 'title');
    const other = (await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'Other', body: 'c' } })).body as unknown as AiContextDoc;
    assert.equal((await h.call('PUT', `/admin/ai/context/${other.id}`, { cookie: admin, body: { title: 'runbook', body: 'c' } })).status, 409);
    for (let i = 2; i < AI_CONTEXT_LIMITS.max_documents; i++) await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: `doc ${i}`, body: 'x' } });
    const full = await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'one too many', body: 'x' } });
    assert.equal(full.status, 400, full.text);
    assert.match(String(full.body.message), /at most 100 documents/);
    assert.equal(((await h.call('GET', '/ai/context', { cookie: admin })).body.items as unknown[]).length, AI_CONTEXT_LIMITS.max_documents);
  });

  it('the store refuses with the typed AppError (a taken title is conflict on title, a missing document not_found), no string verdicts', async () => {
    const s = await testServices();
    const store = createAiContextStore(s.db, new ManualClock());
    const made = await store.create({ title: 'Runbook', body: 'a', include_in_ai: false }, 'admin');
    assert.ok(made.ok);
    const second = await store.create({ title: 'runbook', body: 'b', include_in_ai: false }, 'admin');
    assert.deepEqual(second, { ok: false, error: { code: 'conflict', field: 'title', message: 'an AI Context document is already titled runbook' } });
    const other = await store.create({ title: 'Other', body: 'c', include_in_ai: false }, 'admin');
    assert.ok(other.ok);
    const clash = await store.update(other.value.id, { title: 'RUNBOOK', body: 'c', include_in_ai: false }, 'admin');
    assert.deepEqual(clash, { ok: false, error: { code: 'conflict', field: 'title', message: 'an AI Context document is already titled RUNBOOK' } });
    const missing = await store.update(9999, { title: 'Nowhere', body: 'x', include_in_ai: false }, 'admin');
    assert.deepEqual(missing, { ok: false, error: { code: 'not_found', message: 'no AI Context document 9999' } });
    const renamed = await store.update(other.value.id, { title: 'Renamed', body: 'd', include_in_ai: true }, 'admin');
    assert.ok(renamed.ok && renamed.value.title === 'Renamed' && renamed.value.include_in_ai);
  });

  it('updating a document that does not exist is 404 not_found', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    const res = await h.call('PUT', '/admin/ai/context/4242', { cookie: admin, body: { title: 'Nowhere', body: 'x' } });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error, 'not_found');
  });

  it('a standing document is sent with every run; search_context answers the model from the documents, redacted', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'House rules', body: 'Always mention the on-call rota.', include_in_ai: true } });
    await h.call('POST', '/admin/ai/context', { cookie: admin, body: { title: 'Payments runbook', body: 'If checkout fails, the broker password is password=hunter2-very-secret; restart the queue.' } });
    llm.requests.length = 0;
    llm.script({ toolCalls: [{ name: 'search_context', args: { query: 'checkout queue' } }] }, { text: 'Restart the queue, per the runbook.' });
    const res = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'checkout fails, what now?' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.tool_calls, 1);
    const [first, second] = llm.requests;
    assert.match(first?.raw ?? '', /Always mention the on-call rota/, 'the standing document is in the first request');
    assert.ok(!(first?.raw ?? '').includes('restart the queue'), 'a document not marked include-in-AI is only sent when searched');
    assert.match(second?.raw ?? '', /restart the queue/, 'the search result reaches the model');
    assert.ok(!(second?.raw ?? '').includes('hunter2-very-secret'), 'and is redacted on the way');
  });
});
