// The copilot in real Chromium against a real agent on the demo scenario, through `capstan ui`'s
// proxy: Diagnose on a namespace with no model configured (the demo's case), Admin → AI
// pointing the agent at the fake provider (tests/support/fake-llm.ts, which speaks the OpenAI
// Chat Completions wire protocol), the chat dock streaming a tool step and an answer whose
// verified citation opens the object and whose invented one is not linked, the stop button
// ending the provider call, and AI Context saying suppression is no filter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn as signInAt } from '../support/browser.ts';
import { waitFor } from '../support/cluster.ts';
import { fakeLlmForFile } from '../support/fake-llm.ts';

const ADMIN_PASSWORD = 'copilot-e2e-admin-password';
const llm = fakeLlmForFile();

// The fake provider listens on 127.0.0.1: the outbound dev switch, said explicitly (docs/security.md "Outbound calls").
const dashboard = dashboardForFile('copilot-e2e', { accounts: { adminPassword: ADMIN_PASSWORD }, outbound: { allowLoopback: true, kubernetesApiHosts: [] } });
const signIn = (page: Page) => signInAt(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);

/** A crash-looping checkout pod of the demo, read through the dashboard's own session. */
async function checkoutPod(page: Page): Promise<string> {
  const answer = await page.request.get(`${dashboard.ui.url}/api/agent/namespaces/shop/pods`);
  assert.equal(answer.status(), 200);
  const { pods } = (await answer.json()) as { pods: { name: string }[] };
  const pod = pods.find((p) => p.name.startsWith('checkout-'));
  assert.ok(pod, 'the demo has checkout pods');
  return pod.name;
}

