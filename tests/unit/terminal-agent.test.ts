// The agent's side of a terminal session against stand-in sidecars that answer as the real
// one does: the first prompt arrives in the same breath as `opened`, while the agent is still
// recording the session, and must reach the browser all the same (it once did not); and the
// routing by privilege: an admin's session on the admin sidecar with the writer account, every
// other on the viewer sidecar, the limits counted across both.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import type { AuditService } from '../../handlers/audit/service.ts';
import { systemClock } from '../../domain/clock.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { createTerminal } from '../../runtime/terminal/agent-terminal.ts';
import type { SessionCredentials } from '../../runtime/terminal/session-credentials.ts';
import { sessionRecords } from '../../runtime/terminal/session-records.ts';
import { TERMINAL_KEY_HEADER, textOf } from '../../runtime/terminal/sidecar.ts';

const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
server.on('connection', (ws) => {
  ws.once('message', () => {
    // One TCP write: `opened` and the prompt are parsed in the same tick.
    ws.send(JSON.stringify({ type: 'opened', session: 'x', reattached: false }));
    ws.send(JSON.stringify({ type: 'output', data: 'alice@capstan:~$ ' }));
    ws.send(JSON.stringify({ type: 'command', command: 'ls', at: new Date().toISOString() }));
  });
});
after(() => server.close());

it('delivers the output the sidecar sent while the session was being recorded, and records the session first', async () => {
  await new Promise<void>((r) => (server.address() === null ? server.once('listening', () => r()) : r()));
  const db = await openDatabase(mkdtempSync(join(tmpdir(), 'terminal-agent-')), systemClock);
  // A slow audit write: the window in which the first frames arrive.
  const audit = { record: () => new Promise<void>((r) => setTimeout(r, 200)) } as unknown as AuditService;
  const terminal = createTerminal(
    { sidecarUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, key: 'k'.repeat(40), credentials: { kubeconfigFor: () => Promise.resolve({ ok: true, kubeconfig: 'apiVersion: v1', describe: 'test' }) }, maxPerUser: 5, maxTotal: 20, reattachGraceSecs: 5 },
    sessionRecords(db, audit, systemClock, silentLogger),
  );
  try {
    const seen: string[] = [];
    const opened = await terminal.open({ user: { id: 1, username: 'alice', role: 'viewer' }, clientIp: '127.0.0.1', namespace: 'default', cols: 80, rows: 24, reattach: null }, { output: (d) => seen.push(d), exit: () => undefined });
    assert.ok(opened.ok);
    assert.deepEqual(seen, ['alice@capstan:~$ ']);
    await new Promise((r) => setTimeout(r, 50));
    const [session] = await terminal.recent(10);
    assert.ok(session);
    assert.deepEqual(session.commands.map((c) => c.command), ['ls']);
  } finally {
    terminal.stop();
    for (const client of server.clients) client.terminate();
    await db.destroy();
  }
});

