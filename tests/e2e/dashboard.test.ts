// The dashboard in real Chromium against a real agent on the demo scenario, through
// `capstan ui`'s proxy: sign in, the overview's order, the crash-loop story, an API key shown
// once, what a viewer cannot see, and an accessibility scan of every main screen.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn as signInAt } from '../support/browser.ts';
import { waitFor } from '../support/cluster.ts';

const ADMIN_PASSWORD = 'dashboard-admin-password';
const VIEWER_PASSWORD = 'dashboard-viewer-password';

const dashboard = dashboardForFile('dashboard', {
      accounts: { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD },
      historySampleIntervalMs: 2000,
    });
const signIn = (page: Page, username: string, password: string) => signInAt(page, dashboard.ui.url, username, password);

describe('dashboard in Chromium', () => {
  it('signs in and lists unhealthy namespaces first, with the cache age', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await page.goto(`${dashboard.ui.url}/overview`);
    await page.getByRole('heading', { name: 'Sign in to Capstan' }).waitFor();
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    // On a control plane that just started, checkout has not crashed yet (its first crash-loop
    // takes about 30 s): wait for the verdict, through the overview's 30 s cache.
    await waitFor('shop to turn critical', async () => {
      if ((await page.locator('tr[data-health="critical"] th', { hasText: /^shop$/ }).count()) > 0) return true;
      await page.reload();
      await page.locator('tbody tr').first().waitFor();
      return false;
    }, 120_000, 5000);
    const verdicts: [string, string][] = [];
    for (const row of await page.locator('tbody tr').all()) verdicts.push([(await row.locator('th').textContent()) ?? '', (await row.getAttribute('data-health')) ?? '']);
    const order = ['critical', 'degraded', 'unknown', 'healthy'];
    const ranks = verdicts.map(([, health]) => order.indexOf(health));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'worst first');
    assert.equal(verdicts[0]?.[1], 'critical');
    assert.ok(verdicts.some(([ns, health]) => ns === 'shop' && health === 'critical'), JSON.stringify(verdicts));
    assert.ok(verdicts.findIndex(([ns]) => ns === 'analytics') < verdicts.findIndex(([ns]) => ns === 'marketing'), 'degraded before healthy');
    await page.getByText(/cached \d+ s ago/).waitFor();
    await assertAccessible(page, 'overview');
    await screenshot(page, 'overview');
    await page.getByRole('button', { name: /Switch to dark theme/ }).click();
    await screenshot(page, 'overview-dark');
    await assertAccessible(page, 'overview (dark)');
    await page.setViewportSize({ width: 420, height: 900 });
    await screenshot(page, 'overview-narrow');
    await page.context().close();
  });

  it("opens the crash-loop incident's story with the previous instance's log tail, and deep-links to it", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'Incidents' }).click();
    await page.getByRole('heading', { name: 'Incidents', level: 1 }).waitFor();
    await page.getByLabel('Severity').selectOption('critical');
    assert.match(page.url(), /\/incidents\?severity=critical$/, 'filters live in the URL');
    await assertAccessible(page, 'incidents');
    await screenshot(page, 'incidents');
    const crash = page.getByRole('link', { name: /CrashLoopBackOff · shop\/checkout/ }).first();
    await crash.click();
    await page.getByRole('heading', { name: /Log tail \(previous instance\)/ }).waitFor();
    const log = await page.locator('pre.log').textContent();
    assert.match(log ?? '', /checkout starting/);
    assert.doesNotMatch(log ?? '', /sk_live_51Hx9fakeToken/, 'redacted');
    await page.getByRole('heading', { name: 'Last exit' }).waitFor();
    assert.match(page.url(), /\/incidents\/shop\/checkout-[a-z0-9]+-[a-z0-9]+$/);
    await assertAccessible(page, 'incident story');
    await screenshot(page, 'incident-story');

    // The same URL in a fresh tab (after signing in) opens the same story.
    const deepLink = page.url();
    await page.goto(deepLink);
    await page.getByRole('heading', { name: /Log tail/ }).waitFor();

    await page.getByRole('link', { name: 'Its place in the cluster' }).click();
    await page.getByRole('figure', { name: /Topology around pod:shop\/checkout/ }).waitFor();
    await page.locator('.react-flow__node').first().waitFor();
    assert.ok((await page.locator('.react-flow__node.problem').count()) >= 1, 'the problem is drawn');
    await assertAccessible(page, 'topology');
    await screenshot(page, 'topology');
    await page.locator('.react-flow__node', { hasText: 'ReplicaSet' }).first().click();
    await page.getByRole('heading', { name: /^ReplicaSet checkout-/ }).waitFor();

    await page.goto(`${dashboard.ui.url}/namespaces/shop`);
    await page.getByRole('table').waitFor();
    await page.getByLabel('Search pods').fill('frontend');
    const rows = await page.locator('tbody tr').count();
    assert.equal(rows, 12, 'twelve frontend pods after searching');
    await assertAccessible(page, 'namespace pods');
    await screenshot(page, 'namespace-pods');
    await page.context().close();
  });

  it('creates an API key with only the scopes picked and shows its secret exactly once', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'admin (admin)' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    const checked = await page.locator('input[name=scope]:checked').count();
    assert.equal(checked, 0, 'nothing preselected');
    await page.getByLabel('Name').fill('ci reader');
    await page.getByLabel('workloads:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('api-key-secret').textContent()) ?? '';
    assert.match(secret, /^capstan_/);
    await page.getByRole('cell', { name: 'ci reader', exact: true }).waitFor();
    await assertAccessible(page, 'account');
    await screenshot(page, 'account');
    await page.reload();
    await page.getByRole('cell', { name: 'ci reader', exact: true }).waitFor();
    assert.equal(await page.getByText(secret).count(), 0, 'never shown again');

    // An MCP client asks for OAuth access: the consent screen names it; Allow sends the browser back with a code.
    const redirect = 'http://127.0.0.1:9/callback';
    const registered = (await (await fetch(`${dashboard.ui.url}/api/agent/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Notebook Agent', redirect_uris: [redirect] }) })).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' });
    await page.goto(`${dashboard.ui.url}/api/agent/oauth/authorize?${authorize.toString()}`);
    await page.getByRole('heading', { name: /Allow Notebook Agent to read this cluster as you\?/ }).waitFor();
    await assertAccessible(page, 'oauth consent');
    await screenshot(page, 'oauth-consent');
    // The client's local callback, played by the test: answer it so the navigation completes.
    await page.route(`${redirect}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in; you can close this tab' }));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${redirect}**`);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), 'xyz');
    const code = back.searchParams.get('code') ?? '';
    const tokenAnswer = await fetch(`${dashboard.ui.url}/api/agent/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: registered.client_id, code_verifier: verifier }).toString(),
    });
    assert.equal(tokenAnswer.status, 200);
    await page.goto(`${dashboard.ui.url}/account`);
    await page.getByRole('button', { name: 'Disconnect Notebook Agent' }).waitFor();
    await screenshot(page, 'account-connected-apps');
    await page.getByRole('button', { name: 'Disconnect Notebook Agent' }).click();
    await page.getByText(/No app holds an access token/).waitFor();
    const answer = await fetch(`${dashboard.agent.url}/api/agent/namespaces`, { headers: { 'x-api-key': secret } });
    assert.equal(answer.status, 200, 'the key works');
    await page.context().close();
  });

  it('shows resource history and applications, and the admin screens to an admin', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/history?scope=namespace&namespace=payments`);
    // metrics-server needs a few scrapes after the cluster starts, then the sampler a tick.
    await waitFor('history charts', async () => {
      await page.reload();
      await page.getByRole('heading', { name: /Resource history/ }).waitFor();
      return (await page.getByRole('img', { name: 'CPU chart' }).count()) > 0;
    }, 150_000, 3000).catch(async (err: unknown) => {
      await screenshot(page, 'history-failed');
      throw err;
    });
    await assertAccessible(page, 'history');
    await screenshot(page, 'history');

    await page.goto(`${dashboard.ui.url}/apps/new`);
    await page.getByLabel('Name').fill('Storefront');
    await page.getByLabel('shop').check();
    await page.getByLabel(/Label selector/).fill('app in (frontend, cart)');
    await page.getByText('18 pods').waitFor();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Storefront' }).waitFor();
    await page.getByRole('table').waitFor();
    await assertAccessible(page, 'application');
    await screenshot(page, 'application');

    for (const [path, heading] of [['/admin/users', 'Users'], ['/admin/access', 'Access control'], ['/admin/audit', 'Audit']] as const) {
      await page.goto(`${dashboard.ui.url}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      // Either may show first, and Access control shows both (its form and the OAuth clients'
      // table): the union's first, or Playwright's strict mode refuses two matches.
      await page.getByRole('table').first().or(page.getByRole('button', { name: /Save/ }).first()).first().waitFor();
      await assertAccessible(page, heading);
      await screenshot(page, `admin-${heading.toLowerCase().replace(/ /g, '-')}`);
    }
    await page.getByText(/Chain intact/).waitFor();
    await page.context().close();
  });

  it('says when a revoke fails, next to the action', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/account`);
    await page.getByRole('button', { name: /^End session/ }).first().waitFor();
    // The agent refuses the revoke (played by the test): the person must be told, not left guessing.
    const refusal = { error: 'unavailable', message: 'the agent could not revoke it just now' };
    await page.route('**/api/agent/me/sessions/**', (route) =>
      route.request().method() === 'DELETE' ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(refusal) }) : route.fallback(),
    );
    await page.getByRole('button', { name: /^End session/ }).first().click();
    await page.getByRole('alert').filter({ hasText: refusal.message }).waitFor();
    await screenshot(page, 'account-revoke-failed');
    await page.context().close();
  });

  it('formats every timestamp: relative, with the absolute time on hover, never a raw ISO string', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    const iso = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
    for (const [path, ready] of [['/account', page.getByRole('heading', { name: 'Active sessions' })], ['/admin/users', page.getByRole('table')], ['/admin/audit', page.getByRole('table')]] as const) {
      await page.goto(`${dashboard.ui.url}${path}`);
      await ready.waitFor();
      await page.locator('main time').first().waitFor();
      const text = await page.locator('main').innerText();
      assert.doesNotMatch(text, iso, `${path} shows a raw timestamp`);
      for (const time of await page.locator('main time').all()) {
        assert.match((await time.getAttribute('datetime')) ?? '', iso, `${path}: machine-readable time`);
        assert.ok(((await time.getAttribute('title')) ?? '') !== '', `${path}: absolute time on hover`);
      }
    }
    await page.context().close();
  });

  it("asks before deactivating a user, saying it revokes their API keys and connected apps", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD);
    await page.goto(`${dashboard.ui.url}/admin/users`);
    await page.getByLabel('Username').fill('leaver');
    await page.getByLabel(/^Password/).fill('leaver-password');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('cell', { name: 'leaver', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Deactivate leaver' }).click();
    await page.getByText('Deactivating leaver signs them out and revokes their API keys and connected apps; reactivating does not restore them.').waitFor();
    await assertAccessible(page, 'deactivation confirmation');
    await screenshot(page, 'admin-users-deactivate');
    await page.getByRole('button', { name: 'Yes, deactivate leaver' }).click();
    await page.getByRole('button', { name: 'Reactivate leaver' }).waitFor();
    await page.context().close();
  });

  it('keeps admin screens from a viewer: no links, and the agent refuses them', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'viewer', VIEWER_PASSWORD);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'Users' }).count(), 0);
    assert.equal(await nav.getByRole('link', { name: 'Audit' }).count(), 0);
    await page.goto(`${dashboard.ui.url}/admin/users`);
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    await screenshot(page, 'viewer-denied');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Capstan' }).waitFor();
    await page.context().close();
  });
});
