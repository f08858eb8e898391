// LDAP sign-in in real Chromium through `capstan ui`'s proxy against a real agent (Enterprise
// install key from the test's own issuer) and a real slapd: an admin configures LDAP on
// Admin → SSO and tries it with a directory user; the sign-in page then offers the directory,
// a directory user signs in, their group appears in Groups, and the admin making that group
// admin changes the user's role in their open session; the role new groups get is set on the
// Groups card, and a hand-set role is pinned on Admin → Users and un-pinned back to the group's.
// Accessibility scan of each screen.
import { after, before, describe, it } from 'node:test';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn } from '../support/browser.ts';
import { testIssuer } from '../support/license-keys.ts';
import { GROUPS_DN, PEOPLE_DN, startSlapd, type Slapd } from '../support/slapd.ts';

const ADMIN_PASSWORD = 'sso-e2e-admin-password';
const issuer = testIssuer();
let slapd: Slapd;
before(async () => {
  slapd = await startSlapd([{ uid: 'alice', password: 'alice password', mail: 'alice@example.com' }], [{ cn: 'ops', members: ['alice'] }]);
});
after(async () => {
  await slapd.stop();
});
const dashboard = dashboardForFile('sso-e2e', {
  accounts: { adminPassword: ADMIN_PASSWORD },
  license: { publicKeyPem: issuer.publicKeyPem, key: issuer.key({ tier: 'enterprise', licensee: 'E2E Corp', id: 'lic_sso_e2e' }) },
});

describe('LDAP sign-in in the dashboard', () => {
  it('configures LDAP, signs a directory user in, and maps their group to admin', async () => {
    const adminPage = await (await newContext(dashboard.browser)).newPage();
    await signIn(adminPage, dashboard.ui.url, 'admin', ADMIN_PASSWORD);
    await adminPage.getByRole('link', { name: 'SSO' }).click();
    await adminPage.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
    await adminPage.getByRole('heading', { name: 'LDAP (not configured)' }).waitFor();
    await adminPage.getByLabel(/Directory URL/).fill(slapd.ldapsUrl);
    await adminPage.getByLabel(/User DN template/).fill(`uid={username},${PEOPLE_DN}`);
    await adminPage.getByLabel(/Group search base/).fill(GROUPS_DN);
    await adminPage.getByLabel(/CA certificate/).fill(slapd.caPem);
    await adminPage.getByLabel('Test username').fill('alice');
    await adminPage.getByLabel('Test password').fill('alice password');
    await adminPage.getByRole('button', { name: 'Test sign-in' }).click();
    await adminPage.getByText(/groups: ops; role: viewer/).waitFor();
    await adminPage.getByRole('button', { name: 'Save and turn LDAP on' }).click();
    await adminPage.getByRole('heading', { name: 'LDAP (on)' }).waitFor();
    await assertAccessible(adminPage, 'admin sso');
    await screenshot(adminPage, 'admin-sso');

    const userPage = await (await newContext(dashboard.browser)).newPage();
    await userPage.goto(`${dashboard.ui.url}/overview`);
    await userPage.getByRole('group', { name: 'Sign in with' }).waitFor();
    await assertAccessible(userPage, 'sign-in with LDAP');
    await userPage.getByLabel('Directory account (LDAP)').check();
    await userPage.getByLabel('Username').fill('alice');
    await userPage.getByLabel('Password').fill('wrong password');
    await userPage.getByRole('button', { name: 'Sign in' }).click();
    await userPage.getByRole('alert').getByText('wrong username or password').waitFor();
    await userPage.getByLabel('Password').fill('alice password');
    await userPage.getByRole('button', { name: 'Sign in' }).click();
    await userPage.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await userPage.getByRole('link', { name: 'alice@example.com (viewer)' }).waitFor();

    await adminPage.reload();
    await adminPage.getByRole('cell', { name: 'ops' }).waitFor();
    const changed = adminPage.waitForResponse((r) => r.url().endsWith('/admin/groups/ldap/ops') && r.request().method() === 'PUT' && r.status() === 200);
    await adminPage.getByLabel('Role of ops').selectOption('admin');
    await changed;
    await userPage.reload();
    await userPage.getByRole('link', { name: 'alice@example.com (admin)' }).waitFor();

    // The role new groups get: set on the Groups card, answered by the agent.
    const defaulted = adminPage.waitForResponse((r) => r.url().endsWith('/admin/groups/default-role') && r.request().method() === 'PUT' && r.status() === 200);
    await adminPage.getByLabel('Role of new groups').selectOption('admin');
    await defaulted;
    await adminPage.reload();
    await adminPage.getByLabel('Role of new groups').waitFor();
    if ((await adminPage.getByLabel('Role of new groups').inputValue()) !== 'admin') throw new Error('the default role did not stay admin');

    // Admin → Users: a hand-set role is pinned, and un-pinning gives the groups the say again.
    await adminPage.getByRole('link', { name: 'Users' }).click();
    await adminPage.getByText('from ldap groups').waitFor();
    await adminPage.getByLabel('Role of alice@example.com').selectOption('viewer');
    await adminPage.getByText('set by hand (sign-ins leave it)').waitFor();
    await userPage.reload();
    await userPage.getByRole('link', { name: 'alice@example.com (viewer)' }).waitFor();
    await assertAccessible(adminPage, 'admin users with a pinned SSO role');
    const unpinned = adminPage.waitForResponse((r) => /\/admin\/users\/alice(%40|@)example\.com\/role-pin$/.test(r.url()) && r.request().method() === 'DELETE' && r.status() === 200);
    await adminPage.getByRole('button', { name: 'Follow ldap groups again' }).click();
    await unpinned;
    await adminPage.getByText('from ldap groups').waitFor();
    await userPage.reload();
    await userPage.getByRole('link', { name: 'alice@example.com (admin)' }).waitFor();
    await adminPage.context().close();
    await userPage.context().close();
  });
});
