// The expert pod as the real process (`capstan expert`) with the environment the chart gives
// its container, and a chart repository served over loopback (packages made by the real helm,
// index.yaml by `helm repo index`), for the Helm tests.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { k, serviceAccountKubeconfig, testCluster } from './cluster.ts';

const run = promisify(execFile);

export interface StartedExpert {
  url: string;
  process: ChildProcess;
  workDir: string;
  /** Everything it logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts `capstan expert` on a free loopback port, as the cluster-admin account of `kubeconfig`, accepting `caller` (namespace:name). */
export async function startExpertProcess(options: { kubeconfig: string; caller: string; helm: string; path: string; env?: Record<string, string> }): Promise<StartedExpert> {
  const workDir = mkdtempSync(join(tmpdir(), 'capstan-expert-'));
  const child = spawn(process.execPath, ['bin/capstan.js', 'expert', '--kubeconfig', options.kubeconfig], {
    env: {
      PATH: options.path,
      CAPSTAN_EXPERT_LISTEN: '127.0.0.1:0',
      CAPSTAN_EXPERT_AUDIENCE: 'capstan-expert',
      CAPSTAN_EXPERT_AGENT_SERVICE_ACCOUNT: options.caller,
      CAPSTAN_EXPERT_HELM: options.helm,
      CAPSTAN_EXPERT_WORK_DIR: workDir,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`capstan expert did not start: ${log}`)), 30_000);
    const check = () => {
      const found = /"url":"(http:\/\/127\.0\.0\.1:[0-9]+)"/.exec(log);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stderr.on('data', check);
    child.once('exit', (code) => reject(new Error(`capstan expert exited ${String(code)}: ${log}`)));
  });
  return {
    url,
    process: child,
    workDir,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface ChartRepository {
  url: string;
  close(): Promise<void>;
}

/** `chartDir` packaged at each of `versions` and indexed, served over loopback as a chart repository. */
export async function serveChartRepository(helm: string, chartDir: string, versions: readonly string[]): Promise<ChartRepository> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-charts-'));
  const home = mkdtempSync(join(tmpdir(), 'capstan-helm-home-'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  for (const version of versions) await run(helm, ['package', chartDir, '--version', version, '--destination', dir], { env });
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')).replace(/^\/+/, '');
    if (path.includes('..') || path === '') {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(join(dir, path));
      res.writeHead(200, { 'content-type': path.endsWith('.yaml') ? 'application/yaml' : 'application/gzip' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
  await run(helm, ['repo', 'index', dir, '--url', url], { env });
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface ProvisionedExpert {
  expert: StartedExpert;
  /** The agent's token for the expert audience, as the kubelet would project it. */
  tokenFile: string;
  /** `system:serviceaccount:<sys>:capstan-expert`: who the API server's audit log shows writing. */
  expertUser: string;
  /** A token of `account` in the release namespace for `audience` (TokenRequest). */
  token(account: string, audience: string): Promise<string>;
  remove(): Promise<void>;
}

/**
 * What `expertMode.enabled` sets up, on the suite's API server: in namespace `sys`, the agent's
 * ServiceAccount `capstan`, `capstan-expert` bound to cluster-admin, and `intruder` (an account
 * that is neither); `capstan expert` running as capstan-expert and accepting `sys:capstan`; and
 * the agent's token for the expert audience in a file.
 */
export async function provisionExpert(sys: string, options: { env?: Record<string, string> } = {}): Promise<ProvisionedExpert> {
  await k(['create', 'namespace', sys]);
  for (const account of ['capstan', 'capstan-expert', 'intruder']) await k(['create', 'serviceaccount', account, '-n', sys]);
  await k(['create', 'clusterrolebinding', `${sys}-expert`, '--clusterrole=cluster-admin', `--serviceaccount=${sys}:capstan-expert`]);
  const token = async (account: string, audience: string) => (await k(['create', 'token', account, '-n', sys, `--audience=${audience}`, '--duration=1h'])).trim();
  const expert = await startExpertProcess({ kubeconfig: await serviceAccountKubeconfig('capstan-expert', sys), caller: `${sys}:capstan`, helm: join(testCluster().binDir, 'helm'), path: '/usr/bin:/bin', env: options.env });
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'capstan-expert-token-')), 'token');
  writeFileSync(tokenFile, await token('capstan', 'capstan-expert'), { mode: 0o600 });
  return {
    expert,
    tokenFile,
    expertUser: `system:serviceaccount:${sys}:capstan-expert`,
    token,
    async remove() {
      await expert.stop();
      await k(['delete', 'clusterrolebinding', `${sys}-expert`, '--ignore-not-found']);
      await k(['delete', 'namespace', sys, '--wait=false']);
    },
  };
}
