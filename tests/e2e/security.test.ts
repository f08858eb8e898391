// The Security screen and a workload's findings in real Chromium against a real agent on the
// demo scenario, through `capstan ui`'s proxy: the grade and its inputs, the findings table
// (a severity filter narrows it and lives in the URL, server paging and its clamp, grouping by
// image), a CSV export that parses, Scan now and the trend it feeds (and a refusal's reason), the Security section of a
// Deployment's page, a viewer without Scan now, and an accessibility scan of each.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { assertAccessible, dashboardForFile, newContext, screenshot, signIn as signInAt } from '../support/browser.ts';

const ADMIN_PASSWORD = 'security-e2e-admin-password';
const VIEWER_PASSWORD = 'security-e2e-viewer-password';

const dashboard = dashboardForFile('security-e2e', { accounts: { adminPassword: ADMIN_PASSWORD, viewerPassword: VIEWER_PASSWORD } });
const signIn = (page: Page, user: 'admin' | 'viewer' = 'admin') => signInAt(page, dashboard.ui.url, user, user === 'admin' ? ADMIN_PASSWORD : VIEWER_PASSWORD);

interface Misconfig {
  id: string;
  namespace: string;
  workload: string;
  workload_kind: string;
  check_id: string;
  severity: string;
  remediation: string;
}
interface FindingsAnswer {
  vulns: unknown[];
  misconfigs: Misconfig[];
  total?: number;
  groups?: { image: string }[];
}

/** An attribute of every element the locator matches, in document order. */
async function attributes(locator: Locator, name: string): Promise<string[]> {
  const values: string[] = [];
  for (const element of await locator.all()) values.push((await element.getAttribute(name)) ?? '');
  return values;
}

