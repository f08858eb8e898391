// OIDC sign-in in real Chromium through `capstan ui`'s proxy against a real agent (Enterprise
// install key from the test's own issuer) and a real dex (tests/support/dex.ts): the agent is
// installed with sso.publicUrl set to the dashboard's origin, so Admin → SSO prefills it and
// shows the redirect URI dex has registered; an admin configures OIDC there (a wrong issuer is
// refused beside its field first), signs out, and on the sign-in page the OIDC button takes the
// browser through dex's own login form and back to Capstan signed in as the dex user, whose dex
// group, made admin in Admin → Groups, makes them admin in their open session. A refused callback
// shows its reason on the sign-in page. SAML is configured
// by hand beside it (a generated SP keypair) and offered on the sign-in page too. Without an
// Enterprise license (a second agent on the Free tier), saving shows the upgrade card.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { assertAccessible, dashboardForFile, launchBrowser, newContext, screenshot, signIn } from '../support/browser.ts';
import { startTestAgent } from '../support/cluster.ts';
import { startDex, type Dex } from '../support/dex.ts';
import { testIssuer } from '../support/license-keys.ts';
import { freeLoopbackPort } from '../support/ports.ts';

const ADMIN_PASSWORD = 'sso-oidc-e2e-admin-password';
const CLIENT = { id: 'capstan-dashboard', secret: 'dex client secret for the dashboard' };
const ANN = { email: 'ann@example.com', password: 'ann password', userId: 'ann', groups: ['capstan-admins'] };
const issuer = testIssuer();

