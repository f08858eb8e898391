// Task states and transitions (spec §3): running ends finished or failed (a timeout is a
// failure); a task the agent lost is stopped reporting, never finished, and stays so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishTask, startTask, stoppedReporting, unseenCount, type TaskOutcome, type TaskState } from '../../domain/tasks/task.ts';
import { silentLogger } from '../../runtime/log.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { createTaskStore } from '../../runtime/tasks/store.ts';
import { testApp } from '../support/app.ts';

const T0 = new Date('2026-11-27T10:00:00Z');
const T1 = new Date('2026-11-27T10:05:00Z');
const running = () => startTask({ id: 't1', kind: 'security_scan', actor: 'admin', detail: 'Scanning 12 images.', at: T0 });

describe('finishTask', () => {
  const ROWS: { name: string; outcome: TaskOutcome; state: TaskState; reason: string | null }[] = [
    { name: 'success: finished', outcome: { kind: 'success', detail: '12 images scanned.' }, state: 'finished', reason: null },
    { name: 'error: failed with its reason', outcome: { kind: 'error', reason: 'OOMKilled', detail: 'The scan job ran out of memory.', consequence: 'No new findings were stored.' }, state: 'failed', reason: 'OOMKilled' },
    { name: 'timeout: a failure, DeadlineExceeded', outcome: { kind: 'timeout', afterSecs: 600, consequence: 'The release may be half upgraded.' }, state: 'failed', reason: 'DeadlineExceeded' },
  ];
  for (const row of ROWS) {
    it(row.name, () => {
      const done = finishTask(running(), row.outcome, T1);
      assert.ok(done.ok);
      assert.equal(done.row.state, row.state);
      assert.equal(done.row.reason, row.reason);
      assert.deepEqual(done.row.endedAt, T1);
      assert.equal(done.row.actor, 'admin', 'attribution kept');
    });
  }
  it('a timeout says how long it waited', () => {
    const done = finishTask(running(), { kind: 'timeout', afterSecs: 600, consequence: 'x' }, T1);
    assert.ok(done.ok);
    assert.match(done.row.detail, /600 s/);
  });
  it('an ended task does not end again', () => {
    const done = finishTask(running(), { kind: 'success', detail: 'ok' }, T1);
    assert.ok(done.ok);
    assert.equal(finishTask(done.row, { kind: 'error', reason: 'X', detail: 'y', consequence: 'z' }, T1).ok, false);
  });
});

describe('stoppedReporting', () => {
  it('a running task the agent lost is amber with a reason, detail and consequence, never finished', () => {
    const lost = stoppedReporting(running(), T1);
    assert.ok(lost.ok);
    assert.equal(lost.row.state, 'stopped_reporting');
    assert.equal(lost.row.reason, 'AgentRestarted');
    assert.ok(lost.row.consequence);
  });
  it('and a late success cannot turn it finished', () => {
    const lost = stoppedReporting(running(), T1);
    assert.ok(lost.ok);
    assert.equal(finishTask(lost.row, { kind: 'success', detail: 'ok' }, T1).ok, false);
  });
  it('an ended task is not marked', () => {
    const done = finishTask(running(), { kind: 'success', detail: 'ok' }, T1);
    assert.ok(done.ok);
    assert.equal(stoppedReporting(done.row, T1).ok, false);
  });
});

describe('unseenCount', () => {
  const rows = [{ endedAt: null }, { endedAt: T0 }, { endedAt: T1 }];
  it('counts ended tasks after the tray was last opened; running ones are not news yet', () => {
    assert.equal(unseenCount(rows, null), 2);
    assert.equal(unseenCount(rows, T0), 1);
    assert.equal(unseenCount(rows, T1), 0);
  });
});

describe('the task store across an agent restart', () => {
  it('a task the last run left running is stopped reporting, and a late finish does not make it finished', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-'));
    const clock = { now: () => T0 };
    const first = await openDatabase(dir, clock);
    const before = await createTaskStore(first, clock, silentLogger);
    await before.start({ id: 'helm:1', kind: 'helm_upgrade', actor: 'alice', detail: 'Upgrading shop/web.' });
    await first.destroy();
    // The agent starts again on the same database.
    const second = await openDatabase(dir, { now: () => T1 });
    const after = await createTaskStore(second, { now: () => T1 }, silentLogger);
    const [row] = await after.list(10);
    assert.ok(row);
    assert.equal(row.state, 'stopped_reporting');
    assert.equal(row.actor, 'alice');
    assert.deepEqual(row.endedAt, T1);
    await after.finish('helm:1', { kind: 'success', detail: 'late' });
    assert.equal((await after.list(10))[0]?.state, 'stopped_reporting');
    await second.destroy();
  });
});

describe('the live events and the mute', () => {
  it('the store tells its listeners each start and each end, once; a refused end tells nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-'));
    const clock = { now: () => T0 };
    const db = await openDatabase(dir, clock);
    const store = await createTaskStore(db, clock, silentLogger);
    const heard: string[] = [];
    const unsubscribe = store.subscribe((row) => heard.push(`${row.id}:${row.state}`));
    await store.start({ id: 'a', kind: 'helm_install', actor: 'alice', detail: 'Install.' });
    await store.finish('a', { kind: 'success', detail: 'Installed.' });
    await store.finish('a', { kind: 'success', detail: 'again' });
    unsubscribe();
    await store.start({ id: 'b', kind: 'helm_install', actor: 'alice', detail: 'Install.' });
    assert.deepEqual(heard, ['a:running', 'a:finished']);
    await db.destroy();
  });

  it('muting stops nothing but the toasts: rows and the badge stay, for that admin only', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    await h.services.tasks.start({ id: 'm1', kind: 'helm_install', actor: 'admin', detail: 'Install.' });
    await h.services.tasks.finish('m1', { kind: 'success', detail: 'Installed.' });
    assert.deepEqual((await h.call('PUT', '/api/agent/tasks/mute', { cookie: admin, body: { muted: true } })).body, { muted: true });
    const tray = (await h.call('GET', '/api/agent/tasks', { cookie: admin })).body as { tasks: unknown[]; unseen: number; muted: boolean };
    assert.deepEqual([tray.tasks.length, tray.unseen, tray.muted], [1, 1, true]);
    assert.equal((await h.call('PUT', '/api/agent/tasks/mute', { cookie: admin, body: { muted: 'yes' } })).body.field, 'muted');
  });

  it('GET /tasks/events streams each task as it starts and ends, to admin sessions only', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    const viewer = await h.signIn('viewer');
    assert.equal((await h.call('GET', '/api/agent/tasks/events', { cookie: viewer, headers: { accept: 'text/event-stream' } })).status, 403);
    const stop = new AbortController();
    const res = await h.app.request('/api/agent/tasks/events', { headers: { cookie: `capstan_session=${admin}`, accept: 'text/event-stream' }, signal: stop.signal }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    assert.equal(res.status, 200);
    assert.ok(res.body);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the stream ended before ${String(pattern)}: ${text}`);
        text += decoder.decode(chunk.value);
      }
    };
    await h.services.tasks.start({ id: 'live-1', kind: 'helm_install', actor: 'admin', detail: 'Install.' });
    await until(/"id":"live-1","kind":"helm_install","actor":"admin","state":"running"/);
    await h.services.tasks.finish('live-1', { kind: 'error', reason: 'HelmFailed', detail: 'no', consequence: 'nothing changed' });
    await until(/"id":"live-1"[^\n]*"state":"failed"/);
    assert.match(text, /^event: task$/m);
    stop.abort();
    await reader.cancel().catch(() => undefined);
  });
});
