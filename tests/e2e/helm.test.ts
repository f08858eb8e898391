// The Helm screen in real Chromium through `capstan ui`: the expert process (`capstan expert`,
// the cluster-admin account of its own ServiceAccount, the hop checked by TokenReview) and a
// chart repository served over loopback, as tests/integration/helm.test.ts starts them. An
// admin finds Helm closed, turns expert mode on with the switch under Admin, fills the install
// form, previews the dry run's diff, installs, watches the Task finish in the Tasks tray, finds
// the release deployed, its values and history on its page, and uninstalls it. A release stuck
// in pending-upgrade is flagged with the agent's diagnosis, and its recovery runs from the list.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { assertAccessible, launchBrowser, newContext, screenshot, signIn } from '../support/browser.ts';
import { k, kJson, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { provisionExpert, serveChartRepository, type ChartRepository, type ProvisionedExpert } from '../support/expert.ts';

const SYS = 'e2e-helm-sys';
const NS = 'e2e-helm';
const PASSWORD = 'helm-e2e-admin-password';

let provisioned: ProvisionedExpert;
let repo: ChartRepository;
let agent: RunningAgent;
let ui: RunningUi;
let browser: Browser;

describe('the Helm screen in Chromium', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    repo = await serveChartRepository(join(testCluster().binDir, 'helm'), join(import.meta.dirname, '../fixtures/charts/hello'), ['0.1.0']);
    provisioned = await provisionExpert(SYS);
    agent = await startTestAgent('helm-e2e', { trustedProxyCidrs: '127.0.0.1/32', accounts: { adminPassword: PASSWORD }, expert: { url: provisioned.expert.url, tokenFile: provisioned.tokenFile }, outbound: { allowLoopback: true, kubernetesApiHosts: [] } });
    ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: agent.url });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await ui.close();
    await agent.close();
    await provisioned.remove();
    await repo.close();
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it('turns expert mode on, previews and installs a chart, watches its Task finish, and lists the release deployed', async () => {
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ui.url, 'admin', PASSWORD);

    // Closed until an admin turns expert mode on: the screen says so and links to the switch.
    await page.getByRole('navigation').getByRole('link', { name: 'Helm', exact: true }).click();
    await page.getByRole('heading', { name: 'Helm', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Expert mode is off' }).waitFor();
    await assertAccessible(page, 'helm, expert mode off');
    await page.getByRole('link', { name: /Turn expert mode on/ }).click();
    await page.getByRole('heading', { name: 'Expert mode', level: 1 }).waitFor();
    assert.match(page.url(), /\/admin\/expert-mode$/);
    const state = page.getByTestId('expert-mode-state');
    await state.getByText('Expert mode is off. The chart installed the expert pod.').waitFor();
    await page.getByRole('switch', { name: 'Expert mode' }).click();
    await state.getByText('Expert mode is on.', { exact: false }).waitFor();
    assert.equal(await page.getByRole('switch', { name: 'Expert mode' }).isChecked(), true);
    // A saved config for the chart repository, to install from below (its password would be sealed; this one has none).
    await page.getByLabel('Name', { exact: true }).fill('Local charts');
    await page.getByLabel('URL', { exact: true }).fill(repo.url);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('table', { name: 'Saved Helm configs' }).getByRole('rowheader', { name: 'Local charts' }).waitFor();
    await assertAccessible(page, 'admin expert mode');
    await screenshot(page, 'admin-expert-mode');

    // The install form: a values text that is not a JSON object is refused before anything is sent.
    await page.getByRole('navigation').getByRole('link', { name: 'Helm', exact: true }).click();
    await page.getByRole('link', { name: 'Install a chart' }).click();
    await page.getByRole('heading', { name: 'Install a chart', level: 1 }).waitFor();
    await page.getByLabel('Namespace').selectOption(NS);
    await page.getByLabel('Release name').fill('hello');
    await page.getByLabel('Where the chart comes from').selectOption('saved');
    await page.getByLabel(/^Saved config/).selectOption({ label: `Local charts (${repo.url})` });
    await page.getByLabel('Chart name').fill('hello');
    await page.getByLabel('Version (optional)').fill('0.1.0');
    const values = page.getByLabel('Values (a JSON object)');
    await values.fill('["not", "an", "object"]');
    await page.getByText('Values must be a JSON object').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Preview changes' }).isDisabled(), true);
    await values.fill('{"greeting":"from-the-browser"}');
    const install = page.getByRole('button', { name: 'Install', exact: true });
    assert.equal(await install.isDisabled(), true, 'Install waits for a preview');

    // The dry run's diff, before Install is enabled.
    await page.getByRole('button', { name: 'Preview changes' }).click();
    const diff = page.getByTestId('helm-diff');
    await diff.waitFor({ timeout: 60_000 });
    assert.match((await diff.textContent()) ?? '', /^\+ {2}greeting: from-the-browser$/m);
    assert.match((await page.getByTestId('helm-diff-counts').textContent()) ?? '', /An install of hello 0\.1\.0.*\+\d+ \/ −0 lines/);
    assert.equal(await install.isEnabled(), true);
    await assertAccessible(page, 'helm install preview');
    await screenshot(page, 'helm-install-preview');

    await install.click();
    await page.getByTestId('helm-task').getByText(/Task started: install hello 0\.1\.0 as e2e-helm\/hello/).waitFor();
    await page.getByText('The Tasks tray in the header follows it').waitFor();

    // The Tasks tray follows it until it finishes.
    await page.getByRole('button', { name: /^Tasks/ }).click();
    const tray = page.getByRole('region', { name: 'Tasks' });
    const row = tray.getByRole('row').filter({ has: page.getByRole('cell', { name: 'helm install' }) });
    await row.first().waitFor();
    await row.filter({ hasText: 'finished' }).first().waitFor({ timeout: 120_000 });
    assert.match((await row.first().textContent()) ?? '', /revision 1, deployed/);
    // The live event of its end fired one notice (a poll would have been up to 15 s late).
    await page.getByRole('status').getByText(/helm install finished: Installed e2e-helm\/hello: revision 1, deployed/).waitFor({ timeout: 10_000 });
    assert.equal(await page.getByRole('status').getByText(/helm install finished/).count(), 1);
    await page.getByRole('button', { name: /^Tasks/ }).click();
    const greeting = await kJson<{ data: { greeting: string } }>(['get', 'configmap', 'hello-greeting', '-n', NS]);
    assert.equal(greeting.data.greeting, 'from-the-browser');

    // The release, listed as deployed.
    await page.getByRole('navigation').getByRole('link', { name: 'Helm', exact: true }).click();
    await page.getByLabel('Namespace').selectOption(NS);
    assert.match(page.url(), /\/helm\?namespace=e2e-helm$/);
    const listed = page.locator(`tr[data-release="${NS}/hello"]`);
    await listed.and(page.locator('[data-status="deployed"]')).waitFor({ timeout: 60_000 });
    assert.match((await listed.textContent()) ?? '', /hello.*e2e-helm.*deployed.*hello.*0\.1\.0/);
    await assertAccessible(page, 'helm releases');
    await screenshot(page, 'helm-releases');

    // Its page: the values given (redacted by the agent where they look secret) and its history.
    await listed.getByRole('link', { name: 'hello' }).click();
    await page.getByRole('heading', { name: 'Release hello', level: 1 }).waitFor();
    await page.getByTestId('helm-values').getByText(/"greeting": "from-the-browser"/).waitFor();
    await page.getByRole('table', { name: 'Revisions' }).getByRole('rowheader', { name: '1' }).waitFor();
    await assertAccessible(page, 'helm release');
    await screenshot(page, 'helm-release');

    // Uninstall asks first, then runs as a Task; when it ends the page says the release is gone.
    await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await page.getByText(/Uninstall hello: Helm deletes every object of the release/).waitFor();
    await page.getByRole('button', { name: 'Yes, uninstall' }).click();
    await page.getByTestId('helm-task').getByText(/Task started: uninstall hello/).waitFor();
    await page.getByText('No release hello in e2e-helm').waitFor({ timeout: 60_000 });
    await page.context().close();
  });

  it("flags a stuck release with the agent's diagnosis, and runs the recovery it offers", async () => {
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ui.url, 'admin', PASSWORD);
    const api = async (method: 'GET' | 'POST', path: string, data?: unknown) => {
      const res = await page.request.fetch(`${ui.url}/api/agent${path}`, { method, headers: { origin: ui.url }, ...(data === undefined ? {} : { data }) });
      assert.equal(res.status(), 200, await res.text());
      return (await res.json()) as Record<string, unknown>;
    };
    const started = await api('POST', '/helm/releases', { namespace: NS, name: 'stuck', chart: { repo_url: repo.url, name: 'hello', version: '0.1.0' } });
    await waitFor('the install to finish', async () => ((await api('GET', '/tasks')).tasks as { id: string; state: string }[]).some((t) => t.id === started.task_id && t.state === 'finished'), 90_000, 500);
    // What a helm killed mid-upgrade leaves: a newer revision, pending, written long ago.
    const first = await kJson<{ data: { release: string } }>(['get', 'secret', 'sh.helm.release.v1.stuck.v1', '-n', NS]);
    const record = JSON.parse(gunzipSync(Buffer.from(Buffer.from(first.data.release, 'base64').toString(), 'base64')).toString()) as { version: number; info: { status: string; last_deployed: string } };
    record.version = 2;
    record.info.status = 'pending-upgrade';
    record.info.last_deployed = new Date(Date.now() - 10 * 60 * 1000).toISOString();
    const encoded = gzipSync(JSON.stringify(record)).toString('base64');
    await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', type: 'helm.sh/release.v1', metadata: { name: 'sh.helm.release.v1.stuck.v2', namespace: NS, labels: { owner: 'helm', name: 'stuck', status: 'pending-upgrade', version: '2' } }, data: { release: Buffer.from(encoded).toString('base64') } }));

    await page.goto(`${ui.url}/helm?namespace=${NS}`);
    const offer = page.getByRole('button', { name: 'Roll stuck back to revision 1' });
    await offer.waitFor({ timeout: 60_000 });
    const notice = page.getByRole('group').filter({ has: offer });
    assert.match((await notice.textContent()) ?? '', /^stuck .*pending-upgrade/);
    assert.equal(await page.locator(`tr[data-release="${NS}/stuck"]`).getAttribute('data-status'), 'pending-upgrade');
    await assertAccessible(page, 'helm stuck release');
    await screenshot(page, 'helm-stuck');
    await offer.click();
    await page.getByRole('button', { name: 'Yes, roll back' }).click();
    await page.getByTestId('helm-task').getByText(/Task started: roll stuck back to revision 1/).waitFor();
    const recovered = page.locator(`tr[data-release="${NS}/stuck"][data-status="deployed"]`);
    await recovered.waitFor({ timeout: 90_000 });
    assert.match((await recovered.textContent()) ?? '', /deployed/);
    assert.equal(await page.getByRole('button', { name: 'Roll stuck back to revision 1' }).count(), 0, 'no longer stuck');
    await page.context().close();
  });
});
