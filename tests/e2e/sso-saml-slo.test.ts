// SAML single logout in real Chromium through `capstan ui`'s proxy against a real agent
// (Enterprise install key from the test's own issuer) and Debian's SimpleSAMLphp
// (tests/support/simplesamlphp.ts): an admin configures SAML in Admin → SSO from the IdP's
// metadata with a generated SP keypair; a SimpleSAMLphp user signs in through its own login
// form; the dashboard's Sign out then goes through single logout (the agent's signed
// LogoutRequest, SimpleSAMLphp's signed LogoutResponse back to the agent) and lands on the
// sign-in page, after which signing in with SAML asks SimpleSAMLphp for the password again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { launchBrowser, newContext, screenshot, signIn } from '../support/browser.ts';
import { startTestAgent } from '../support/cluster.ts';
import { testIssuer } from '../support/license-keys.ts';
import { freeLoopbackPort } from '../support/ports.ts';
import { startSimpleSamlPhp, type SimpleSamlPhp } from '../support/simplesamlphp.ts';

const ADMIN_PASSWORD = 'sso-saml-slo-e2e-admin-password';
const ERIN = { name: 'erin', password: 'erin password', email: 'erin@example.com', groups: ['staff'] };
const issuer = testIssuer();

// Undefined until before() got that far, so after() stops exactly what started.
let idp: SimpleSamlPhp | undefined;
let agent: RunningAgent | undefined;
let ui: RunningUi | undefined;
let browser: Browser | undefined;
let publicUrl = '';

before(async () => {
  const port = await freeLoopbackPort();
  publicUrl = `http://127.0.0.1:${port}`;
  idp = await startSimpleSamlPhp([ERIN]);
  agent = await startTestAgent('sso-saml-slo-e2e', {
    trustedProxyCidrs: '127.0.0.1/32',
    accounts: { adminPassword: ADMIN_PASSWORD },
    license: { publicKeyPem: issuer.publicKeyPem, key: issuer.key({ tier: 'enterprise', licensee: 'E2E Corp', id: 'lic_sso_saml_slo_e2e' }) },
    ssoPublicUrl: publicUrl,
  });
  ui = await startUiServer({ hostname: '127.0.0.1', port, agentUrl: agent.url });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await ui?.close();
  await agent?.close();
  await idp?.stop();
});

function started() {
  if (!idp || !ui || !browser) throw new Error('the fixture starts in before()');
  return { idp, ui, browser };
}

describe('SAML single logout in the dashboard', () => {
  it('signs a SimpleSAMLphp user in and, on Sign out, out of Capstan and the IdP', async () => {
    const { idp, ui, browser } = started();
    const page = await (await newContext(browser)).newPage();
    await signIn(page, ui.url, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'SSO' }).click();
    const saml = page.getByRole('form', { name: /SAML 2\.0/ });
    assert.equal(await saml.getByLabel('Public URL of this dashboard').inputValue(), publicUrl);
    await saml.getByLabel('IdP metadata XML').fill(await idp.metadata());
    await saml.getByLabel(/Generate a keypair/).check();
    // SimpleSAMLphp here signs its assertions without encrypting them.
    await saml.getByLabel(/refuse assertions that are not encrypted/).uncheck();
    await saml.getByLabel('Email attribute').fill('mail');
    await saml.getByLabel('Groups attribute').fill('groups');
    await saml.getByRole('button', { name: 'Save and turn SAML on' }).click();
    await page.getByRole('heading', { name: 'SAML 2.0 (on)' }).waitFor();
    // The IdP is given the SP metadata the agent publishes (single logout, the SP certificate).
    const metadata = await fetch(`${ui.url}/api/agent/auth/saml/metadata`);
    assert.equal(metadata.status, 200);
    const xml = await metadata.text();
    assert.match(xml, /SingleLogoutService/);
    idp.putServiceProvider(xml);
    await page.getByRole('button', { name: 'Sign out' }).click();

    // Sign in with SAML through SimpleSAMLphp's own form.
    await page.goto(`${ui.url}/overview`);
    await page.getByRole('button', { name: 'Sign in with SAML' }).click();
    await page.waitForURL((url) => url.origin === new URL(idp.url).origin, { timeout: 15_000 });
    await page.locator('input[name="username"]').fill(ERIN.name);
    await page.locator('input[name="password"]').fill(ERIN.password);
    await page.locator('input[name="password"]').press('Enter');
    await page.getByRole('link', { name: 'erin@example.com (viewer)' }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'saml-signed-in');

    // Sign out: the agent ends the session and asks the IdP, which answers the agent's SLO endpoint.
    const slo: { method: string; status: number }[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/agent/auth/saml/slo') slo.push({ method: r.request().method(), status: r.status() });
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with SAML' }).waitFor({ timeout: 15_000 });
    assert.equal(new URL(page.url()).origin, publicUrl, 'back on the dashboard');
    assert.deepEqual(slo, [{ method: 'GET', status: 302 }], "the IdP's LogoutResponse reached the agent's SingleLogoutService and was accepted");
    const me = await page.request.get(`${ui.url}/api/agent/me`);
    assert.equal(me.status(), 401, 'the Capstan session is gone');

    // The IdP session is gone too: SAML sign-in asks for the password again.
    await page.getByRole('button', { name: 'Sign in with SAML' }).click();
    await page.waitForURL((url) => url.origin === new URL(idp.url).origin, { timeout: 15_000 });
    await page.locator('input[name="password"]').waitFor();
    await page.context().close();
  });
});
