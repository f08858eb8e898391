// The license heartbeat against a local receiver that records exactly what arrived, with the
// schedule driven by injected timers (no sleeping), including the beat brought forward when an
// admin installs a key through PUT /admin/license.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HEARTBEAT_AFTER_INSTALL_MS, HEARTBEAT_INTERVAL_MS, HEARTBEAT_JITTER_MS, startHeartbeat, type Timers } from '../../runtime/license/heartbeat.ts';
import { fingerprintOf } from '../../runtime/license/fingerprint.ts';
import { createApp } from '../../runtime/http/app.ts';
import { silentLogger, type Logger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { testIssuer } from '../support/license-keys.ts';
import { ADMIN_PASSWORD, ManualClock, testServices } from '../support/services.ts';

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

describe('license heartbeat after a key is installed', () => {
  /** Timers still armed (neither fired nor cleared). */
  const armed = (pending: ReturnType<typeof manualTimers>['pending'], fired: Set<unknown>) => pending.filter((t) => !t.cleared && !fired.has(t));
  const fire = (t: ReturnType<typeof manualTimers>['pending'][number] | undefined, fired: Set<unknown>) => {
    assert.ok(t);
    fired.add(t);
    t.fn();
  };
  const until = async (what: string, done: () => boolean) => {
    for (let i = 0; !done(); i++) {
      if (i > 500) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('brings the next beat forward to HEARTBEAT_AFTER_INSTALL_MS, replacing the daily one; keys replaced in a row make one beat; the daily cadence resumes after it', async () => {
    const { timers, pending } = manualTimers();
    const fired = new Set<unknown>();
    let key = 'capstan1.first';
    const hb = startHeartbeat({ apiUrl: base, key: () => key, fingerprint: () => Promise.resolve(FINGERPRINT), log: recordingLog().log, timers, random: () => 0.5 });
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_JITTER_MS / 2]);
    hb.keyInstalled();
    key = 'capstan1.second';
    hb.keyInstalled();
    assert.deepEqual(armed(pending, fired).map((t) => [t.ms, t.unrefed]), [[HEARTBEAT_AFTER_INSTALL_MS, true]], 'one beat pending: the start beat and the first install were superseded');
    assert.equal(arrivals.length, 0, 'nothing is sent while the install is answered');
    fire(armed(pending, fired)[0], fired);
    await until('the next beat to be scheduled', () => armed(pending, fired).length === 1);
    assert.deepEqual(arrivals.map((a) => (JSON.parse(a.body) as { license_key: string }).license_key), ['capstan1.second']);
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_INTERVAL_MS + HEARTBEAT_JITTER_MS / 2]);
    hb.stop();
    hb.keyInstalled();
    assert.equal(armed(pending, fired).length, 0, 'stopped stays stopped');
  });

  it('an install while a beat is in flight leaves one chain of beats, not two', async () => {
    const { timers, pending } = manualTimers();
    const fired = new Set<unknown>();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const hb = startHeartbeat({ apiUrl: base, key: () => KEY, fingerprint: () => gate.then(() => FINGERPRINT), log: recordingLog().log, timers, random: () => 0 });
    fire(armed(pending, fired)[0], fired);
    hb.keyInstalled();
    release();
    await until('the in-flight beat', () => arrivals.length === 1);
    // The in-flight beat would have scheduled a daily successor; the install's beat supersedes it.
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_AFTER_INSTALL_MS]);
    fire(armed(pending, fired)[0], fired);
    await until('the install beat and its successor', () => arrivals.length === 2 && armed(pending, fired).length === 1);
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_INTERVAL_MS]);
    hb.stop();
  });

  it('PUT /admin/license answers at once and the new key reaches the receiver at the brought-forward beat', async () => {
    const issuer = testIssuer();
    const clock = new ManualClock();
    const services = await testServices({ clock, license: { publicKeyPem: issuer.publicKeyPem } });
    const app = createApp({ routes, rawEndpoints, services, middleware: services.middleware, validateOutput: true, log: silentLogger });
    const { timers, pending } = manualTimers();
    const fired = new Set<unknown>();
    // Wired as runtime/agent.ts wires it.
    const hb = startHeartbeat({ apiUrl: base, key: () => services.license.key(), installs: (l) => services.license.onInstall(l), fingerprint: () => Promise.resolve(FINGERPRINT), log: recordingLog().log, timers, random: () => 0.5 });
    const request = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      app.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    const signIn = await request('POST', '/auth/login', {}, { username: 'admin', password: ADMIN_PASSWORD });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const key = issuer.key({ id: 'lic_hb', tier: 'pro', licensee: 'Example Corp', issued_at: '2026-11-01T00:00:00.000Z', expires_at: '2027-11-01T00:00:00.000Z' }, clock.now());

    const installed = await request('PUT', '/admin/license', { cookie }, { key });
    assert.equal(installed.status, 200);
    assert.equal(arrivals.length, 0, 'the install did not wait for the heartbeat');
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_AFTER_INSTALL_MS]);
    fire(armed(pending, fired)[0], fired);
    await until('the heartbeat', () => arrivals.length === 1);
    assert.equal(arrivals[0]?.body, JSON.stringify({ fingerprint: FINGERPRINT, license_key: key }));

    // A refused key installs nothing and brings nothing forward.
    await until('the daily beat to be scheduled', () => armed(pending, fired).length === 1);
    const refused = await request('PUT', '/admin/license', { cookie }, { key: 'capstan1.not-a-key' });
    assert.equal(refused.status, 400);
    assert.deepEqual(armed(pending, fired).map((t) => t.ms), [HEARTBEAT_INTERVAL_MS + HEARTBEAT_JITTER_MS / 2]);
    hb.stop();
  });
});