/** The agent's own answer, read with the page's session, to compare the screen against. */
async function agent<T>(page: Page, path: string): Promise<T> {
  const answer = await page.request.get(`${dashboard.ui.url}/api/agent${path}`);
  assert.equal(answer.status(), 200, `${path}: ${await answer.text()}`);
  return (await answer.json()) as T;
}

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks. Throws on a stray quote. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted && c === '"' && text.charAt(i + 1) === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted) {
      field += c;
    } else if (c === '"') {
      if (field !== '') throw new Error(`a quote inside an unquoted field at ${i}`);
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text.charAt(i + 1) === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error('an unterminated quoted field');
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

describe('security screen in Chromium', () => {
  it('shows the grade, filters findings by severity through the URL, pages on the agent and groups by image', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();

    const posture = await agent<{ grade: string; score: number; workloads_covered: number; by_severity: Record<string, number>; checks: { passed: number } }>(page, '/security/posture');
    assert.ok(posture.workloads_covered > 0, 'the demo has workloads to grade');
    assert.equal(await page.getByTestId('grade').textContent(), posture.grade);
    assert.equal(await page.getByTestId('score').textContent(), String(posture.score));
    assert.equal(await page.getByTestId('workloads-covered').textContent(), String(posture.workloads_covered));
    await page.getByText(`⌊100 × 2·${posture.checks.passed} /`).waitFor();
    // The bars carry their numbers as text: the HIGH row says its count.
    const bars = page.getByRole('table', { name: 'Failed checks by severity' });
    assert.equal(await bars.getByRole('row', { name: /^HIGH/ }).getByRole('cell').first().textContent(), String(posture.by_severity.HIGH));

    const findings = page.getByRole('table', { name: 'Findings' });
    await findings.locator('tbody tr').first().waitFor();
    const all = await agent<FindingsAnswer>(page, '/security/findings?page=1');
    const total = all.total ?? 0;
    assert.ok(total > 50, `the demo has more than a page of findings (${total})`);
    await page.getByTestId('findings-total').filter({ hasText: `${total} findings match` }).waitFor();
    assert.equal(await findings.locator('tbody tr').count(), 50, 'the default page size');
    await assertAccessible(page, 'security');
    await screenshot(page, 'security');

    // A severity that some but not all findings have narrows the table, and the URL says so.
    const severity = (['HIGH', 'MEDIUM', 'LOW', 'CRITICAL'] as const).find((s) => (posture.by_severity[s] ?? 0) > 0 && (posture.by_severity[s] ?? 0) < total);
    assert.ok(severity, JSON.stringify(posture.by_severity));
    const narrowed = (await agent<FindingsAnswer>(page, `/security/findings?severity=${severity}&page=1`)).total ?? 0;
    await page.getByLabel('Severity').selectOption(severity);
    await page.getByTestId('findings-total').filter({ hasText: `${narrowed} findings match` }).waitFor();
    assert.match(page.url(), new RegExp(`/security\\?severity=${severity}$`));
    const severities = await attributes(findings.locator('tbody tr'), 'data-severity');
    assert.ok(severities.length > 0 && severities.every((s) => s === severity), JSON.stringify(severities));
    // The same URL in a fresh load shows the same view.
    await page.reload();
    await page.getByTestId('findings-total').filter({ hasText: `${narrowed} findings match` }).waitFor();
    assert.equal(await page.getByLabel('Severity').inputValue(), severity);

    // Paging: 25 a page, the next page, and a page past the end clamped to the last.
    await page.goto(`${dashboard.ui.url}/security`);
    await page.getByLabel('Rows per page').selectOption('25');
    const pages = Math.ceil(total / 25);
    await page.getByText(`Page 1 of ${pages} · showing 1–25 of ${total}`).waitFor();
    const firstOfPage1 = await findings.locator('tbody tr').first().textContent();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText(`Page 2 of ${pages} · showing 26–50 of ${total}`).waitFor();
    assert.match(page.url(), /page_size=25/);
    assert.match(page.url(), /page=2/);
    assert.notEqual(await findings.locator('tbody tr').first().textContent(), firstOfPage1);
    await page.goto(`${dashboard.ui.url}/security?page=9999&page_size=25`);
    await page.getByText(`Page ${pages} of ${pages} · showing ${(pages - 1) * 25 + 1}–${total} of ${total}`).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);

    // Group by image: the groups the agent counts, or the empty state when no vulnerability matches.
    await page.getByLabel('Group by image').check();
    await page.getByRole('heading', { name: 'By image' }).waitFor();
    assert.match(page.url(), /group_by=image/);
    const groups = (await agent<FindingsAnswer>(page, '/security/findings?group_by=image&page=1')).groups ?? [];
    if (groups.length === 0) await page.getByText(/No vulnerability matches, so no image to group/).waitFor();
    else assert.equal(await page.getByRole('table', { name: 'Vulnerabilities by image' }).locator('tbody tr').count(), groups.length);
    await assertAccessible(page, 'security grouped by image');
    await screenshot(page, 'security-by-image');
    await page.getByRole('button', { name: /Switch to dark theme/ }).click();
    await assertAccessible(page, 'security (dark)');
    await screenshot(page, 'security-dark');
    await page.context().close();
  });

  it('exports the filtered misconfigurations as a CSV that parses, one row per match', async () => {
    const context = await newContext(dashboard.browser);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${dashboard.ui.url}/security?namespace=shop`);
    await page.getByRole('table', { name: 'Findings' }).locator('tbody tr').first().waitFor();
    const expected = await agent<FindingsAnswer>(page, '/security/findings?namespace=shop&kind=misconfig');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV (misconfigurations)' }).click()]);
    assert.equal(download.url().endsWith('/security/findings/export?format=csv&namespace=shop&kind=misconfig'), true, download.url());
    const path = await download.path();
    const records = parseCsv(await readFile(path, 'utf8'));
    const [header, ...rows] = records;
    assert.deepEqual(header, ['namespace', 'workload', 'check_id', 'severity', 'message', 'resource', 'source']);
    assert.equal(rows.length, expected.misconfigs.length, 'one row per matching misconfiguration');
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.equal(row.length, header.length, JSON.stringify(row));
      assert.equal(row[0], 'shop');
    }
    assert.deepEqual(
      rows.map((r) => r[2]).sort(),
      expected.misconfigs.map((m) => m.check_id).sort(),
    );
    await context.close();
  });

  it("lists a Deployment's own findings on its page, worst first, with remediation", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    const { misconfigs } = await agent<FindingsAnswer>(page, '/security/findings?namespace=shop');
    const own = misconfigs.filter((m) => m.workload === 'checkout' && m.workload_kind === 'Deployment');
    assert.ok(own.length > 0, 'the demo checkout Deployment fails some checks');
    await page.goto(`${dashboard.ui.url}/graph/${encodeURIComponent('deployment:shop/checkout')}`);
    await page.getByRole('heading', { name: 'Deployment checkout', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Security' });
    await section.getByText(`${own.length} ${own.length === 1 ? 'finding' : 'findings'} on Deployment checkout`).waitFor();
    const items = section.locator('li.security-finding');
    assert.equal(await items.count(), own.length);
    const order = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'];
    const shown = await attributes(items, 'data-severity');
    const ranks = shown.map((s) => order.indexOf(s));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'worst first');
    const first = own.find((m) => m.severity === shown[0]);
    assert.ok(first);
    await section.getByText(first.remediation).first().waitFor();
    await assertAccessible(page, 'workload security');
    await screenshot(page, 'workload-security');
    await section.getByRole('link', { name: 'Open in Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    assert.match(page.url(), /\/security\?namespace=shop&search=checkout$/);
    await page.getByRole('table', { name: 'Findings' }).locator('tbody tr').first().waitFor();
    await page.context().close();
  });

  it('starts a scan for an admin, shows it running and done, and draws the trend it adds', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    await page.goto(`${dashboard.ui.url}/security`);
    await page.getByRole('heading', { name: 'Score trend' }).waitFor();
    // The demo agent scans with the defaults (enabled, mode auto, no trivy-operator): the
    // built-in checks only, which a run stores at once.
    const started = page.waitForResponse((r) => r.url().endsWith('/api/agent/security/scan') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Scan now' }).click();
    const answer = await started;
    assert.equal(answer.status(), 200, await answer.text());
    const { job_name } = (await answer.json()) as { job_name: string };
    await page.getByTestId('scan-state').filter({ hasText: job_name }).waitFor();
    await page.getByTestId('scan-state').filter({ hasText: /: succeeded · score \d+ \([A-F][+-]?\)/ }).waitFor({ timeout: 60_000 });
    await page.getByRole('img', { name: /^Score trend: (One scan|\d+ scans): score \d+/ }).waitFor();
    await assertAccessible(page, 'security after a scan');
    await screenshot(page, 'security-scan');
    await page.context().close();
  });

  it("shows a refused scan's reason next to the button", async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page);
    await page.goto(`${dashboard.ui.url}/security`);
    await page.getByTestId('grade').waitFor();
    // The agent's refusal when security.scanning.enabled=false (played by the test: this agent has scanning on).
    const refusal = { error: 'forbidden', message: 'scanning is disabled (security.scanning.enabled=false): POST /security/scan is refused' };
    await page.route('**/api/agent/security/scan', (route) =>
      route.request().method() === 'POST' ? route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify(refusal) }) : route.fallback(),
    );
    await page.getByRole('button', { name: 'Scan now' }).click();
    await page.getByRole('alert').filter({ hasText: `Scan refused: ${refusal.message}` }).waitFor();
    await assertAccessible(page, 'security scan refused');
    await page.context().close();
  });

  it('offers a viewer no Scan now', async () => {
    const page = await (await newContext(dashboard.browser)).newPage();
    await signIn(page, 'viewer');
    await page.goto(`${dashboard.ui.url}/security`);
    await page.getByTestId('grade').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Scan now' }).count(), 0);
    await page.context().close();
  });
});
