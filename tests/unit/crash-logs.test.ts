// The crash-log reader's bounds (runtime/diagnosis/crash-logs.ts): which containers it reads,
// once per crash, how many at once, how many it tracks, and what it keeps of a line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerStatus, PodObject } from '../../domain/cluster/model.ts';
import type { PodLogs } from '../../handlers/logs/service.ts';
import { createCrashLogReader, LOG_LINES, logHostsOf, MAX_LINE_CHARS, MAX_TRACKED, READS_IN_FLIGHT } from '../../runtime/diagnosis/crash-logs.ts';
import { noPodLogs } from '../../runtime/kube/logs.ts';
import { createLogger, silentLogger } from '../../runtime/log.ts';
import { podDefaults } from '../support/objects.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const ago = (secs: number) => new Date(NOW.getTime() - secs * 1000).toISOString();

function status(extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name: 'app', ready: false, restartCount: 4, waiting: { reason: 'CrashLoopBackOff', message: null }, runningSince: null, terminated: null, lastTerminated: { exitCode: 1, reason: 'Error', signal: null, startedAt: ago(40), finishedAt: ago(30) }, ...extra };
}

function pod(name: string, statuses: ContainerStatus[], namespace = 'shop'): PodObject {
  return {
    ...podDefaults, namespace, name, phase: 'Running', createdAt: ago(3600), startedAt: ago(3600), nodeName: 'n1', labels: {}, workload: { kind: 'Deployment', name }, owner: null,
    refs: { configMaps: [], secrets: [], pvcs: [] }, ready: false, readySince: null, unschedulable: null, containers: [], statuses,
  };
}

interface Read {
  namespace: string;
  pod: string;
  container: string;
  previous: boolean;
  lines: number;
}

/** PodLogs that records each read and answers `answer(read)`, after `gate` when one is set. */
function fakeLogs(answer: (r: Read) => Awaited<ReturnType<PodLogs['tail']>> = () => ({ ok: true, text: 'dial tcp db:5432: connection refused\n' })) {
  const reads: Read[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let gate: Promise<void> | null = null;
  const logs: PodLogs = {
    ...noPodLogs,
    async tail(namespace, podName, container, options) {
      const r = { namespace, pod: podName, container, previous: options.previous, lines: options.lines };
      reads.push(r);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (gate) await gate;
      await Promise.resolve();
      inFlight--;
      return answer(r);
    },
  };
  return {
    logs,
    reads,
    maxInFlight: () => maxInFlight,
    hold: (g: Promise<void>) => {
      gate = g;
    },
  };
}

describe('which containers are read', () => {
  const rows: { name: string; status: ContainerStatus; read: boolean }[] = [
    { name: 'waiting in CrashLoopBackOff', status: status(), read: true },
    { name: 'running again after a failed instance 30 s ago (a probe kill)', status: status({ waiting: null, ready: true, runningSince: ago(25), lastTerminated: { exitCode: 137, reason: 'Error', signal: null, startedAt: ago(90), finishedAt: ago(30) } }), read: true },
    { name: 'a failed instance an hour ago, running since', status: status({ waiting: null, ready: true, runningSince: ago(3500), lastTerminated: { exitCode: 1, reason: 'Error', signal: null, startedAt: ago(3700), finishedAt: ago(3600) } }), read: false },
    { name: 'a clean exit, restarted', status: status({ waiting: null, lastTerminated: { exitCode: 0, reason: 'Completed', signal: null, startedAt: ago(90), finishedAt: ago(30) } }), read: false },
    { name: 'never restarted', status: status({ restartCount: 0, waiting: { reason: 'ContainerCreating', message: null }, lastTerminated: null }), read: false },
    { name: 'pulling its image', status: status({ restartCount: 0, waiting: { reason: 'ImagePullBackOff', message: null }, lastTerminated: null }), read: false },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const fake = fakeLogs();
      const reader = createCrashLogReader(fake.logs, silentLogger);
      reader.hostsFor([pod('api', [row.status])], NOW);
      await reader.settled();
      assert.equal(fake.reads.length, row.read ? 1 : 0);
      if (row.read) assert.deepEqual(fake.reads[0], { namespace: 'shop', pod: 'api', container: 'app', previous: true, lines: LOG_LINES });
    });
  }

  it('an init container that crash-loops is read too', async () => {
    const fake = fakeLogs();
    const reader = createCrashLogReader(fake.logs, silentLogger);
    reader.hostsFor([{ ...pod('api', []), initStatuses: [status({ name: 'migrate' })] }], NOW);
    await reader.settled();
    assert.deepEqual(fake.reads.map((r) => r.container), ['migrate']);
  });
});

