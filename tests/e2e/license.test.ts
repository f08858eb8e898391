// Admin → License in real Chromium through `capstan ui`'s proxy against a real agent that
// trusts the test's own issuer: Free with no key, a pasted Pro key in force at once with its
// licensee and features, a refused key's reason next to the form, removal back to Free, and
// an accessibility scan of each state.
import { describe, it } from 'node:test';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn } from '../support/browser.ts';
import { testIssuer } from '../support/license-keys.ts';

const ADMIN_PASSWORD = 'license-e2e-admin-password';
const issuer = testIssuer();
const dashboard = dashboardForFile('license-e2e', { accounts: { adminPassword: ADMIN_PASSWORD }, license: { publicKeyPem: issuer.publicKeyPem } });

describe('Admin → License', () => {
  it('installs a key, says why one is refused, and removes it', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await page.getByRole('link', { name: 'License' }).click();
    await page.getByRole('heading', { name: 'License', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Tier in force: free' }).waitFor();
    await page.getByText('No license key installed').waitFor();
    await assertAccessible(page, 'license (free)');

    await page.getByLabel(/License key/).fill(testIssuer().key());
    await page.getByRole('button', { name: 'Install key' }).click();
    await page.getByText(/signature does not verify/).waitFor();

    await page.getByLabel(/License key/).fill(issuer.key({ tier: 'pro', licensee: 'E2E Corp', id: 'lic_e2e' }));
    await page.getByRole('button', { name: 'Install key' }).click();
    await page.getByRole('heading', { name: 'Tier in force: pro' }).waitFor();
    await page.getByText('E2E Corp').waitFor();
    await page.getByText('mcp, observability, copilot, self_scan').waitFor();
    await assertAccessible(page, 'license (pro)');
    await screenshot(page, 'admin-license');

    await page.getByRole('button', { name: 'Remove license key' }).click();
    await page.getByRole('button', { name: 'Yes, remove the key' }).click();
    await page.getByRole('heading', { name: 'Tier in force: free' }).waitFor();
    await page.context().close();
  });
});
