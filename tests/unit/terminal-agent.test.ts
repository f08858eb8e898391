// The agent's side of a terminal session against a stand-in sidecar that answers as the real
// one does: the first prompt arrives in the same breath as `opened`, while the agent is still
// recording the session, and must reach the browser all the same (it once did not).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { WebSocketServer } from 'ws';
import type { AuditService } from '../../handlers/audit/service.ts';
import { systemClock } from '../../domain/clock.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { createTerminal } from '../../runtime/terminal/agent-terminal.ts';
import { sessionRecords } from '../../runtime/terminal/session-records.ts';

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