describe('copilot in Chromium', () => {
  it('diagnoses a namespace with no model configured: labelled, cited, stored, and a citation opens its object', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    await page.goto(`${dashboard.ui.url}/namespaces/shop`);
    // The diagnosis has found the demo's crash loop once the namespace's root causes are drawn.
    await page.locator('ol.findings.roots').waitFor();
    await page.getByRole('button', { name: 'Diagnose shop' }).click();
    const result = page.getByRole('article', { name: 'Diagnose of shop' });
    await result.waitFor();
    const text = (await result.innerText()).trim();
    assert.match(text, /Produced without a model/);
    assert.match(text, /produced without a model, from the diagnosis/);
    assert.match(text, /CrashLoopBackOff/);
    const cites = result.locator('a.cite');
    assert.ok((await cites.count()) > 0, 'its statements are cited with links');
    assert.equal(await result.locator('.cite.unverified').count(), 0, 'an answer from the diagnosis cites only what it was given');
    await assertAccessible(page, 'diagnose');
    await screenshot(page, 'copilot-diagnose');

    // Stored: listed among the copilot's answers, and readable again.
    await page.getByRole('link', { name: 'Earlier diagnoses of shop' }).click();
    await page.getByRole('heading', { name: 'Copilot answers', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'shop', exact: true }).first().waitFor();
    await assertAccessible(page, 'copilot answers');
    await screenshot(page, 'copilot-answers');
    await page.locator('tbody tr').first().getByRole('link').click();
    await page.getByRole('article', { name: 'Diagnose of shop' }).waitFor();

    // A citation is a deep link to the object's own view.
    const first = page.getByRole('article', { name: 'Diagnose of shop' }).locator('a.cite').first();
    const id = (await first.textContent()) ?? '';
    const href = (await first.getAttribute('href')) ?? '';
    assert.match(id, /^[a-z]+:/);
    await first.click();
    await page.waitForURL(`${dashboard.ui.url}${href}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.notEqual(await page.getByRole('heading', { level: 1 }).textContent(), 'Not found', `${id} opens ${href}`);
    await page.context().close();
  });

  it('points the agent at a provider on Admin → AI and tests the connection', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'AI', exact: true }).click();
    await page.getByRole('heading', { name: 'AI', level: 1 }).waitFor();
    await page.getByText(/No model is used now/).waitFor();
    await page.getByRole('combobox', { name: /^Provider/ }).selectOption('openai_compatible');
    await page.getByLabel(/^Model/).fill('fake-model');
    await page.getByLabel(/^Base URL/).fill(`${llm.url}/v1`);
    await page.getByRole('button', { name: 'Save provider' }).click();
    await page.getByText('Runs reach the model').waitFor();
    llm.script({ text: 'pong' });
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText(/^Connected to openai_compatible\/fake-model in \d+ ms\.$/).waitFor();
    assert.equal(llm.requests.at(-1)?.body.model, 'fake-model');
    await assertAccessible(page, 'admin ai');
    await screenshot(page, 'admin-ai');

    // AI Context: the page says a document cannot hide anything, then takes a new one.
    await page.getByRole('link', { name: 'AI Context' }).first().click();
    await page.getByRole('heading', { name: 'Not a filter' }).waitFor();
    await page.getByText(/instruction to the model, not/).waitFor();
    await page.getByLabel('Title').fill('Checkout runbook');
    await page.getByLabel(/^Markdown/).fill('Checkout crashes when its payment key is missing; page the payments team.');
    await page.getByLabel(/standing instruction/).check();
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByRole('link', { name: 'Checkout runbook' }).waitFor();
    await assertAccessible(page, 'ai context');
    await screenshot(page, 'ai-context');
    await page.context().close();
  });

  it('streams a chat answer with its tool step; a verified citation opens the object, an invented one is not linked', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    const pod = await checkoutPod(page);
    llm.requests.length = 0;
    llm.script(
      { toolCalls: [{ name: 'list_pods', args: { namespace: 'shop' } }] },
      { text: `Pod [pod:shop/${pod}] is crash-looping; [pod:shop/ghost-7f9c] may be affected too (Hypothesis: not shown to me).`, pauseAfterFirstPieceMs: 1500 },
    );
    await page.goto(`${dashboard.ui.url}/namespaces/shop`);
    await page.getByRole('button', { name: 'Ask the copilot' }).click();
    const dock = page.getByRole('complementary', { name: 'Copilot' });
    await dock.getByText('About namespace:shop').waitFor();
    await dock.getByLabel('Ask the copilot').fill('Why is checkout failing?');
    await dock.getByRole('button', { name: 'Ask', exact: true }).click();

    // While the model is still writing: the tool step is shown with what it read, the first words are there, and it can be stopped.
    await dock.getByRole('list', { name: 'Tool steps' }).getByText('list_pods').waitFor();
    await dock.getByText(/read [\d,]+ characters/).waitFor();
    await dock.getByText('Pod', { exact: false }).first().waitFor();
    assert.equal(await dock.getByRole('button', { name: 'Stop' }).count(), 1, 'the stop button shows while the answer streams');
    assert.equal(await dock.locator('.answer-meta').count(), 0, 'not finished yet');
    await screenshot(page, 'copilot-dock-streaming');

    await dock.getByText(/1 unverified \(not linked\)/).waitFor();
    const verified = dock.getByRole('link', { name: `pod:shop/${pod}` });
    await verified.waitFor();
    assert.equal(await dock.getByRole('link', { name: /ghost-7f9c/ }).count(), 0, 'the invented pod is never a link');
    await dock.locator('.cite.unverified', { hasText: 'pod:shop/ghost-7f9c' }).waitFor();
    await dock.getByText('Answered by openai_compatible/fake-model · 1 tool call').waitFor();
    // What went to the provider: the question with the namespace in focus, and the tool's result.
    assert.equal(llm.requests.length, 2);
    assert.match(llm.requests[0]?.raw ?? '', /Why is checkout failing\?/);
    assert.match(llm.requests[1]?.raw ?? '', new RegExp(pod));
    await assertAccessible(page, 'chat dock');
    await screenshot(page, 'copilot-dock');

    await verified.click();
    await page.waitForURL(`${dashboard.ui.url}/namespaces/shop/pods/${pod}`);
    await page.getByRole('heading', { name: pod, level: 1 }).waitFor();
    await dock.getByText('Why is checkout failing?').waitFor();
    await dock.getByText('About pod:shop/' + pod).waitFor();
    await page.context().close();
  });

  it('stops an answer mid-stream, and the agent ends the provider call', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    llm.requests.length = 0;
    llm.script({ text: 'Thinking about a long answer that will never be finished.', pauseAfterFirstPieceMs: 60_000 });
    await page.getByRole('button', { name: 'Ask the copilot' }).click();
    const dock = page.getByRole('complementary', { name: 'Copilot' });
    await dock.getByLabel('Ask the copilot').fill('Write me a long report');
    await dock.getByRole('button', { name: 'Ask', exact: true }).click();
    await dock.getByText('Thinking', { exact: false }).waitFor();
    await dock.getByRole('button', { name: 'Stop' }).click();
    await dock.getByText('Stopped. The agent ended the run.').waitFor();
    await dock.getByRole('button', { name: 'Ask', exact: true }).waitFor({ state: 'attached' });
    await waitFor('the provider call to be dropped', () => Promise.resolve(llm.requests.at(-1)?.abandoned === true), 20_000, 200);
    await screenshot(page, 'copilot-dock-stopped');
    await page.context().close();
  });
});
