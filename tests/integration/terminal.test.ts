// The browser terminal end to end on the real control plane: the sidecar as the real process
// (`capstan terminal`, a real PTY and bash) with a secret in its own environment, the agent's
// `/terminal/ws`, each session's kubectl credential minted by the API server (TokenRequest),
// and xterm's headless terminal rendering what a browser would show.
// test-plan: shares-cluster
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningAgent } from '../../runtime/agent.ts';
import { k, startTestAgent, testCluster, waitFor } from '../support/cluster.ts';
import { filesContaining } from '../support/files.ts';
import { openTerminal, startSidecarProcess, type StartedSidecar, type TerminalClient } from '../support/terminal.ts';

const NS = 'it-terminal';
const ACCOUNT = 'capstan-terminal';
const PASSWORD = 'terminal-admin-password';
/** In the sidecar's own environment, as the provider key would be in a careless pod spec. */
const POD_SECRET = 'sk-pod-secret-never-in-a-shell';
/** Typed in a shell: must reach no file and no row. */
const TYPED_SECRET = 'typed-hunter2-secret';

let sidecar: StartedSidecar;
let agent: RunningAgent;
let dataDir = '';
let cookie = '';
const open: TerminalClient[] = [];

const wsUrl = (query = `namespace=${NS}`) => `${agent.url.replace('http:', 'ws:')}/api/agent/terminal/ws?${query}`;
const origin = () => agent.url;

