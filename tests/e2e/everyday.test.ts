// The everyday console in real Chromium through `capstan ui`: browsing by kind, one object's
// page with its diagnosis, related objects and findings, custom resources, a crash-looping pod's logs (the
// previous instance's tail, then following the current one and seeing a line written now
// arrive, redacted), and changing one's password, then signing in with the new one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn } from '../support/browser.ts';
import { appendCheckoutLine } from '../support/cluster-logs.ts';
import { k, testCluster, waitFor } from '../support/cluster.ts';

const ADMIN_PASSWORD = 'everyday-admin-password';
const dashboard = dashboardForFile('everyday', { accounts: { adminPassword: ADMIN_PASSWORD } });

describe('the everyday console in Chromium', () => {
  it('browses Deployments to one Deployment\'s pods, and Nodes to one node, with the filters in the URL', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Resources' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    await page.getByLabel('Namespace').selectOption('shop');
    await page.getByRole('link', { name: 'checkout', exact: true }).waitFor();
    assert.match(page.url(), /\/resources\/deployments\?namespace=shop$/);
    await assertAccessible(page, 'resources');
    await screenshot(page, 'resources-deployments');
    await page.getByRole('link', { name: 'Pods of checkout' }).click();
    await page.getByRole('heading', { name: 'Pods', level: 1 }).waitFor();
    await page.getByText('Of Deployment/checkout').waitFor();
    const pods = page.getByRole('link', { name: /^checkout-/ });
    await pods.first().waitFor();
    assert.equal(await page.getByRole('link', { name: /^cart-/ }).count(), 0, 'only its own pods');
    await page.getByLabel('Kind').selectOption('nodes');
    await page.getByRole('heading', { name: 'Nodes', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'kwok-node-1', exact: true }).click();
    await page.getByRole('heading', { name: 'Node kwok-node-1' }).waitFor();
    assert.match(page.url(), /\/resources\/nodes\/kwok-node-1$/);
    await page.getByTestId('object-yaml').getByText(/kind: Node/).waitFor();
    assert.doesNotMatch((await page.getByTestId('object-yaml').textContent()) ?? '', /managedFields/);
    await assertAccessible(page, 'node detail');
    await screenshot(page, 'resource-node');
    await page.goBack();
    await page.getByRole('heading', { name: 'Nodes', level: 1 }).waitFor();

    // Keyboard first: `:po` Enter is the pods list; Ctrl-K and a name jump to that object; `/` is the filter box.
    await page.getByRole('heading', { name: 'Nodes', level: 1 }).click();
    await page.keyboard.press(':');
    const palette = page.getByRole('dialog', { name: 'Go to' });
    const goTo = palette.getByRole('combobox');
    await goTo.pressSequentially('po');
    await palette.getByRole('option', { name: 'Kind Pods' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Pods', level: 1 }).waitFor();
    await page.keyboard.press('/');
    assert.equal(await page.locator(':focus').getAttribute('type'), 'search', '/ focuses the filter');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+k');
    await goTo.fill('catalog');
    const option = palette.getByRole('option', { name: 'Deployment shop/catalog' });
    await option.waitFor();
    await assertAccessible(page, 'command palette');
    await screenshot(page, 'command-palette');
    await option.click();
    await page.waitForURL(/\/graph\/deployment%3Ashop%2Fcatalog$/);
    await page.context().close();
  });

  it("reads a crash-looping pod's previous log, then follows the current one as new lines arrive", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/resources/pods?namespace=shop&owner=Deployment%2Fcheckout`);
    const checkout = page.getByRole('link', { name: /^checkout-/ }).first();
    await checkout.waitFor();
    const pod = (await checkout.textContent()) ?? '';
    await checkout.click();
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('heading', { name: `Logs of ${pod}` }).waitFor();
    await page.getByRole('checkbox', { name: 'Previous instance' }).check();
    assert.match(page.url(), /previous=true/, 'the choice is in the URL');
    const lines = page.getByTestId('log-lines');
    await lines.getByText(/checkout starting/).first().waitFor();
    assert.doesNotMatch((await lines.textContent()) ?? '', /sk_live_51Hx9fakeToken/, 'redacted');
    await assertAccessible(page, 'logs');
    await screenshot(page, 'logs-previous');

    await page.getByRole('checkbox', { name: 'Previous instance' }).uncheck();
    await page.getByRole('button', { name: 'Follow' }).click();
    await page.getByText(/Following: new lines appear/).waitFor();
    await lines.getByText(/checkout starting/).first().waitFor();
    const marker = `order ${Date.now()} paid with password=letmein-now`;
    // KWOK follows its log files: a line appended now is the container writing it.
    await waitFor('the new line on the page', async () => {
      appendCheckoutLine(testCluster().dir, marker);
      return (await page.getByText(/order \d+ paid/).count()) > 0;
    }, 20_000, 2000);
    assert.doesNotMatch((await lines.textContent()) ?? '', /letmein-now/, 'a followed line is redacted too');
    await screenshot(page, 'logs-follow');
    await page.getByRole('button', { name: 'Stop following' }).click();
    await page.getByRole('button', { name: 'Follow' }).waitFor();
    await page.context().close();
  });

  it("opens a Deployment's page with what the rest of Capstan knows of it, and browses a custom resource", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/resources/deployments/checkout?namespace=shop`);
    await page.getByRole('heading', { name: 'Deployment checkout' }).waitFor();
    for (const section of ['Diagnosis', 'Related', 'History', 'Security', 'Conditions', 'Events', 'YAML']) await page.getByRole('heading', { name: section, level: 2, exact: true }).waitFor();
    // Its ReplicaSet is related; the diagnosis answered (a fresh cluster's Deployment may not
    // be short of replicas yet, so either answer is the diagnosis' own).
    await page.getByRole('region', { name: 'Related' }).getByRole('link', { name: /^ReplicaSet shop\/checkout-/ }).first().waitFor();
    await page.getByRole('region', { name: 'Diagnosis' }).getByText(/root cause|Nothing is wrong with this deployment/).waitFor();
    await assertAccessible(page, 'deployment detail');
    await screenshot(page, 'resource-deployment');
    // One of its pods, crash-looping (the logs test saw it crash): its page names the root cause.
    await page.goto(`${dashboard.ui.url}/resources/pods?namespace=shop&owner=Deployment%2Fcheckout`);
    await page.getByRole('link', { name: /^checkout-/ }).first().click();
    await page.getByRole('heading', { name: /^Pod checkout-/ }).waitFor();
    await page.getByRole('region', { name: 'Diagnosis' }).getByText('CrashLoopBackOff').first().waitFor({ timeout: 60_000 });
    await assertAccessible(page, 'pod detail');

    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gizmos.e2e.example.com }
spec:
  group: e2e.example.com
  scope: Namespaced
  names: { kind: Gizmo, plural: gizmos }
  versions: [{ name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } } }]
