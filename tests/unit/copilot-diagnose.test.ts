// Diagnose on a namespace and the stored answers, through the production middleware chain:
// without a model (templated, labelled, cited), through the fake provider, kept and read again
// by anyone who may see the namespace, and refused for what the caller or the AI scope hides.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { WITHOUT_MODEL_LABEL } from '../../domain/copilot/explain.ts';
import { DEFAULT_GUARDRAILS, type StoredAnswer, type StoredAnswerSummary } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { draft, pod } from '../support/diagnosis.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { emptyCluster } from '../support/services.ts';

const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'blog', 'lab'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  pods: () => [pod('shop', 'api'), pod('blog', 'db'), pod('lab', 'x')],
};
const crashing = { name: 'hand', reads: [], analyze: () => [draft('pod:shop/api', 'CrashLoopBackOff', 'critical', [], ['pod:shop/api']), draft('pod:lab/x', 'CrashLoopBackOff', 'critical')] };

const llm = fakeLlmForFile();

describe('Diagnose', () => {
  it('with no model: the templated, labelled, cited answer, stored and read again by another user', async () => {
    const h = await testApp({ cluster, analyzers: [crashing] });
    const viewer = await h.signIn('viewer');
    const res = await h.call('POST', '/namespaces/shop/diagnose', { cookie: viewer, body: {} });
    assert.equal(res.status, 200, res.text);
    const stored = res.body as unknown as StoredAnswer;
    assert.equal(stored.kind, 'diagnose');
    assert.equal(stored.scope, 'shop');
    assert.equal(stored.actor, 'viewer');
    assert.equal(stored.source, 'diagnosis_without_model');
    assert.ok(stored.answer.startsWith(WITHOUT_MODEL_LABEL));
    assert.deepEqual(stored.citations.filter((c) => c.id === 'pod:shop/api'), [{ id: 'pod:shop/api', verified: true, link: '/namespaces/shop/pods/api' }]);
    assert.ok(!stored.answer.includes('lab'), 'another namespace stays out of a namespace Diagnose');
    assert.equal(llm.requests.length, 0);

    const admin = await h.signIn('admin');
    const again = await h.call('GET', `/copilot/answers/${stored.id}`, { cookie: admin });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, res.body);
    const list = await h.call('GET', '/copilot/answers?kind=diagnose&scope=shop', { cookie: admin });
    assert.equal(list.status, 200, list.text);
    const items = (list.body as unknown as { items: StoredAnswerSummary[] }).items;
    assert.deepEqual(items.map((i) => [i.id, i.scope, i.source]), [[stored.id, 'shop', 'diagnosis_without_model']]);
    assert.match(items[0]?.headline ?? '', /root cause/);
  });

  it('with a model: the run goes through the provider and its answer is stored with its checked citations', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.requests.length = 0;
    llm.script({ text: 'The API crash-loops [pod:shop/api]. Hypothesis: a bad config [configmap:shop/made-up].' });
    const res = await h.call('POST', '/namespaces/shop/diagnose', { cookie: admin, body: {} });
    assert.equal(res.status, 200, res.text);
    const stored = res.body as unknown as StoredAnswer;
    assert.equal(stored.source, 'model');
    assert.equal(stored.model, 'openai_compatible/fake');
    assert.deepEqual(stored.citations, [
      { id: 'pod:shop/api', verified: true, link: '/namespaces/shop/pods/api' },
      { id: 'configmap:shop/made-up', verified: false, link: null },
    ]);
    assert.equal(llm.requests.length, 1);
    assert.match(llm.requests[0]?.raw ?? '', /Diagnose namespace shop/);
    assert.ok(!(llm.requests[0]?.raw ?? '').includes('pod:lab/x'), 'the other namespace is not sent');
    assert.deepEqual((await h.call('GET', `/copilot/answers/${stored.id}`, { cookie: admin })).body, res.body);
  });

  it('refuses a namespace the caller may not see (403) or that does not exist (404), and one outside the AI scope (403)', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], tenantNamespaces: ['shop', 'lab'] });
    const admin = await h.signIn('admin');
    assert.equal((await h.call('POST', '/namespaces/blog/diagnose', { cookie: admin, body: {} })).status, 403);
    const missing = await h.call('POST', '/namespaces/nowhere/diagnose', { cookie: admin, body: {} });
    assert.equal(missing.status, 403, 'a name outside the tenant list is refused, existing or not');
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, namespace_scope: ['shop'] } });
    const outside = await h.call('POST', '/namespaces/lab/diagnose', { cookie: admin, body: {} });
    assert.equal(outside.status, 403, outside.text);
    const open = await testApp({ cluster, analyzers: [crashing] });
    const absent = await open.call('POST', '/namespaces/nowhere/diagnose', { cookie: await open.signIn('admin'), body: {} });
    assert.equal(absent.status, 404, absent.text);
    assert.equal(absent.body.error, 'not_found');
  });

  it('a stored answer about a namespace the reader may not see is absent to them', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], tenantNamespaces: ['shop'] });
    const admin = await h.signIn('admin');
    const shop = (await h.call('POST', '/namespaces/shop/diagnose', { cookie: admin, body: {} })).body as unknown as StoredAnswer;
    // Planted as if written while `lab` was visible: the store keeps what it was given.
    const lab = await h.services.copilot.store.saveAnswer({ ...shop, scope: 'lab' });
    assert.equal((await h.call('GET', `/copilot/answers/${lab.id}`, { cookie: admin })).status, 404);
    const list = (await h.call('GET', '/copilot/answers', { cookie: admin })).body as unknown as { items: StoredAnswerSummary[] };
    assert.deepEqual(list.items.map((i) => i.scope), ['shop']);
  });

  it('master switch off: 403, and Diagnose counts against the viewer daily cap', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, cost_caps: { ...DEFAULT_GUARDRAILS.cost_caps, viewer_ai_daily_limit: 2 } } });
    const viewer = await h.signIn('viewer');
    assert.equal((await h.call('POST', '/namespaces/shop/diagnose', { cookie: viewer, body: {} })).status, 200);
    assert.equal((await h.call('POST', '/namespaces/shop/diagnose', { cookie: viewer, body: {} })).status, 200);
    const capped = await h.call('POST', '/namespaces/shop/diagnose', { cookie: viewer, body: {} });
    assert.equal(capped.status, 402, capped.text);
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, enabled: false } });
    const off = await h.call('POST', '/namespaces/shop/diagnose', { cookie: admin, body: {} });
    assert.equal(off.status, 403);
    assert.equal(off.body.error, 'ai_disabled');
  });

  it('rejects a malformed id and limit with the field named', async () => {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('viewer');
    const badId = await h.call('GET', '/copilot/answers/x', { cookie });
    assert.equal(badId.status, 400);
    assert.equal(badId.body.field, 'id');
    const badLimit = await h.call('GET', '/copilot/answers?limit=500', { cookie });
    assert.equal(badLimit.status, 400);
    assert.equal(badLimit.body.field, 'limit');
  });
});