describe('once per crash', () => {
  it('reads a crash once, gives its hosts from the next ask, and reads again after the next restart', async () => {
    let host = 'db';
    const fake = fakeLogs(() => ({ ok: true, text: `dial tcp ${host}:5432: connection refused\n` }));
    const reader = createCrashLogReader(fake.logs, silentLogger);
    const crashing = pod('api', [status()]);
    assert.equal(reader.hostsFor([crashing], NOW).size, 0, 'nothing read yet');
    await reader.settled();
    assert.deepEqual(reader.hostsFor([crashing], NOW).get('shop/api'), [{ container: 'app', host: 'db', line: 'dial tcp db:5432: connection refused' }]);
    await reader.settled();
    assert.equal(fake.reads.length, 1);
    host = 'cache';
    const again = pod('api', [status({ restartCount: 5 })]);
    assert.equal(reader.hostsFor([again], NOW).get('shop/api')?.[0]?.host, 'db', 'the last read stands until the next answers');
    await reader.settled();
    assert.equal(fake.reads.length, 2);
    assert.equal(reader.hostsFor([again], NOW).get('shop/api')?.[0]?.host, 'cache');
  });

  it('a container crashing faster than reads answer is read one crash at a time', async () => {
    const fake = fakeLogs();
    let release: () => void = () => undefined;
    fake.hold(new Promise<void>((r) => (release = r)));
    const reader = createCrashLogReader(fake.logs, silentLogger);
    for (let restarts = 1; restarts <= 5; restarts++) reader.hostsFor([pod('api', [status({ restartCount: restarts })])], NOW);
    release();
    await reader.settled();
    assert.equal(fake.reads.length, 1);
    assert.equal(reader.hostsFor([pod('api', [status({ restartCount: 5 })])], NOW).size, 1, 'hosts from the read of restart 1 stand');
    await reader.settled();
    assert.equal(fake.reads.length, 2, 'then restart 5 is read');
  });

  it('a failed read gives no hosts and is not retried before the next crash', async () => {
    const lines: string[] = [];
    const fake = fakeLogs(() => ({ ok: false, reason: 'API server answered 403: forbidden' }));
    const reader = createCrashLogReader(fake.logs, createLogger('t', (l) => lines.push(l)));
    for (let i = 0; i < 3; i++) {
      assert.equal(reader.hostsFor([pod('api', [status()]), pod('web', [status()])], NOW).size, 0);
      await reader.settled();
    }
    assert.equal(fake.reads.length, 2);
    assert.equal(lines.filter((l) => l.includes('crash log not read')).length, 1, 'the same reason is said once');
  });

  it('forgets a pod that is gone, and skips its queued read', async () => {
    const fake = fakeLogs();
    let release: () => void = () => undefined;
    fake.hold(new Promise<void>((r) => (release = r)));
    const reader = createCrashLogReader(fake.logs, silentLogger);
    const pods = ['a', 'b', 'c', 'd'].map((n) => pod(n, [status()]));
    reader.hostsFor(pods, NOW);
    reader.hostsFor(pods.slice(0, 2), NOW);
    release();
    await reader.settled();
    assert.deepEqual(fake.reads.map((r) => r.pod), ['a', 'b']);
    assert.deepEqual([...reader.hostsFor(pods.slice(0, 1), NOW).keys()], ['shop/a']);
  });
});

describe('bounded', () => {
  it(`reads at most ${READS_IN_FLIGHT} at once and tracks at most ${MAX_TRACKED} containers`, async () => {
    const fake = fakeLogs();
    const reader = createCrashLogReader(fake.logs, silentLogger);
    const pods = Array.from({ length: MAX_TRACKED + 50 }, (_, i) => pod(`p${i}`, [status()]));
    reader.hostsFor(pods, NOW);
    await reader.settled();
    assert.equal(fake.maxInFlight(), READS_IN_FLIGHT);
    assert.equal(fake.reads.length, MAX_TRACKED);
    assert.equal(reader.hostsFor(pods, NOW).size, MAX_TRACKED);
    // A tracked container that crashes again is read again even while the table is full.
    // (Listed after the untracked ones: the full table must not stop the walk there.)
    const first = pods[0];
    assert.ok(first);
    const again = [...pods.slice(1), pod(first.name, [status({ restartCount: 5 })])];
    reader.hostsFor(again, NOW);
    await reader.settled();
    assert.equal(fake.reads.length, MAX_TRACKED + 1);
    // When crashes end, the ones left out are read.
    reader.hostsFor(pods.slice(MAX_TRACKED), NOW);
    await reader.settled();
    assert.equal(fake.reads.length, MAX_TRACKED + 51);
  });

  it('after close no read starts', async () => {
    const fake = fakeLogs();
    const reader = createCrashLogReader(fake.logs, silentLogger);
    reader.close();
    reader.hostsFor([pod('api', [status()])], NOW);
    await reader.settled();
    assert.equal(fake.reads.length, 0);
  });
});

describe('logHostsOf', () => {
  it('takes the newest lines first, each host once, and keeps only the lines that name one', () => {
    const text = ['connecting to cache:6379', 'starting', 'dial tcp db:5432: refused', 'retrying db:5432', ''].join('\n');
    assert.deepEqual(logHostsOf('app', text), [
      { container: 'app', host: 'db', line: 'retrying db:5432' },
      { container: 'app', host: 'cache', line: 'connecting to cache:6379' },
    ]);
  });

  it(`reads only the last ${LOG_LINES} lines`, () => {
    const text = ['early db:5432', ...Array.from({ length: LOG_LINES }, (_, i) => `line ${i}`)].join('\n');
    assert.deepEqual(logHostsOf('app', text), []);
  });

  it('redacts a credential in the line and cuts a long one', () => {
    const found = logHostsOf('app', 'connect postgres://app:hunter2secret@db:5432/app failed password=hunter2secret').at(0);
    assert.ok(found);
    assert.equal(found.host, 'db');
    assert.doesNotMatch(found.line, /hunter2/);
    assert.equal(logHostsOf('app', `dial db:5432 ${'x'.repeat(500)}`).at(0)?.line.length, MAX_LINE_CHARS);
  });
});
