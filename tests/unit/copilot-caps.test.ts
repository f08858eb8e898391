// The copilot's daily caps under parallel prompts (spec §8): the viewer's daily AI runs
// (`cost_caps.viewer_ai_daily_limit`) and the Free tier's 15 chat prompts a day are counted in
// the same step that checks them, so a burst of prompts sent at once is answered up to the cap
// and refused past it, never all answered. In process, through the production middleware chain,
// with the answer without a model (and once with the fake provider, whose runs take longer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, NamespaceObject } from '../../domain/cluster/model.ts';
import { FREE_DAILY_CHAT_PROMPTS } from '../../handlers/copilot/admission.ts';
import { DEFAULT_GUARDRAILS } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS, type Answer } from '../support/app.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { emptyCluster } from '../support/services.ts';

const ns = (name: string): NamespaceObject => ({ name, phase: 'Active', createdAt: null, labels: {} });
const cluster: ClusterView = { ...emptyCluster, namespaces: () => [ns('shop')] };

const llm = fakeLlmForFile();

/** How many of `answers` have each status, e.g. `{200: 3, 402: 7}`. */
const statuses = (answers: Answer[]) => answers.reduce<Record<number, number>>((n, a) => ({ ...n, [a.status]: (n[a.status] ?? 0) + 1 }), {});

function assertRefusedAtCap(answers: Answer[], cap: number, message: RegExp) {
  assert.deepEqual(statuses(answers), { 200: cap, 402: answers.length - cap }, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n'));
  for (const refused of answers.filter((a) => a.status === 402)) {
    assert.equal(refused.body.error, 'ai_limit_reached');
    assert.equal(refused.body.feature, 'copilot');
    assert.match(String(refused.body.message), message);
    assert.ok(String(refused.body.upgrade).length > 0);
  }
}

async function withViewerLimit(limit: number) {
  const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
  const admin = await h.signIn('admin');
  const set = await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, cost_caps: { ...DEFAULT_GUARDRAILS.cost_caps, viewer_ai_daily_limit: limit } } });
  assert.equal(set.status, 200, set.text);
  return { h, admin, viewer: await h.signIn('viewer') };
}

describe('daily AI caps under parallel prompts', () => {
  it('viewer_ai_daily_limit 3: ten chat prompts at once are 3 answered and 7 refused (402)', async () => {
    const { h, viewer } = await withViewerLimit(3);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: `q${i}` } })));
    assertRefusedAtCap(answers, 3, /viewers may start 3 AI runs per day/);
    // Still refused afterwards: the refusals were not counted as runs, the three answers were.
    assert.equal((await h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: 'later' } })).status, 402);
  });

  it('viewer_ai_daily_limit 3: ten Diagnose runs at once are 3 answered and 7 refused (402)', async () => {
    const { h, viewer } = await withViewerLimit(3);
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/namespaces/shop/diagnose', { cookie: viewer, body: {} })));
    assertRefusedAtCap(answers, 3, /viewers may start 3 AI runs per day/);
  });

  it('viewer_ai_daily_limit 3 with a model: ten prompts at once are 3 sent to the provider, 7 refused before anything is sent', async () => {
    const { h, admin, viewer } = await withViewerLimit(3);
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.requests.length = 0;
    llm.script(...Array.from({ length: 10 }, () => ({ text: 'Namespace [namespace:shop] is fine.', delayMs: 20 })));
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.call('POST', '/copilot/chat', { cookie: viewer, body: { question: `q${i}` } })));
    assertRefusedAtCap(answers, 3, /viewers may start 3 AI runs per day/);
    assert.equal(llm.requests.length, 3);
    for (const a of answers.filter((a) => a.status === 200)) assert.equal(a.body.source, 'model');
  });

  it(`Free tier: twenty chat prompts at once are ${FREE_DAILY_CHAT_PROMPTS} answered and ${20 - FREE_DAILY_CHAT_PROMPTS} refused (402)`, async () => {
    const h = await testApp({ cluster, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => h.call('POST', '/copilot/chat', { cookie: admin, body: { question: `q${i}` } })));
    assertRefusedAtCap(answers, FREE_DAILY_CHAT_PROMPTS, /the Free tier allows 15 copilot chat prompts per day/);
    // A Diagnose is not a chat prompt: the Free limit does not refuse it.
    assert.equal((await h.call('POST', '/namespaces/shop/diagnose', { cookie: admin, body: {} })).status, 200);
  });
});

describe('the usage store reserves atomically', () => {
  it('fifty reservations at once against a limit of 3: exactly 3 counted, the rest refused with the counts', async () => {
    const h = await testApp({ cluster });
    const store = h.services.copilot.store;
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserveRun('alice', 'diagnose', { chat_prompts: null, runs: 3 })));
    assert.equal(results.filter((r) => r.reserved).length, 3);
    for (const r of results) if (!r.reserved) assert.deepEqual(r.usage, { runs: 3, chat_prompts: 0 });
    assert.equal((await store.usageToday('alice')).runs, 3);
    // Another actor, and the next UTC day, count afresh.
    assert.deepEqual(await store.reserveRun('bob', 'diagnose', { chat_prompts: null, runs: 3 }), { reserved: true });
    h.clock.advance(24 * 3600 * 1000);
    assert.deepEqual(await store.reserveRun('alice', 'diagnose', { chat_prompts: null, runs: 3 }), { reserved: true });
  });

  it('a chat prompt is refused by whichever limit it reaches first, and a refusal counts nothing', async () => {
    const h = await testApp({ cluster });
    const store = h.services.copilot.store;
    const limits = { chat_prompts: 2, runs: 5 };
    const results = await Promise.all(Array.from({ length: 6 }, () => store.reserveRun('carol', 'chat', limits)));
    assert.equal(results.filter((r) => r.reserved).length, 2);
    // Diagnose runs are bound by the run limit only: 3 more fit under 5.
    const diagnoses = await Promise.all(Array.from({ length: 6 }, () => store.reserveRun('carol', 'diagnose', { chat_prompts: null, runs: 5 })));
    assert.equal(diagnoses.filter((r) => r.reserved).length, 3);
    const used = await store.usageToday('carol');
    assert.deepEqual({ runs: used.runs, chat_prompts: used.chat_prompts }, { runs: 5, chat_prompts: 2 });
  });
});
