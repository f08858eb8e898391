// What every terminal session leaves on record, whichever kind: a pod shell's start prunes past
// the 180-day retention as a sidecar shell's does (it once did not: an install with pod shells
// only kept them for ever), and a restart closes only the kind of session that restarted.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import type { AuditService } from '../../handlers/audit/service.ts';
import { ManualClock } from '../support/services.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { sessionRecords, TERMINAL_RETENTION_MS, type RecordedSession } from '../../runtime/terminal/session-records.ts';

const session = (id: string, target: string | null): RecordedSession => ({ id, user: { id: 1, username: 'alice', role: 'admin' }, namespace: 'shop', clientIp: '203.0.113.5', target, credential: 'test' });

async function setup() {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const db = await openDatabase(mkdtempSync(join(tmpdir(), 'terminal-records-')), clock);
  const audited: Record<string, string>[] = [];
  const audit = { record: (e: { detail: Record<string, string> }) => Promise.resolve(void audited.push(e.detail)) } as unknown as AuditService;
  return { clock, db, audited, records: sessionRecords(db, audit, clock, silentLogger) };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

it("a pod shell's start prunes sessions and commands past the retention, as a sidecar shell's does", async () => {
  const { clock, db, records, audited } = await setup();
  const old = session('old-sidecar', null);
  await records.started(old);
  records.command(old, 'ls');
  await settle();
  clock.advance(TERMINAL_RETENTION_MS + 60_000);
  await records.started(session('new-pod', 'shop/web/app'));
  await settle();
  assert.deepEqual((await records.recent(10)).map((s) => [s.id, s.target]), [['new-pod', 'shop/web/app']]);
  assert.equal((await db.selectFrom('terminal_commands').selectAll().execute()).length, 0);
  assert.deepEqual(audited.map((d) => d.target ?? null), [null, 'shop/web/app'], 'the start row names a pod shell\'s container');
  await db.destroy();
});

it('a restart closes the open sessions of its own kind only', async () => {
  const { db, records } = await setup();
  await records.started(session('sidecar', null));
  await records.started(session('pod', 'shop/web/app'));
  records.closeLeftOpen('pod');
  await settle();
  const ends = Object.fromEntries((await records.recent(10)).map((s) => [s.id, s.endReason]));
  assert.deepEqual(ends, { sidecar: null, pod: 'agent_restarted' });
  await db.destroy();
});