async function signIn(): Promise<string> {
  const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function terminal(query?: string): Promise<TerminalClient> {
  const client = await openTerminal(wsUrl(query), { cookie, origin: origin() });
  open.push(client);
  await client.waitFor(/admin@capstan:~\$ $/m);
  return client;
}

/** The shells the sidecar runs now (its bash children; tsx's esbuild service is a child too). */
function shells(): number {
  try {
    return execFileSync('pgrep', ['-P', String(sidecar.process.pid), '-x', 'bash']).toString().trim().split('\n').filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

interface SessionRow {
  id: string;
  username: string;
  namespace: string;
  ended_at: string | null;
  end_reason: string | null;
  commands: { command: string }[];
}
async function sessions(): Promise<SessionRow[]> {
  const res = await fetch(`${agent.url}/api/agent/admin/terminal/sessions`, { headers: { cookie } });
  return ((await res.json()) as { sessions: SessionRow[] }).sessions;
}

describe('the browser terminal', () => {
  before(async () => {
    await k(['create', 'namespace', NS]);
    await k(['create', 'serviceaccount', ACCOUNT, '-n', NS]);
    await k(['create', 'rolebinding', 'terminal-view', '--clusterrole=view', `--serviceaccount=${NS}:${ACCOUNT}`, '-n', NS]);
    await k(['create', 'configmap', 'greeting', '-n', NS, '--from-literal=hello=world']);
    sidecar = await startSidecarProcess({ path: `${testCluster().binDir}:/usr/bin:/bin`, graceSecs: 3, extraEnv: { CAPSTAN_OPENAI_API_KEY: POD_SECRET } });
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-terminal-agent-'));
    agent = await startTestAgent('terminal', { dataDir, accounts: { adminPassword: PASSWORD }, terminal: { sidecarUrl: sidecar.url, key: sidecar.key, serviceAccount: { namespace: NS, name: ACCOUNT }, reattachGraceSecs: 3 } });
    cookie = await signIn();
  });
  after(async () => {
    for (const client of open) await client.close();
    await agent.close();
    await sidecar.stop();
    await k(['delete', 'namespace', NS, '--wait=false']);
  });

  it('refuses an upgrade without a session, with an API key, or from another site, and starts no shell', async () => {
    const key = ((await (await fetch(`${agent.url}/api/agent/me/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ci', scopes: ['workloads:read'] }) })).json()) as { key: string }).key;
    const refusals: [string, Record<string, string>, number][] = [
      ['no credential', { origin: origin() }, 401],
      ['an API key', { 'x-api-key': key }, 403],
      ['another site', { cookie, origin: 'https://evil.example' }, 403],
    ];
    for (const [what, headers, status] of refusals) {
      await assert.rejects(openTerminal(wsUrl(), headers), (err: { status?: number }) => err.status === status, what);
    }
    assert.equal(shells(), 0, 'no shell was started');
    assert.deepEqual(await sessions(), []);
  });

  it("opens a shell whose kubectl is the session's own read-only account, with no secret in its environment", async () => {
    const t = await terminal();
    t.type('kubectl get configmap greeting -o jsonpath={.data.hello}; echo\r');
    await t.waitFor(/^world$/m);
    t.type('kubectl auth whoami -o jsonpath={.status.userInfo.username}; echo\r');
    await t.waitFor(new RegExp(`^system:serviceaccount:${NS}:${ACCOUNT}$`, 'm'));
    t.type('kubectl delete configmap greeting 2>&1 | head -1\r');
    await t.waitFor(/forbidden/i);
    t.type('env | grep -c -e sk-pod -e CAPSTAN_TERMINAL_KEY -e CAPSTAN_OPENAI; ls /var/run/secrets/kubernetes.io 2>&1 | head -1\r');
    await t.waitFor(/^0$/m);
    await t.waitFor(/No such file or directory/);
  });

  it('records each command, redacted, and a typed secret reaches no file of the terminal home nor the database', async () => {
    const t = await terminal();
    t.type(`curl -s -u alice:${TYPED_SECRET} http://127.0.0.1:9/ ; echo done-1\r`);
    await t.waitFor(/^done-1$/m);
    t.type(`PGPASSWORD=${TYPED_SECRET} true; echo done-2\r`);
    await t.waitFor(/^done-2$/m);
    const session = (await sessions()).find((s) => s.id === t.session);
    assert.ok(session);
    assert.deepEqual(session.commands.map((c) => c.command), ['curl -s -u alice:[REDACTED] http://127.0.0.1:9/ ; echo done-1', 'PGPASSWORD=[REDACTED] true; echo done-2']);
    assert.equal(session.namespace, NS);
    // The unified audit timeline reads the command record too, under category terminal, with the session's start.
    const timeline = (await (await fetch(`${agent.url}/api/agent/admin/audit/events?category=terminal`, { headers: { cookie } })).json()) as { events: { source: string; action: string; detail: Record<string, string> }[] };
    const ofSession = timeline.events.filter((e) => e.detail.terminal === t.session);
    assert.deepEqual(ofSession.map((e) => `${e.source} ${e.action} ${e.detail.command ?? ''}`.trim()), ['terminal_command terminal_command PGPASSWORD=[REDACTED] true; echo done-2', 'terminal_command terminal_command curl -s -u alice:[REDACTED] http://127.0.0.1:9/ ; echo done-1', 'audit_log terminal_session_start']);
    assert.deepEqual(filesContaining(sidecar.home, TYPED_SECRET), [], 'history and session files hold the redacted line only');
    assert.deepEqual(filesContaining(dataDir, TYPED_SECRET), [], 'nor does the database (or its WAL)');
  });

  it('re-attaches within the grace period to the same shell, and ends one left alone', async () => {
    const t = await terminal();
    t.type('export KEPT=42; echo set-done\r');
    await t.waitFor(/^set-done$/m);
    await t.close();
    // Re-attached: the same shell (its variable still set); nothing was printed meanwhile, so no new prompt.
    const again = await openTerminal(wsUrl(`namespace=${NS}&session=${t.session}`), { cookie, origin: origin() });
    open.push(again);
    assert.equal(again.session, t.session);
    again.type('echo kept-$KEPT\r');
    await again.waitFor(/^kept-42$/m);
    await again.close();
    await waitFor('the detached session ended', async () => (await sessions()).find((s) => s.id === t.session)?.end_reason === 'detached_too_long', 15_000, 250);
    await assert.rejects(openTerminal(wsUrl(`namespace=${NS}&session=${t.session}`), { cookie, origin: origin() }), (err: { status?: number }) => err.status === 404);
  });

  it('keeps the agent responsive while `yes` floods a browser that reads nothing, and stops it on Ctrl-C', async () => {
    const t = await terminal();
    t.ws.pause();
    t.type('yes\r');
    const answered: number[] = [];
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const started = Date.now();
      const res = await fetch(`${agent.url}/healthz`);
      assert.equal(res.status, 200);
      answered.push(Date.now() - started);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Liveness, not a figure: every probe answered, none waited seconds behind the flood.
    assert.ok(Math.max(...answered) < 2000, `probe times ${answered.join(', ')} ms`);
    t.type('\u0003');
    t.ws.resume();
    t.type('echo after-yes\r');
    await t.waitFor(/^after-yes$/m, 60_000);
  });

  it('holds at most 5 sessions per person', async () => {
    for (const client of open.splice(0)) await client.close();
    await waitFor('earlier sessions ended', async () => (await sessions()).every((s) => s.ended_at !== null), 20_000, 250);
    for (let i = 0; i < 5; i++) await terminal();
    await assert.rejects(openTerminal(wsUrl(), { cookie, origin: origin() }), (err: { status?: number }) => err.status === 429);
  });

  it('ends a session with no PTY input or output for terminal.idleTimeoutSecs', async () => {
    const idle = await startSidecarProcess({ path: `${testCluster().binDir}:/usr/bin:/bin`, idleTimeoutSecs: 2 });
    const second = await startTestAgent('terminal-idle', { accounts: { adminPassword: PASSWORD }, terminal: { sidecarUrl: idle.url, key: idle.key, serviceAccount: { namespace: NS, name: ACCOUNT }, reattachGraceSecs: 60 } });
    try {
      const res = await fetch(`${second.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
      const as = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const t = await openTerminal(`${second.url.replace('http:', 'ws:')}/api/agent/terminal/ws`, { cookie: as, origin: second.url });
      assert.deepEqual(await t.exited, { code: null, reason: 'idle' });
      // Detached and idle: reaped on the PTY's silence, not on the socket.
      const u = await openTerminal(`${second.url.replace('http:', 'ws:')}/api/agent/terminal/ws`, { cookie: as, origin: second.url });
      await u.close();
      const seen = await (await fetch(`${second.url}/api/agent/admin/terminal/sessions`, { headers: { cookie: as } })).json() as { sessions: SessionRow[] };
      await waitFor('the detached session reaped as idle', async () => ((await (await fetch(`${second.url}/api/agent/admin/terminal/sessions`, { headers: { cookie: as } })).json()) as { sessions: SessionRow[] }).sessions.find((s) => s.id === u.session)?.end_reason === 'idle', 15_000, 250);
      assert.ok(seen.sessions.length >= 2);
    } finally {
      await second.close();
      await idle.stop();
    }
  });
});
