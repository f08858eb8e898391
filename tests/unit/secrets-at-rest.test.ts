import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSecretBox, loadEncryptionKey } from '../../runtime/crypto/secret-box.ts';
import { testApp } from '../support/app.ts';

describe('secrets at rest', () => {
  it('round-trips through AES-256-GCM and refuses a tampered value or another key', () => {
    const box = createSecretBox(loadEncryptionKey('0123456789abcdef0123456789abcdef', '/nonexistent'));
    const sealed = box.seal('webhook-token-123');
    assert.doesNotMatch(sealed, /webhook-token-123/);
    assert.notEqual(box.seal('webhook-token-123'), sealed, 'a fresh IV every time');
    assert.equal(box.open(sealed), 'webhook-token-123');
    const flipped = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    assert.throws(() => box.open(flipped));
    const other = createSecretBox(loadEncryptionKey('fedcba9876543210fedcba9876543210', '/nonexistent'));
    assert.throws(() => other.open(sealed));
  });

  it('refuses a sealed value whose GCM tag was cut to 4, 8 or 12 bytes', () => {
    const box = createSecretBox(loadEncryptionKey('0123456789abcdef0123456789abcdef', '/nonexistent'));
    for (const tagBytes of [4, 8, 12]) {
      // A plaintext short enough that body = ciphertext + truncated tag is under 16 bytes,
      // where a parser that takes "the last 16 bytes" as the tag would mis-split it.
      for (const plaintext of ['', 'x'.repeat(Math.max(0, 16 - 2 * tagBytes)), 'a longer secret value']) {
        const [version, iv, body] = box.seal(plaintext).split(':');
        const bytes = Buffer.from(body ?? '', 'base64url');
        const ciphertext = bytes.subarray(0, bytes.length - 16);
        const truncated = Buffer.concat([ciphertext, bytes.subarray(bytes.length - 16, bytes.length - 16 + tagBytes)]);
        assert.throws(() => box.open(`${version ?? ''}:${iv ?? ''}:${truncated.toString('base64url')}`), Error, `${tagBytes}-byte tag, ${plaintext.length}-byte plaintext`);
      }
    }
  });

  it('takes CAPSTAN_ENCRYPTION_KEY as 16/24/32 raw or base64 bytes, else generates one key once (0600)', () => {
    assert.equal(loadEncryptionKey('sixteen-byte-key', '/x').length, 32);
    assert.equal(loadEncryptionKey(Buffer.alloc(24, 1).toString('base64'), '/x').length, 32);
    assert.throws(() => loadEncryptionKey('too short', '/x'), /CAPSTAN_ENCRYPTION_KEY/);
    const dir = mkdtempSync(join(tmpdir(), 'capstan-key-'));
    const first = loadEncryptionKey(undefined, dir);
    assert.deepEqual(loadEncryptionKey('', dir), first, 'the same key on every start');
    assert.equal(statSync(join(dir, 'encryption-key')).mode & 0o777, 0o600);
    assert.ok(readFileSync(join(dir, 'encryption-key'), 'utf8').trim().length > 40);
  });

  it('masks the stored webhook token as ••••, keeps it when •••• is sent back, and streams audited requests with it', async () => {
    const received: { auth: string | undefined; events: { action: string }[] }[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ auth: req.headers.authorization, events: (JSON.parse(body) as { events: { action: string }[] }).events });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/ingest`;
    try {
      const h = await testApp();
      const admin = await h.signIn();
      const set = await h.call('PUT', '/admin/settings/audit-stream', { cookie: admin, body: { webhook_url: url, webhook_token: 'collector-secret-1' } });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.webhook_token, '••••');
      assert.doesNotMatch(set.text, /collector-secret-1/);
      const stored = await h.services.db.selectFrom('settings').select('value').where('key', '=', 'audit_stream').executeTakeFirstOrThrow();
      assert.doesNotMatch(stored.value, /collector-secret-1/, 'sealed in the database');

      const kept = await h.call('PUT', '/admin/settings/audit-stream', { cookie: admin, body: { webhook_url: url, webhook_token: '••••' } });
      assert.equal(kept.body.webhook_token, '••••');
      await h.call('POST', '/activity/retention', { cookie: admin, body: { retention_days: 9 } });
      await h.services.forwarder.flush();
      const last = received.at(-1);
      assert.equal(last?.auth, 'Bearer collector-secret-1', 'the token survived the masked write');
      assert.ok(received.flatMap((r) => r.events).some((e) => e.action === 'POST /activity/retention'));

      const bad = await h.call('PUT', '/admin/settings/audit-stream', { cookie: admin, body: { webhook_url: 'ftp://x' } });
      assert.deepEqual([bad.status, bad.body.field], [400, 'webhook_url']);
      h.services.stop();
    } finally {
      collector.close();
    }
  });

  it('keeps every audit row locally while the collector is down', async () => {
    const h = await testApp({ defaults: { auditWebhookUrl: 'http://127.0.0.1:9/unreachable' } });
    const admin = await h.signIn();
    for (let i = 0; i < 5; i++) assert.equal((await h.call('POST', '/activity/retention', { cookie: admin, body: { retention_days: i + 1 } })).status, 200);
    await h.services.forwarder.flush();
    const rows = await h.services.db.selectFrom('audit_log').select('action').where('action', '=', 'POST /activity/retention').execute();
    assert.equal(rows.length, 5);
    const stats = h.services.audit.streamStats();
    assert.ok(stats.queued >= 6 && stats.failures >= 1, JSON.stringify(stats));
    h.services.stop();
  });
});
