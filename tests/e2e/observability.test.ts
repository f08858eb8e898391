// Observability in real Chromium through `capstan ui`, against a real Prometheus (Debian's,
// scraping the test API server and a KWOK node's container metrics: tests/support/prometheus.ts).
// An admin finds the overview's API-server panel asking for a source, follows it to Admin →
// Observability, tests and saves the Prometheus URL, sees the panel's figures, and runs a query
// in Explore: the chart of the series of the namespace Capstan may see, the query shown as the
// guard confined it, and a refused query shown with its reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { signInAs } from '../support/agent-session.ts';
import { assertAccessible, launchBrowser, newContext, screenshot, signIn } from '../support/browser.ts';
import { k, startTestAgent } from '../support/cluster.ts';
import { testIssuer } from '../support/license-keys.ts';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus.ts';

const NS = 'e2e-observability';
const PASSWORD = 'observability-e2e-admin-password';
const issuer = testIssuer();

let prometheus: RunningPrometheus;
let agent: RunningAgent;
let ui: RunningUi;
let browser: Browser;

describe('observability in Chromium', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'worker', namespace: NS }, spec: { nodeName: 'kwok-node-1', containers: [{ name: 'app', image: 'busybox:1.36' }] } }));
    prometheus = await startPrometheus();
    agent = await startTestAgent('observability-e2e', { trustedProxyCidrs: '127.0.0.1/32', accounts: { adminPassword: PASSWORD }, settings: { tenantNamespaces: [NS] }, license: { publicKeyPem: issuer.publicKeyPem }, outbound: { allowLoopback: true, kubernetesApiHosts: [] } });
    // Explore needs the Pro feature: the license goes in through the API (its screen has its own test).
    const cookie = await signInAs(agent.url, 'admin', PASSWORD);
    const installed = await fetch(`${agent.url}/api/agent/admin/license`, { method: 'PUT', headers: { cookie, origin: agent.url, 'content-type': 'application/json' }, body: JSON.stringify({ key: issuer.key({ id: 'lic_obs_e2e', tier: 'pro', licensee: 'Observability e2e' }) }) });
    assert.equal(installed.status, 200);
    ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: agent.url });
    browser = await launchBrowser();
    // The pod's container series, before anyone asks for them.
    const deadline = Date.now() + 60_000;
    while ((await prometheus.query(`container_cpu_usage_seconds_total{namespace="${NS}"}`)).length === 0) {
      if (Date.now() > deadline) throw new Error('Prometheus never scraped the pod');
      await new Promise((r) => setTimeout(r, 500));
    }
  });
  after(async () => {
    await browser.close();
    await ui.close();
    await agent.close();
    await prometheus.close();
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it('configures the source, shows the API server panel, and charts a guarded query', async () => {
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ui.url, 'admin', PASSWORD);

    // The panel asks for a source and links an admin to where it is set.
    await page.getByRole('heading', { name: 'API server' }).waitFor();
    await page.getByTestId('apiserver-setup').getByRole('link', { name: /Admin → Observability/ }).click();
    await page.getByRole('heading', { name: 'Observability', level: 1 }).waitFor();
    await page.getByTestId('source-state').getByText('No Prometheus is configured.').waitFor();
    await page.getByLabel(/^URL/).fill(prometheus.url);
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByTestId('source-test').getByText(/^Prometheus 2\.\S+ answered\. It holds the API server’s request series\./).waitFor();
    await page.getByRole('button', { name: 'Save source' }).click();
    await page.getByTestId('source-state').getByText('Capstan reads', { exact: false }).waitFor();
    assert.match(await page.getByTestId('source-state').innerText(), new RegExp(prometheus.url.replace(/[.]/g, '\\.')));
    await page.getByRole('note').getByText('nodes/proxy is powerful', { exact: false }).waitFor();
    await assertAccessible(page, 'admin observability');
    await screenshot(page, 'admin-observability');

    // The overview's panel now has the API server's figures.
    await page.getByRole('navigation').getByRole('link', { name: 'Overview', exact: true }).click();
    const figures = page.getByTestId('apiserver-figures');
    await figures.waitFor();
    await page.getByRole('table', { name: 'Busiest verbs' }).waitFor();
    assert.match(await figures.innerText(), /Requests\s+[0-9.,]+ per second/);
    await assertAccessible(page, 'overview with the API server panel');

    // Explore: the query as the guard confined it, and its chart.
    await page.getByRole('navigation').getByRole('link', { name: 'Explore', exact: true }).click();
    await page.getByRole('heading', { name: 'Explore', level: 1 }).waitFor();
    await page.getByLabel('PromQL query').fill('container_cpu_usage_seconds_total');
    await page.getByLabel('Range').selectOption({ label: 'last 15 minutes' });
    await page.getByRole('button', { name: 'Run query' }).click();
    // The answer, or (failing the test with its words) a refusal.
    await page.getByTestId('guarded-query').or(page.getByRole('alert')).first().waitFor({ timeout: 15_000 }).catch(async (err: unknown) => assert.fail(`${String(err)}\n${await page.locator('main').innerText()}`));
    assert.equal(await page.getByRole('alert').count(), 0, await page.getByRole('alert').allInnerTexts().then((t) => t.join(' | ')));
    // An admin: the empty alternative also reaches series without a namespace label.
    assert.equal(await page.getByTestId('guarded-query').innerText(), `container_cpu_usage_seconds_total{namespace=~"${NS}|"}`);
    await page.getByRole('img', { name: 'Query result chart' }).waitFor();
    assert.equal(await page.locator('.chart canvas').count(), 1, 'uPlot drew the series');
    await assertAccessible(page, 'explore with a chart');
    await screenshot(page, 'explore');

    // A refused query says why and where.
    await page.getByLabel('PromQL query').fill('up{namespace="kube-system"}');
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-refusal').getByText(/namespace "kube-system" is not one you may see/).waitFor();
    await page.getByLabel('PromQL query').fill('sum(rate(x[5m])');
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByTestId('query-refusal').getByText(/syntax error at position/).waitFor();
    await page.getByLabel('where in the query').waitFor();
    await assertAccessible(page, 'explore with a refusal');
  });
});
