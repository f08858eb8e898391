// Debian's chromium driven by playwright-core: never a browser download, a fresh profile per
// launch (Playwright's own temporary one), and screenshots saved where a person can look at them (test/artifacts/, git-ignored).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { AgentOptions, RunningAgent } from '../../runtime/agent.ts';
import { startUiServer, type RunningUi } from '../../ui/server.ts';
import { startTestAgent } from './cluster.ts';

export const ARTIFACTS = join(process.cwd(), 'test', 'artifacts');

export function chromiumPath(): string {
  return process.env.CAPSTAN_CHROMIUM ?? '/usr/bin/chromium';
}

/** Playwright gives every launch a fresh, temporary user-data dir of its own. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export async function newContext(browser: Browser, width = 1280): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width, height: 900 }, colorScheme: 'light' });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2 A/AA rules over the page; evaluated through the DevTools protocol, so the page's CSP stays on. */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, not a function: it runs in the page, whose DOM types the Node side lacks.
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))
  `);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Fails with every serious or critical WCAG violation on the page, named by screen. */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  const violations = await accessibilityViolations(page);
  assert.deepEqual(violations, [], `${screen}: ${JSON.stringify(violations, null, 2)}`);
}

/** Signs in through the dashboard's form at `uiUrl` and waits for the overview. */
export async function signIn(page: Page, uiUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${uiUrl}/overview`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  // Exact: with OIDC or SAML on, "Sign in with OIDC" sits beside the form's own button.
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

export interface DashboardUnderTest {
  readonly agent: RunningAgent;
  readonly ui: RunningUi;
  readonly browser: Browser;
}

/**
 * A browser test file's fixture: a real agent on the suite's cluster (trusting the dashboard
 * as its proxy), `capstan ui` in front of it and Chromium, started in the file's `before` and
 * closed in its `after`; read the parts inside a test.
 */
export function dashboardForFile(name: string, options: Partial<AgentOptions>): DashboardUnderTest {
  let parts: DashboardUnderTest | null = null;
  const started = (): DashboardUnderTest => {
    if (parts === null) throw new Error('the dashboard starts in before(): use it inside a test');
    return parts;
  };
  before(async () => {
    const agent = await startTestAgent(name, { trustedProxyCidrs: '127.0.0.1/32', ...options });
    const ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl: agent.url });
    parts = { agent, ui, browser: await launchBrowser() };
  });
  after(async () => {
    await parts?.browser.close();
    await parts?.ui.close();
    await parts?.agent.close();
  });
  return {
    get agent() {
      return started().agent;
    },
    get ui() {
      return started().ui;
    },
    get browser() {
      return started().browser;
    },
  };
}