`;
    await k(['apply', '-f', '-'], crd);
    try {
      await k(['wait', '--for=condition=Established', 'crd/gizmos.e2e.example.com', '--timeout=60s']);
      await k(['apply', '-f', '-'], 'apiVersion: e2e.example.com/v1\nkind: Gizmo\nmetadata: { name: sprocket, namespace: shop, labels: { app: cart } }\nspec: { apiToken: not-for-the-browser, teeth: 12 }\n');
      await page.goto(`${dashboard.ui.url}/resources/deployments`);
      await page.getByRole('link', { name: 'Custom resources' }).first().click();
      await page.getByRole('heading', { name: 'Custom resources', level: 1 }).waitFor();
      await waitFor('the new CRD listed', async () => {
        if (await page.getByRole('link', { name: 'Gizmo', exact: true }).isVisible()) return true;
        await page.reload();
        return false;
      }, 60_000, 1000);
      await page.getByRole('link', { name: 'Gizmo', exact: true }).click();
      await page.getByRole('link', { name: 'sprocket', exact: true }).waitFor();
      assert.match(page.url(), /\/custom-resources\/e2e\.example\.com\/gizmos$/);
      await assertAccessible(page, 'custom objects');
      await screenshot(page, 'custom-resources');
      await page.getByRole('link', { name: 'sprocket', exact: true }).click();
      await page.getByRole('heading', { name: 'Gizmo sprocket' }).waitFor();
      await page.getByTestId('object-yaml').getByText(/teeth: 12/).waitFor();
      assert.doesNotMatch((await page.getByTestId('object-yaml').textContent()) ?? '', /not-for-the-browser/);
      await assertAccessible(page, 'custom object');
    } finally {
      await k(['delete', 'crd', 'gizmos.e2e.example.com', '--ignore-not-found', '--wait=false']);
    }
    await page.context().close();
  });

  it('is usable on a tablet: lists and an object page fit the width, wide tables scroll inside their frame', async () => {
    const page = await (await newContext(dashboard.browser, 768)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    for (const [path, heading] of [['/resources/pods?namespace=shop', 'Pods'], ['/resources/nodes', 'Nodes'], ['/resources/deployments/checkout?namespace=shop', 'Deployment checkout'], ['/admin/audit', 'Audit']] as const) {
      await page.goto(`${dashboard.ui.url}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.locator('tbody tr, [data-testid=object-yaml]').first().waitFor();
      const overflow = Number(await page.evaluate('document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth'));
      assert.ok(overflow <= 0, `${path} is ${overflow} px wider than a 768 px window`);
    }
    await page.goto(`${dashboard.ui.url}/resources/nodes`);
    await page.locator('tbody tr').first().waitFor();
    await screenshot(page, 'tablet-nodes');
    await page.context().close();
  });

  it('restarts and scales a Deployment from its detail, after saying what will change', async () => {
    await k(['create', 'namespace', 'e2e-actions']);
    await k(['create', 'deployment', 'echo', '-n', 'e2e-actions', '--image=ghcr.io/acme/echo:1.0.0', '--replicas=2']);
    try {
      const page = await (await newContext(dashboard.browser)).newPage();
      await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
      await waitFor('echo in the cache', async () => {
        await page.goto(`${dashboard.ui.url}/resources/deployments/echo?namespace=e2e-actions`);
        return page.getByRole('heading', { name: 'Deployment echo' }).isVisible({ timeout: 2000 }).catch(() => false);
      }, 60_000, 1000);
      await page.getByRole('button', { name: 'Restart' }).click();
      await page.getByText(/every pod is replaced/).waitFor();
      await assertAccessible(page, 'action confirmation');
      await screenshot(page, 'action-confirm');
      await page.getByRole('button', { name: 'Yes, restart' }).click();
      await page.getByText('Done: restart echo.').waitFor();
      await page.getByLabel('Replicas').fill('4');
      await page.getByRole('button', { name: 'Scale' }).click();
      await page.getByText('Scale echo from 2 to 4 replicas.').waitFor();
      await page.getByRole('button', { name: 'Yes, scale' }).click();
      await page.getByText('Done: scale echo.').waitFor();
      await waitFor('4 replicas asked of the cluster', async () => (await k(['get', 'deployment', 'echo', '-n', 'e2e-actions', '-o', 'jsonpath={.spec.replicas}'])).trim() === '4', 10_000, 500);
      await page.context().close();
    } finally {
      await k(['delete', 'namespace', 'e2e-actions', '--wait=false']);
    }
  });

  it('shows a finished scan in the Tasks tray, with its badge until the tray is opened', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    const started = await page.request.post(`${dashboard.ui.url}/api/agent/security/scan`, { headers: { origin: dashboard.ui.url } });
    assert.equal(started.status(), 200, await started.text());
    const tasks = page.getByRole('button', { name: /^Tasks/ });
    await tasks.getByText('1').waitFor({ timeout: 30_000 });
    await tasks.click();
    const tray = page.getByRole('region', { name: 'Tasks' });
    await tray.getByRole('cell', { name: 'security scan' }).first().waitFor();
    await tray.getByText('finished').first().waitFor();
    await tray.getByRole('cell', { name: 'admin' }).first().waitFor();
    await assertAccessible(page, 'tasks tray');
    await screenshot(page, 'tasks-tray');
    await tasks.click();
    await page.reload();
    await page.getByRole('button', { name: 'Tasks', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Tasks/ }).textContent(), 'Tasks', 'opening the tray cleared the badge');
    await page.context().close();
  });

  it('saves a topology layout as your own, then forgets it', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/graph/${encodeURIComponent('deployment:shop/cart')}`);
    const node = page.locator('.react-flow__node').first();
    await node.waitFor();
    const box = await node.boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 60, { steps: 8 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Save this layout' }).click();
    await page.getByText('Saved: this view opens as you left it.').waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Forget my layout' }).waitFor();
    await page.getByRole('button', { name: 'Forget my layout' }).click();
    await page.getByRole('button', { name: 'Forget my layout' }).waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('changes the password from Account: the old one stops working, the new one signs in', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/account`);
    await page.getByRole('heading', { name: 'Password' }).waitFor();
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password').fill('a new everyday passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('current_password: the current password is wrong').waitFor();
    await assertAccessible(page, 'account (password refused)');
    await page.getByLabel('Current password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/^Password changed/).waitFor();
    await screenshot(page, 'account-password-changed');
    await page.context().close();

    const fresh = await (await newContext(dashboard.browser)).newPage();
    await fresh.goto(`${dashboard.ui.url}/overview`);
    await fresh.getByLabel('Username').fill('admin');
    await fresh.getByLabel('Password').fill(ADMIN_PASSWORD);
    await fresh.getByRole('button', { name: 'Sign in', exact: true }).click();
    await fresh.getByRole('alert').waitFor();
    await signIn(fresh, dashboard.ui.url, 'admin', 'a new everyday passphrase');
    await fresh.context().close();
  });
});
