// Conversations read again by their owner only, the prompt audit for admins (redacted), and the
// "test connection" action against the fake provider: success, a provider error, and settings
// that forbid sending anything.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { DEFAULT_GUARDRAILS, type Conversation, type PromptLogEntry } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { emptyCluster } from '../support/services.ts';

const cluster: ClusterView = { ...emptyCluster, namespaces: () => [{ name: 'shop', phase: 'Active', createdAt: null, labels: {} }] };

const llm = fakeLlmForFile();

describe('copilot transcripts, prompt audit and test connection', () => {
  it('a conversation is read back whole by its owner, and by nobody else', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const viewer = await h.signIn('viewer');
    const first = await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: 'What is wrong in shop?', focus: 'namespace:shop' } });
    const id = String(first.body.conversation_id);
    await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: 'And now?', conversation_id: id } });
    const list = await h.call('GET', '/copilot/conversations', { cookie: viewer });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual((list.body.items as { id: string; title: string; turns: number }[]).map((c) => [c.id, c.title, c.turns]), [[id, 'What is wrong in shop?', 4]]);
    const whole = await h.call('GET', `/copilot/conversations/${id}`, { cookie: viewer });
    assert.equal(whole.status, 200, whole.text);
    const c = whole.body as unknown as Conversation;
    assert.deepEqual(c.messages.map((m) => [m.role, m.source]), [['user', 'user'], ['assistant', 'diagnosis_without_model'], ['user', 'user'], ['assistant', 'diagnosis_without_model']]);
    const admin = await h.signIn('admin');
    assert.equal((await h.call('GET', `/copilot/conversations/${id}`, { cookie: admin })).status, 404, "another user's conversation is absent, even to an admin");
    assert.deepEqual((await h.call('GET', '/copilot/conversations', { cookie: admin })).body.items, []);
  });

  it('the prompt audit keeps what a run sent and received, redacted, for admins only', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.script({ text: 'Rotate it.' });
    const res = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'is password=hunter2-very-secret still used?' } });
    assert.equal(res.status, 200, res.text);
    const log = await h.call('GET', '/admin/ai/prompt-log', { cookie: admin });
    assert.equal(log.status, 200, log.text);
    const items = log.body.items as PromptLogEntry[];
    assert.equal(items.length, 1);
    const entry = items.at(0);
    assert.ok(entry);
    assert.equal(entry.kind, 'chat');
    assert.equal(entry.received, 'Rotate it.');
    assert.match(entry.sent, /still used\?/);
    assert.ok(!entry.sent.includes('hunter2-very-secret'));
    assert.equal(log.body.retention_days, 30);
    assert.equal((await h.call('GET', '/admin/ai/prompt-log', { cookie: await h.signIn('viewer') })).status, 403);
    assert.deepEqual((await h.call('GET', `/admin/ai/prompt-log?before=${entry.id}`, { cookie: admin })).body.items, [], 'nothing older than the only entry');
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, prompt_audit: { enabled: false, retention_days: 30 } } });
    llm.script({ text: 'Not kept.' });
    await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'again' } });
    assert.equal(((await h.call('GET', '/admin/ai/prompt-log', { cookie: admin })).body.items as unknown[]).length, 1, 'prompt audit off: nothing more kept');
  });

  it('test connection: ok through the provider, its error when it fails, and nothing sent when the settings forbid it', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    const none = await h.call('POST', '/admin/ai/test-connection', { cookie: admin, body: {} });
    assert.equal(none.status, 200, none.text);
    assert.deepEqual(none.body, { ok: false, model: null, latency_ms: null, error: 'no AI provider is configured' });
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai', model: 'fake', base_url: `${llm.url}/v1`, api_key: 'sk-stored-key-for-test' } });
    llm.requests.length = 0;
    llm.script({ text: 'OK' });
    const good = await h.call('POST', '/admin/ai/test-connection', { cookie: admin, body: {} });
    assert.equal(good.body.ok, true, good.text);
    assert.equal(good.body.model, 'openai/fake');
    assert.equal(llm.requests[0]?.headers.authorization, 'Bearer sk-stored-key-for-test');
    llm.script({ failWith: 401 });
    const bad = await h.call('POST', '/admin/ai/test-connection', { cookie: admin, body: {} });
    assert.equal(bad.body.ok, false);
    assert.match(String(bad.body.error), /401|scripted/);
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, egress_allowlist: ['api.openai.com'] } });
    llm.requests.length = 0;
    const blocked = await h.call('POST', '/admin/ai/test-connection', { cookie: admin, body: {} });
    assert.equal(blocked.body.ok, false);
    assert.equal(llm.requests.length, 0, 'nothing is sent to a host the allowlist does not name');
    assert.equal((await h.call('POST', '/admin/ai/test-connection', { cookie: await h.signIn('viewer'), body: {} })).status, 403);
  });
});
