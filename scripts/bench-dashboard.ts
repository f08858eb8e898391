// The dashboard part of `npm run bench`: what the browser downloads before the first screen
// (gzip, as served over a compressing ingress), how long a cold load of /overview takes in
// Debian's chromium on loopback, signed in, until the namespace table is on screen, and how
// long the Resources lists take to render a page (a 500-pod namespace's pods, every Event).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DEFAULT_DIST, startUiServer } from '../ui/server.ts';
import { launchBrowser } from '../tests/support/browser.ts';

export interface DashboardBench {
  initial_js_gzip_kib: number;
  initial_css_gzip_kib: number;
  all_js_gzip_kib: number;
  cold_load_overview_ms: { runs: number; median: number; max: number };
  /** Each list: navigation in the loaded app to its page's rows on screen; a run that failed is counted, never timed. */
  lists: ListRender[];
}

export interface ListRender {
  id: string;
  label: string;
  path: string;
  runs: number;
  errors: number;
  /** Rows on the page and the total the agent reported, from the last run. */
  rows: number;
  total: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

/** The lists measured: `podsNamespace` is one with about 500 pods (bench.ts makes it). */
export function listsToRender(podsNamespace: string): { id: string; label: string; path: string }[] {
  return [
    { id: 'pods-500', label: `Pods of ${podsNamespace} (500 pods, first page of 100)`, path: `/resources/pods?namespace=${podsNamespace}` },
    { id: 'events', label: 'Events, every namespace, newest first (first page of 100)', path: '/resources/events?sort=age' },
  ];
}

const percentile = (sorted: readonly number[], p: number): number | null => (sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0));

const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const gzipped = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

/** The scripts and stylesheets index.html references: what the first screen needs. */
export function bundleSizes(dist = DEFAULT_DIST): Omit<DashboardBench, 'cold_load_overview_ms' | 'lists'> {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const referenced = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
  const sum = (files: string[]) => files.reduce((n, f) => n + gzipped(join(dist, f)), 0);
  const assets = readdirSync(join(dist, 'assets')).filter((f) => statSync(join(dist, 'assets', f)).isFile());
  return {
    initial_js_gzip_kib: kib(sum(referenced.filter((f) => f.endsWith('.js')))),
    initial_css_gzip_kib: kib(sum(referenced.filter((f) => f.endsWith('.css')))),
    all_js_gzip_kib: kib(sum(assets.filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`))),
  };
}

export async function benchDashboard(agentUrl: string, username: string, password: string, podsNamespace: string, runs = 5, listRuns = 50): Promise<DashboardBench> {
  const ui = await startUiServer({ hostname: '127.0.0.1', port: 0, agentUrl });
  const browser = await launchBrowser();
  try {
    const login = await fetch(`${ui.url}/api/agent/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    const token = /capstan_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      // A new context each time: empty cache, nothing warm but the server.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies([{ name: 'capstan_session', value: token, url: ui.url }]);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`${ui.url}/overview`);
      await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });
      times.push(performance.now() - started);
      await context.close();
    }
    times.sort((a, b) => a - b);

    // The lists: one context with the app loaded (its assets cached, as for someone using it),
    // each run a navigation to the list until its page of rows is in the table. The first
    // run of each is a warm-up (the agent builds its sorted rows once per change) and not kept.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'capstan_session', value: token, url: ui.url }]);
    const page = await context.newPage();
    await page.goto(`${ui.url}/overview`);
    await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });
    const lists: ListRender[] = [];
    for (const list of listsToRender(podsNamespace)) {
      const taken: number[] = [];
      let errors = 0;
      let rows = 0;
      let total = 0;
      for (let i = 0; i <= listRuns; i++) {
        await page.goto(`${ui.url}/overview`);
        await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });
        const started = performance.now();
        try {
          // A client-side navigation, as a click in the app is: the router, the query, the table.
          // (A string: this file is compiled without the DOM's types.)
          await page.evaluate(`window.history.pushState(null, '', ${JSON.stringify(list.path)}); window.dispatchEvent(new PopStateEvent('popstate'));`);
          const counted = page.getByText(/^\d+ objects?/);
          await counted.waitFor({ timeout: 30_000 });
          total = Number(/^(\d+)/.exec((await counted.textContent()) ?? '')?.[1] ?? 0);
          const want = Math.min(100, total);
          await page.waitForFunction(`document.querySelectorAll('tbody tr').length >= ${want}`, undefined, { timeout: 30_000 });
          const elapsed = performance.now() - started;
          rows = await page.locator('tbody tr').count();
          if (i > 0) taken.push(elapsed);
        } catch {
          if (i > 0) errors++;
        }
      }
      taken.sort((a, b) => a - b);
      lists.push({ ...list, runs: listRuns, errors, rows, total, p50_ms: percentile(taken, 50), p99_ms: percentile(taken, 99) });
    }
    await context.close();
    return { ...bundleSizes(), cold_load_overview_ms: { runs, median: Math.round(times[Math.floor(runs / 2)] ?? 0), max: Math.round(times[runs - 1] ?? 0) }, lists };
  } finally {
    await browser.close();
    await ui.close();
  }
}
