// POST /copilot/chat through the production middleware chain, against the fake provider: the
// answer without a model, a streamed answer with a model, the master switch, the Free daily
// limit, the per-session rate limit, and a per-request key that is used and never kept.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ClusterView, NamespaceObject } from '../../domain/cluster/model.ts';
import { WITHOUT_MODEL_LABEL } from '../../domain/copilot/explain.ts';
import * as v from 'valibot';
import { CopilotStreamEvent, DEFAULT_GUARDRAILS } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { emptyCluster } from '../support/services.ts';

const REQUEST_KEY = 'sk-request-only-9f8e7d6c5b4a3210';
const ns = (name: string): NamespaceObject => ({ name, phase: 'Active', createdAt: null, labels: {} });
const cluster: ClusterView = { ...emptyCluster, namespaces: () => [ns('shop')] };

const llm = fakeLlmForFile();

function files(dir: string): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((path) => (statSync(path).isDirectory() ? files(path) : readFileSync(path).toString('latin1')))
    .join('');
}

/** The events of a Server-Sent Events body, in order. */
function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>;
      return { event, data };
    });
}

describe('copilot chat', () => {
  it('with no provider, answers what is wrong from the diagnosis, labelled as produced without a model', async () => {
    const h = await testApp({ cluster });
    const res = await h.call('POST', '/copilot/chat', { cookie: await h.signIn('viewer'), body: { question: 'What is wrong?' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.source, 'diagnosis_without_model');
    assert.ok(String(res.body.answer).startsWith(WITHOUT_MODEL_LABEL));
    assert.match(String(res.body.answer), /no AI provider is configured/);
    assert.equal(typeof res.body.conversation_id, 'string');
    assert.equal(llm.requests.length, 0);
  });

  it('with a provider, streams tool steps and text, then the answer with checked citations', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.requests.length = 0;
    llm.script({ toolCalls: [{ name: 'list_namespaces', args: {} }] }, { text: 'Namespace [namespace:shop] is fine; [pod:shop/ghost] is not something I saw.' });
    const res = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'How is shop?', focus: 'namespace:shop' }, headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const seen = events(res.text);
    const kinds = seen.map((e) => e.event);
    // Every message is the documented event (the dashboard's types come from that schema), named by its type.
    for (const e of seen) {
      assert.ok(v.is(CopilotStreamEvent, e.data), JSON.stringify(e.data));
      assert.equal(e.data.type, e.event);
    }
    assert.ok(kinds.includes('tool-call') && kinds.includes('tool-result') && kinds.includes('text'), kinds.join(','));
    const done = seen.at(-1);
    assert.ok(done);
    assert.equal(done.event, 'done');
    assert.equal(done.data.source, 'model');
    assert.deepEqual(done.data.citations, [
      { id: 'namespace:shop', verified: true, link: '/namespaces/shop' },
      { id: 'pod:shop/ghost', verified: false, link: null },
    ]);
    // The conversation continues with its history sent again.
    llm.script({ text: 'Still fine.' });
    const next = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'And now?', conversation_id: done.data.conversation_id } });
    assert.equal(next.status, 200, next.text);
    assert.match(llm.requests.at(-1)?.raw ?? '', /How is shop\?/);
  });

  it('master switch off: 403 ai_disabled, while MCP read tools still answer', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, enabled: false } });
    const res = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'hello' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error, 'ai_disabled');
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'mcp', scopes: ['mcp:read'] } })).body.key);
    assert.equal((await h.call('POST', '/mcp/tools/call', { key, body: { name: 'list_namespaces', arguments: {} } })).status, 200);
  });

  it('Free tier: the 16th prompt of the day is 402 with the feature and an upgrade hint', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const viewer = await h.signIn('viewer');
    for (let i = 1; i <= 15; i++) assert.equal((await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: `q${i}` } })).status, 200, `prompt ${i}`);
    const refused = await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: 'q16' } });
    assert.equal(refused.status, 402);
    assert.equal(refused.body.error, 'ai_limit_reached');
    assert.equal(refused.body.feature, 'copilot');
    assert.match(String(refused.body.upgrade), /license/);
    // The next UTC day starts afresh (signed in again: the session idled out overnight).
    h.clock.advance(24 * 3600 * 1000);
    assert.equal((await h.call('POST', '/copilot/chat', { cookie: await h.signIn('viewer'), body: { question: 'tomorrow' } })).status, 200);
  });

  it('security.aiRateLimitPerMin: the 11th AI request in a minute from one session is 429', async () => {
    const h = await testApp({ cluster });
    const viewer = await h.signIn('viewer');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: `q${i}` } })).status);
    assert.deepEqual(statuses, [...Array<number>(10).fill(200), 429]);
  });

  it('a per-request provider key reaches the provider and is never stored or audited', async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.requests.length = 0;
    llm.script({ text: 'ok' });
    const res = await h.call('POST', '/copilot/chat', { cookie: admin, body: { question: 'hi', provider_key: REQUEST_KEY } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.source, 'model');
    assert.equal(llm.requests[0]?.headers.authorization, `Bearer ${REQUEST_KEY}`);
    await h.services.audit.flushAccess();
    const audit = await h.call('GET', '/admin/audit/events?page_size=100', { cookie: admin });
    assert.match(audit.text, /copilot\/chat/);
    assert.ok(!audit.text.includes(REQUEST_KEY));
    h.services.stop();
    assert.ok(!files(h.services.dataDir).includes(REQUEST_KEY), 'no file under the data dir holds the key');
  });

  it('refuses bad input, naming the field', async () => {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('admin');
    const cases: [unknown, string][] = [
      [{}, 'question'],
      [{ question: '   ' }, 'question'],
      [{ question: 'x'.repeat(4001) }, 'question'],
      [{ question: 'x', focus: 'not an id' }, 'focus'],
      [{ question: 'x', focus: 'widget:shop/a' }, 'focus'],
      [{ question: 'x', conversation_id: '../../etc' }, 'conversation_id'],
    ];
    for (const [body, field] of cases) {
      const res = await h.call('POST', '/copilot/chat', { cookie, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.field, field, JSON.stringify(body));
    }
    assert.equal((await h.call('POST', '/copilot/chat', { cookie, body: { question: 'x', conversation_id: 'abcdefghijkl' } })).status, 404);
  });
});
