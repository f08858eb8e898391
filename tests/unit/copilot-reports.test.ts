// Scheduled SRE reports: off by default, due every `every_hours` after the newest one, stored
// with health and trends, posted to the chat webhook, audited, and not retried every minute
// when refused; "run now" through the fake provider sends the health and trend facts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView } from '../../domain/cluster/model.ts';
import { WITHOUT_MODEL_LABEL } from '../../domain/copilot/explain.ts';
import type { HistoryReader } from '../../handlers/metrics/service.ts';
import { DEFAULT_GUARDRAILS, type StoredAnswer } from '../../schema/copilot.ts';
import { testApp, UNLIMITED_RATE_LIMITS } from '../support/app.ts';
import { draft, pod } from '../support/diagnosis.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';
import { emptyCluster } from '../support/services.ts';
import { chatReceiverForFile } from '../support/chat-receiver.ts';

/** What the overview grades: a container waiting in CrashLoopBackOff after restarts. */
const crashLooping = {
  ...pod('shop', 'api'),
  ready: false,
  statuses: [{ name: 'api', ready: false, restartCount: 7, waiting: { reason: 'CrashLoopBackOff', message: null }, runningSince: null, terminated: null, lastTerminated: null }],
};
const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => ['shop', 'blog'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
  pods: () => [crashLooping, pod('blog', 'db')],
};
const crashing = { name: 'hand', reads: [], analyze: () => [draft('pod:shop/api', 'CrashLoopBackOff', 'critical', [], ['pod:shop/api'])] };
/** CPU doubling over the window. */
const history: HistoryReader = {
  query: () => Promise.resolve({ bucketSecs: 3600, points: [1000, 1000, 2000, 2000].map((cpuM, i) => ({ ts: i, cpuM, memBytes: 2 ** 30, rxBps: null, txBps: null })) }),
};

const llm = fakeLlmForFile();
const chat = chatReceiverForFile();
const posts = chat.posts;

const chatUrl = () => chat.url();

describe('scheduled SRE reports', () => {
  it('off by default; on, one report at once, then one every every_hours, stored, posted and audited', async () => {
    posts.length = 0;
    const h = await testApp({ cluster, analyzers: [crashing], history, chatWebhookUrl: chatUrl() });
    const scheduler = h.services.reportScheduler;
    assert.equal(await scheduler.tick(), 'off');
    const admin = await h.signIn('admin');
    assert.deepEqual((await h.call('GET', '/admin/ai/reports', { cookie: admin })).body, { enabled: false, every_hours: 24 });
    assert.equal((await h.call('PUT', '/admin/ai/reports', { cookie: admin, body: { enabled: true, every_hours: 6 } })).status, 200);
    // Two ticks at once (a slow database): one report, never two.
    assert.deepEqual((await Promise.all([scheduler.tick(), scheduler.tick()])).sort(), ['busy', 'ran']);
    assert.equal(await scheduler.tick(), 'not_due');
    h.clock.advance(6 * 3600 * 1000 - 1000);
    assert.equal(await scheduler.tick(), 'not_due');
    h.clock.advance(1000);
    assert.equal(await scheduler.tick(), 'ran');

    const list = await h.call('GET', '/copilot/answers?kind=report', { cookie: await h.signIn('viewer') });
    const items = list.body.items as { id: string; scope: string; actor: string }[];
    assert.deepEqual(items.map((i) => [i.scope, i.actor]), [['*', 'capstan-reports'], ['*', 'capstan-reports']]);
    const report = (await h.call('GET', `/copilot/answers/${items[0]?.id ?? ''}`, { cookie: admin })).body as unknown as StoredAnswer;
    assert.ok(report.answer.startsWith(WITHOUT_MODEL_LABEL));
    assert.match(report.answer, /\[pod:shop\/api\]/);
    assert.match(report.answer, /## Health\n2 namespaces: 1 critical/);
    assert.match(report.answer, /CPU in use: 1\.00 cores → 2\.00 cores \(\+100 %\)/);
    assert.ok(report.citations.some((c) => c.id === 'namespace:shop'), 'the health section is cited');
    assert.equal(posts.length, 2);
    assert.match(String((JSON.parse(posts[0] ?? '{}') as { text?: string }).text), /Capstan SRE report/);
    const audit = await h.call('GET', '/admin/audit/events?page_size=100', { cookie: admin });
    assert.equal((audit.text.match(/ai\.report/g) ?? []).length >= 2, true, 'each scheduled run is audited');
  });

  it('a refused run (AI off) is audited once and not retried until the next period', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], history });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/reports', { cookie: admin, body: { enabled: true, every_hours: 1 } });
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, enabled: false } });
    assert.equal(await h.services.reportScheduler.tick(), 'refused');
    assert.equal(await h.services.reportScheduler.tick(), 'not_due');
    h.clock.advance(3600 * 1000);
    assert.equal(await h.services.reportScheduler.tick(), 'refused');
  });

  it('run now (admin) through the model sends the health and trend facts and says the chat was not configured', async () => {
    const h = await testApp({ cluster, analyzers: [crashing], history, rateLimits: UNLIMITED_RATE_LIMITS });
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'fake', base_url: `${llm.url}/v1` } });
    llm.requests.length = 0;
    llm.script({ text: 'Shop is down: [pod:shop/api] crash-loops; CPU doubled.' });
    const res = await h.call('POST', '/admin/ai/reports/run', { cookie: admin, body: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.source, 'model');
    assert.equal(res.body.posted, null);
    assert.equal(res.body.actor, 'admin');
    assert.match(llm.requests[0]?.raw ?? '', /## Health/);
    assert.match(llm.requests[0]?.raw ?? '', /CPU in use/);
    assert.equal((await h.call('POST', '/admin/ai/reports/run', { cookie: await h.signIn('viewer'), body: {} })).status, 403);
  });

  it('refuses a bad schedule, naming the field', async () => {
    const h = await testApp({ cluster });
    const admin = await h.signIn('admin');
    for (const every_hours of [0, 169, 1.5]) {
      const res = await h.call('PUT', '/admin/ai/reports', { cookie: admin, body: { enabled: true, every_hours } });
      assert.equal(res.status, 400, String(every_hours));
      assert.equal(res.body.field, 'every_hours');
    }
    assert.equal((await h.call('PUT', '/admin/ai/reports', { cookie: await h.signIn('viewer'), body: { enabled: true, every_hours: 2 } })).status, 403);
  });
});