/** A stand-in sidecar that takes only its own key and remembers which sessions it opened, with the kubeconfig each got. */
async function standIn(key: string): Promise<{ url: string; opened: { session: string; kubeconfig: string }[]; close(): void }> {
  const opened: { session: string; kubeconfig: string }[] = [];
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', verifyClient: ({ req }: { req: IncomingMessage }) => req.headers[TERMINAL_KEY_HEADER] === key });
  wss.on('connection', (ws) => {
    ws.once('message', (raw) => {
      const open = JSON.parse(textOf(raw)) as { session: string; kubeconfig: string };
      opened.push({ session: open.session, kubeconfig: open.kubeconfig });
      ws.send(JSON.stringify({ type: 'opened', session: open.session, reattached: false }));
    });
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, opened, close: () => { for (const c of wss.clients) c.terminate(); wss.close(); } };
}

const credentialsAs = (name: string): SessionCredentials => ({ kubeconfigFor: () => Promise.resolve({ ok: true, kubeconfig: `token of ${name}`, describe: `serviceaccount t/${name}` }) });

describe('sessions separated by privilege (docs/terminal.md, "What a session may do")', () => {
  const viewerKey = 'v'.repeat(40);
  const adminKey = 'a'.repeat(40);
  const request = (id: number, role: string, reattach: string | null = null) => ({ user: { id, username: `user${id}`, role }, clientIp: '127.0.0.1', namespace: 'default', cols: 80, rows: 24, reattach });
  const quiet = { output: () => undefined, exit: () => undefined };

  async function setUp(withAdmin: boolean, limits = { maxPerUser: 5, maxTotal: 20 }) {
    const viewerSidecar = await standIn(viewerKey);
    const adminSidecar = await standIn(adminKey);
    const db = await openDatabase(mkdtempSync(join(tmpdir(), 'terminal-agent-')), systemClock);
    const details: Record<string, unknown>[] = [];
    const audit = { record: (row: { detail: Record<string, unknown> }) => Promise.resolve(void details.push(row.detail)) } as unknown as AuditService;
    const terminal = createTerminal(
      {
        sidecarUrl: viewerSidecar.url,
        key: viewerKey,
        credentials: credentialsAs('capstan-terminal'),
        admin: withAdmin ? { sidecarUrl: adminSidecar.url, key: adminKey, credentials: credentialsAs('capstan-terminal-admin') } : null,
        ...limits,
        reattachGraceSecs: 5,
      },
      sessionRecords(db, audit, systemClock, silentLogger),
    );
    return {
      terminal,
      viewerSidecar,
      adminSidecar,
      details,
      async close() {
        terminal.stop();
        viewerSidecar.close();
        adminSidecar.close();
        await db.destroy();
      },
    };
  }

  it("sends an admin's session to the admin sidecar with the writer account, a viewer's to the viewer sidecar, read-only", async () => {
    const t = await setUp(true);
    try {
      const admin = await t.terminal.open(request(1, 'admin'), quiet);
      const viewer = await t.terminal.open(request(2, 'viewer'), quiet);
      assert.ok(admin.ok && viewer.ok);
      assert.deepEqual(t.adminSidecar.opened, [{ session: admin.value.id, kubeconfig: 'token of capstan-terminal-admin' }]);
      assert.deepEqual(t.viewerSidecar.opened, [{ session: viewer.value.id, kubeconfig: 'token of capstan-terminal' }]);
      // The general log's start names the identity each session got.
      assert.deepEqual(t.details.map((d) => [d.terminal, d.role, d.identity]), [[admin.value.id, 'admin', 'serviceaccount t/capstan-terminal-admin'], [viewer.value.id, 'viewer', 'serviceaccount t/capstan-terminal']]);
    } finally {
      await t.close();
    }
  });

  it('without an admin sidecar, an admin\'s session is the read-only one, as before', async () => {
    const t = await setUp(false);
    try {
      const admin = await t.terminal.open(request(1, 'admin'), quiet);
      assert.ok(admin.ok);
      assert.deepEqual(t.viewerSidecar.opened, [{ session: admin.value.id, kubeconfig: 'token of capstan-terminal' }]);
      assert.deepEqual(t.adminSidecar.opened, []);
    } finally {
      await t.close();
    }
  });

  it('counts the per-person and total limits across both sidecars', async () => {
    const t = await setUp(true, { maxPerUser: 2, maxTotal: 3 });
    try {
      assert.ok((await t.terminal.open(request(1, 'admin'), quiet)).ok);
      assert.ok((await t.terminal.open(request(1, 'admin'), quiet)).ok);
      const third = await t.terminal.open(request(1, 'admin'), quiet);
      assert.equal(!third.ok && third.error.code, 'rate_limited');
      assert.ok((await t.terminal.open(request(2, 'viewer'), quiet)).ok);
      const fourth = await t.terminal.open(request(3, 'viewer'), quiet);
      assert.equal(!fourth.ok && fourth.error.code, 'rate_limited', 'two on the admin sidecar and one on the viewer\'s fill the total');
    } finally {
      await t.close();
    }
  });

  it("re-attaches a session to its owner at the privilege it was opened with: another person's id, or one's admin session after a demotion, is not found", async () => {
    const t = await setUp(true);
    try {
      const admin = await t.terminal.open(request(1, 'admin'), quiet);
      assert.ok(admin.ok);
      admin.value.detach();
      const other = await t.terminal.open(request(2, 'admin', admin.value.id), quiet);
      assert.equal(!other.ok && other.error.code, 'not_found');
      const demoted = await t.terminal.open(request(1, 'viewer', admin.value.id), quiet);
      assert.equal(!demoted.ok && demoted.error.code, 'not_found', 'a viewer now: the write token stays out of reach');
      const again = await t.terminal.open(request(1, 'admin', admin.value.id), quiet);
      assert.ok(again.ok && again.value.reattached);
    } finally {
      await t.close();
    }
  });
});
