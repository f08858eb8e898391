// The license heartbeat against a local receiver that records exactly what arrived, with the
// schedule driven by injected timers (no sleeping).
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_JITTER_MS, startHeartbeat, type Timers } from '../../runtime/access/license-heartbeat.ts';
import { fingerprintOf } from '../../runtime/access/license-fingerprint.ts';
import type { Logger } from '../../runtime/log.ts';

interface Arrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base: string;
const arrivals: Arrival[] = [];
let answer = 204;

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      arrivals.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  arrivals.length = 0;
  answer = 204;
});

/** Timers that only record: the test fires them. */
function manualTimers() {
  const pending: { fn: () => void; ms: number; cleared: boolean; unrefed: boolean }[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      const t = { fn, ms, cleared: false, unrefed: false, unref: () => (t.unrefed = true) };
      pending.push(t);
      return t;
    },
    clearTimeout: (h) => ((h as { cleared: boolean }).cleared = true),
  };
  return { timers, pending };
}

function recordingLog() {
  const lines: [string, string][] = [];
  const log: Logger = {
    info: (m) => lines.push(['info', m]),
    warn: (m) => lines.push(['warn', m]),
    error: (m) => lines.push(['error', m]),
    child: () => log,
  };
  return { log, lines };
}

const KEY = 'capstan1.eyJ0aWVyIjoicHJvIn0.c2lnbmF0dXJl';
const FINGERPRINT = fingerprintOf('6a3c1f0e-0000-4000-8000-000000000001');

describe('license heartbeat', () => {
  it('posts exactly {fingerprint, license_key} as JSON to <apiUrl>/heartbeat, and nothing else', async () => {
    const { timers } = manualTimers();
    const hb = startHeartbeat({ apiUrl: base, key: () => KEY, fingerprint: () => Promise.resolve(FINGERPRINT), log: recordingLog().log, timers });
    assert.equal(await hb.beat(), 'sent');
    hb.stop();
    assert.equal(arrivals.length, 1);
    const got = arrivals[0];
    assert.ok(got);
    assert.deepEqual([got.method, got.url, got.headers['content-type']], ['POST', '/api/heartbeat', 'application/json']);
    assert.equal(got.body, JSON.stringify({ fingerprint: FINGERPRINT, license_key: KEY }));
    assert.deepEqual(Object.keys(JSON.parse(got.body) as object), ['fingerprint', 'license_key']);
    assert.match(FINGERPRINT, /^[0-9a-f]{64}$/, 'the fingerprint is a SHA-256, not the UID itself');
  });

  it('sends nothing while no key is installed', async () => {
    const { timers } = manualTimers();
    let asked = false;
    const hb = startHeartbeat({ apiUrl: base, key: () => null, fingerprint: () => ((asked = true), Promise.resolve(FINGERPRINT)), log: recordingLog().log, timers });
    assert.equal(await hb.beat(), 'skipped');
    hb.stop();
    assert.deepEqual([arrivals.length, asked], [0, false], 'not even the fingerprint is read');
  });

  it('beats first within the jitter of the start, then daily plus jitter, on unref’d timers; stop clears the next', async () => {
    const { timers, pending } = manualTimers();
    const hb = startHeartbeat({ apiUrl: base, key: () => KEY, fingerprint: () => Promise.resolve(FINGERPRINT), log: recordingLog().log, timers, random: () => 0.5 });
    assert.deepEqual(pending.map((t) => [t.ms, t.unrefed]), [[HEARTBEAT_JITTER_MS / 2, true]]);
    pending[0]?.fn();
    // The next beat is scheduled once this one has been delivered.
    for (let i = 0; pending.length < 2 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(arrivals.length, 1);
    assert.deepEqual(pending.map((t) => t.ms), [HEARTBEAT_JITTER_MS / 2, HEARTBEAT_INTERVAL_MS + HEARTBEAT_JITTER_MS / 2]);
    hb.stop();
    assert.equal(pending[1]?.cleared, true);
  });

  it('logs a failure once until a beat succeeds, then the recovery once; never throws', async () => {
    const { timers } = manualTimers();
    const { log, lines } = recordingLog();
    let fingerprintFails = false;
    const hb = startHeartbeat({ apiUrl: base, key: () => KEY, fingerprint: () => (fingerprintFails ? Promise.reject(new Error('namespaces "kube-system" is forbidden')) : Promise.resolve(FINGERPRINT)), log, timers });
    answer = 503;
    assert.deepEqual([await hb.beat(), await hb.beat(), await hb.beat()], ['failed', 'failed', 'failed']);
    assert.deepEqual(lines, [['warn', 'license heartbeat failed; retrying at the next beat, quietly until one succeeds']]);
    answer = 204;
    assert.equal(await hb.beat(), 'sent');
    assert.deepEqual(lines.slice(1), [['info', 'license heartbeat delivered again']]);
    fingerprintFails = true;
    assert.deepEqual([await hb.beat(), await hb.beat()], ['failed', 'failed']);
    assert.equal(lines.filter(([level]) => level === 'warn').length, 2);
    const unreachable = startHeartbeat({ apiUrl: 'http://127.0.0.1:1', key: () => KEY, fingerprint: () => Promise.resolve(FINGERPRINT), log, timers });
    assert.equal(await unreachable.beat(), 'failed');
    hb.stop();
    unreachable.stop();
  });
});
