// The dashboard part of `npm run bench`: what the browser downloads before the first screen
// (gzip, as served over a compressing ingress) and how long a cold load of /overview takes in
// Debian's chromium on loopback, signed in, until the namespace table is on screen.
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
}

const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const gzipped = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

/** The scripts and stylesheets index.html references: what the first screen needs. */
export function bundleSizes(dist = DEFAULT_DIST): Omit<DashboardBench, 'cold_load_overview_ms'> {
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

export async function benchDashboard(agentUrl: string, username: string, password: string, runs = 5): Promise<DashboardBench> {
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
    return { ...bundleSizes(), cold_load_overview_ms: { runs, median: Math.round(times[Math.floor(runs / 2)] ?? 0), max: Math.round(times[runs - 1] ?? 0) } };
  } finally {
    await browser.close();
    await ui.close();
  }
}