/** A throwaway IdP signing certificate (openssl, as tests/support/samlidp.ts makes its own). */
function idpCertPem(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-sso-e2e-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=idp.example.com', '-sha256'], { stdio: 'ignore' });
    return readFileSync(join(dir, 'c.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Undefined until before() got that far, so after() stops exactly what started.
let dex: Dex | undefined;
let agent: RunningAgent | undefined;
let ui: RunningUi | undefined;
let browser: Browser | undefined;
let publicUrl = '';

before(async () => {
  // The dashboard's origin is fixed before anything starts: dex registers the redirect URI under
  // it and the agent is installed with it as sso.publicUrl, as the chart would set it.
  const port = await freeLoopbackPort();
  publicUrl = `http://127.0.0.1:${port}`;
  dex = await startDex([ANN], { ...CLIENT, redirectUri: `${publicUrl}/api/agent/auth/oidc/callback` });
  agent = await startTestAgent('sso-oidc-e2e', {
    trustedProxyCidrs: '127.0.0.1/32',
    accounts: { adminPassword: ADMIN_PASSWORD },
    license: { publicKeyPem: issuer.publicKeyPem, key: issuer.key({ tier: 'enterprise', licensee: 'E2E Corp', id: 'lic_sso_oidc_e2e' }) },
    ssoPublicUrl: publicUrl,
  });
  ui = await startUiServer({ hostname: '127.0.0.1', port, agentUrl: agent.url });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await ui?.close();
  await agent?.close();
  await dex?.stop();
});

function started() {
  if (!dex || !ui || !browser) throw new Error('the fixture starts in before()');
  return { dex, ui, browser };
}

describe('OIDC sign-in in the dashboard', () => {
  it('configures OIDC prefilled from sso.publicUrl, signs a dex user in through dex\'s form, and maps their group to admin', async () => {
    const { dex, ui, browser } = started();
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ui.url, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'SSO' }).click();
    await page.getByRole('heading', { name: 'OpenID Connect (not configured)' }).waitFor();
    const form = page.getByRole('form', { name: /OpenID Connect/ });
    assert.equal(await form.getByLabel('Public URL of this dashboard').inputValue(), publicUrl, 'prefilled from sso.publicUrl');
    await form.getByText('Prefilled: from sso.publicUrl').waitFor();
    await form.getByText(`${publicUrl}/api/agent/auth/oidc/callback`, { exact: true }).waitFor();
    // SAML's public URL is prefilled the same way, with the SP addresses to give the IdP.
    const saml = page.getByRole('form', { name: /SAML 2\.0/ });
    assert.equal(await saml.getByLabel('Public URL of this dashboard').inputValue(), publicUrl);
    await saml.getByText(`${publicUrl}/api/agent/auth/saml/acs`, { exact: true }).waitFor();

    // An issuer its discovery document does not name (a trailing slash counts): 400 beside the field.
    await form.getByLabel('Issuer URL').fill(`${dex.issuer}/`);
    await form.getByLabel('Client ID').fill(CLIENT.id);
    await form.getByLabel('Client secret').fill(CLIENT.secret);
    await form.getByRole('button', { name: 'Save and turn OIDC on' }).click();
    await form.getByRole('alert').filter({ hasText: /^issuer: / }).waitFor();
    assert.equal(await form.getByLabel('Issuer URL').getAttribute('aria-invalid'), 'true');
    await form.getByLabel('Issuer URL').fill(dex.issuer);
    await form.getByRole('button', { name: 'Save and turn OIDC on' }).click();
    await page.getByRole('heading', { name: 'OpenID Connect (on)' }).waitFor();
    // Stored: the secret is never shown again; blank keeps it.
    await form.getByLabel('Client secret (stored; leave blank to keep it)').waitFor();
    assert.equal(await form.getByLabel(/Client secret/).inputValue(), '');
    // SAML by hand beside it (its sign-in is proved against samlidp in tests/integration): the
    // IdP's URL and certificate, and a generated SP keypair whose key is never shown.
    await saml.getByLabel('IdP SSO URL (HTTP-Redirect binding)').fill('https://idp.example.com/sso');
    await saml.getByLabel('IdP signing certificate (PEM)').fill(idpCertPem());
    await saml.getByLabel(/Generate a keypair/).check();
    await saml.getByRole('button', { name: 'Save and turn SAML on' }).click();
    await page.getByRole('heading', { name: 'SAML 2.0 (on)' }).waitFor();
    await saml.getByText('SP keypair: stored (the key is never shown; saving keeps it)').waitFor();
    await saml.getByText(/^SP certificate/).click();
    await saml.getByText('-----BEGIN CERTIFICATE-----', { exact: false }).first().waitFor();
    await saml.getByText(`${publicUrl}/api/agent/auth/saml/slo`, { exact: true }).waitFor();
    await assertAccessible(page, 'admin sso with OIDC and SAML');
    await screenshot(page, 'admin-sso-oidc');

    // Signed out, the sign-in page offers OIDC; the button goes through dex's own form and back.
    await page.getByRole('button', { name: 'Sign out' }).click();
    // A refused callback (no flow cookie here: a stale or forged redirect) lands on the sign-in
    // page with the agent's reason as the page's error, not its JSON, and the query is cleared.
    await page.goto(`${ui.url}/api/agent/auth/oidc/callback?code=x&state=y`);
    await page.getByRole('alert').filter({ hasText: 'Single sign-on did not sign you in: no sign-in was started in this browser (the flow cookie is missing or expired)' }).waitFor();
    await page.waitForURL(`${ui.url}/sign-in`);
    await page.getByRole('button', { name: 'Sign in with OIDC' }).waitFor();
    await assertAccessible(page, 'sign-in showing a refused OIDC callback');
    await screenshot(page, 'oidc-callback-refused');
    await page.goto(`${ui.url}/overview`);
    await page.getByRole('button', { name: 'Sign in with OIDC' }).waitFor();
    await page.getByRole('button', { name: 'Sign in with SAML' }).waitFor();
    await assertAccessible(page, 'sign-in with OIDC and SAML');
    await page.getByRole('button', { name: 'Sign in with OIDC' }).click();
    await page.waitForURL((url) => url.origin === new URL(dex.issuer).origin, { timeout: 15_000 });
    await page.locator('input[name="login"]').fill(ANN.email);
    await page.locator('input[name="password"]').fill(ANN.password);
    await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${ui.url}/overview`, { timeout: 15_000 });
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'ann@example.com (viewer)' }).waitFor();
    await screenshot(page, 'oidc-signed-in');

    // The dex group appeared in Admin → Groups at that sign-in; made admin, Ann's session follows.
    const adminPage = await (await newContext(browser)).newPage();
    await signIn(adminPage, ui.url, 'admin', ADMIN_PASSWORD);
    await adminPage.getByRole('link', { name: 'SSO' }).click();
    await adminPage.getByRole('cell', { name: 'capstan-admins' }).waitFor();
    const changed = adminPage.waitForResponse((r) => r.url().endsWith('/admin/groups/oidc/capstan-admins') && r.request().method() === 'PUT' && r.status() === 200);
    await adminPage.getByLabel('Role of capstan-admins').selectOption('admin');
    await changed;
    await page.reload();
    await page.getByRole('link', { name: 'ann@example.com (admin)' }).waitFor();
    await page.getByRole('link', { name: 'SSO' }).waitFor();
    await adminPage.context().close();
    await page.context().close();
  });
});

// The same dashboard on the Free tier: configuring SSO is Enterprise, so the agent answers 402
// and each card shows the upgrade card where its error would be.
const free = dashboardForFile('sso-oidc-free-e2e', { accounts: { adminPassword: ADMIN_PASSWORD } });

describe('SSO cards without an Enterprise license', () => {
  it('show the upgrade card when saving', async () => {
    const page = await (await newContext(free.browser)).newPage();
    await signIn(page, free.ui.url, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'SSO' }).click();
    const form = page.getByRole('form', { name: /OpenID Connect/ });
    // sso.publicUrl not set: the page's own origin.
    assert.equal(await form.getByLabel('Public URL of this dashboard').inputValue(), free.ui.url);
    await form.getByText("Prefilled: this page's origin: sso.publicUrl is not set").waitFor();
    await form.getByLabel('Issuer URL').fill('https://login.example.com');
    await form.getByLabel('Client ID').fill('capstan');
    await form.getByLabel('Client secret').fill('secret');
    const refused = page.waitForResponse((r) => r.url().endsWith('/admin/sso/oidc') && r.request().method() === 'PUT');
    await form.getByRole('button', { name: 'Save and turn OIDC on' }).click();
    assert.equal((await refused).status(), 402);
    await form.getByRole('heading', { name: 'Upgrade to use sso' }).waitFor();
    await page.getByRole('heading', { name: 'OpenID Connect (not configured)' }).waitFor();
    await page.context().close();
  });
});
