// `npm run bench:profile -- --kubeconfig K [--path P] [--cred key|session] [--requests N] [--concurrency C] [--tree DIR]`
// CPU-profiles the agent of this tree on one authenticated read (issue 13 item 4): starts it
// with `node --cpu-prof` against the cluster K (any running one: `capstan localcluster up
// --scenario scale-5000`), signs in, mints an API key, sends N requests at concurrency C,
// stops it, and prints where the main thread's samples went (scripts/cpu-profile-summary.ts).
// Start-up is in the profile too (its own row): use enough requests that it is small.
// `--tree` profiles the agent of another checkout (a worktree of an older commit) the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closedLoop } from './bench-load.ts';
import { markdownShares, summarise } from './cpu-profile-summary.ts';

const PASSWORD = 'profile-admin-password';
const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    path: { type: 'string', default: '/namespaces/tenant-025/pods' },
    cred: { type: 'string', default: 'key' },
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '10' },
    tree: { type: 'string', default: '.' },
  },
});
if (values.kubeconfig === undefined) throw new Error('--kubeconfig is required (a running cluster, e.g. capstan localcluster up --scenario scale-5000)');

const dir = mkdtempSync(join(tmpdir(), 'capstan-profile-'));
const agent = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', join(dir, 'prof'), join(values.tree, 'bin/capstan.js'), 'agent', '--kubeconfig', values.kubeconfig, '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data')], {
  env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD, CAPSTAN_RATE_LIMITS: 'read=10000000', CAPSTAN_MAX_IN_FLIGHT: '1024' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    agent.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /"message":"agent listening","url":"([^"]+)"/.exec(log);
      if (match?.[1]) resolve(match[1]);
    });
    agent.on('exit', (code) => reject(new Error(`agent exited (${String(code)}): ${log.slice(-2000)}`)));
  });
  for (let ready = false; !ready; ) {
    ready = (await fetch(`${url}/readyz`)).ok;
    if (!ready) await new Promise((r) => setTimeout(r, 200));
  }
  const login = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const minted = (await (await fetch(`${url}/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'profile', scopes: ['workloads:read', 'topology:read', 'mcp:read'] }) })).json()) as { key: string };
  const headers: Record<string, string> = values.cred === 'session' ? { cookie } : { 'x-api-key': minted.key };
  const result = await closedLoop(() => fetch(url + values.path, { headers }), Number(values.concurrency), Number(values.requests));
  process.stderr.write(`profile: ${values.path} with ${values.cred}: ${JSON.stringify(result)}\n`);
  agent.kill('SIGTERM');
  await new Promise((resolve) => agent.once('exit', resolve));
  const main = readdirSync(join(dir, 'prof')).filter((f) => f.endsWith('.cpuprofile')).sort()[0];
  if (main === undefined) throw new Error('the agent wrote no profile');
  process.stdout.write(`${markdownShares(summarise(JSON.parse(readFileSync(join(dir, 'prof', main), 'utf8')) as Parameters<typeof summarise>[0]))}\n`);
} finally {
  if (agent.exitCode === null) agent.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
