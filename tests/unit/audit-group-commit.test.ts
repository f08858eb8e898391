// Chained appends that arrive together are committed together (issue 13: one transaction per
// audited MCP call was a large share of its cost), without giving up what the chain promises.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditLog } from '../../runtime/audit/audit-log.ts';
import { auditChainKey } from '../../runtime/crypto/secret-box.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { ManualClock } from '../support/services.ts';

async function fresh() {
  const clock = new ManualClock();
  const key = auditChainKey(Buffer.alloc(32, 3));
  const db = await openDatabase(mkdtempSync(join(tmpdir(), 'capstan-group-commit-')), clock, { auditChainKey: key });
  return { db, clock, log: new AuditLog(db, clock, key) };
}

const event = (action: string) => ({ actor: 'admin@10.0.0.1', category: 'mcp', action, outcome: 'success', severity: 'info', detail: {} });

describe('audit group commit', () => {
  it('concurrent appends land in arrival order, chained, each resolved only once its row is stored', async () => {
    const { db, log } = await fresh();
    try {
      const written: string[] = [];
      await Promise.all(
        Array.from({ length: 250 }, async (_, i) => {
          await log.record(event(`call.${String(i)}`));
          const row = await db.selectFrom('audit_log').select('action').where('action', '=', `call.${String(i)}`).executeTakeFirst();
          written.push(row?.action ?? `missing ${String(i)}`);
        }),
      );
      assert.equal(written.length, 250);
      assert.ok(written.every((w) => !w.startsWith('missing')), 'every append was stored when it resolved');
      const rows = await db.selectFrom('audit_log').select(['id', 'action']).orderBy('id').execute();
      assert.deepEqual(rows.map((r) => r.action), Array.from({ length: 250 }, (_, i) => `call.${String(i)}`), 'arrival order is chain order');
      assert.deepEqual(rows.map((r) => r.id), Array.from({ length: 250 }, (_, i) => i + 1), 'consecutive ids');
      assert.deepEqual(await log.verifyChain(), { intact: true, rows_checked: 250 });
    } finally {
      await db.destroy();
    }
  });

  it('appends waiting together share transactions: fewer commits than rows', async () => {
    const { db, log } = await fresh();
    try {
      // The first append starts a transaction at once; the other 99 arrive while it is open and
      // must be written together afterwards, in at most a couple of transactions.
      let transactions = 0;
      const begin = db.transaction.bind(db);
      db.transaction = () => {
        transactions++;
        return begin();
      };
      await Promise.all(Array.from({ length: 100 }, (_, i) => log.record(event(`burst.${String(i)}`))));
      assert.ok(transactions <= 3, `100 concurrent appends took ${String(transactions)} transactions`);
      assert.deepEqual(await log.verifyChain(), { intact: true, rows_checked: 100 });
    } finally {
      await db.destroy();
    }
  });

  it('a failed batch rejects every append in it, and the next appends still chain', async () => {
    const { db, log } = await fresh();
    try {
      await log.record(event('before'));
      const begin = db.transaction.bind(db);
      db.transaction = () => {
        throw new Error('disk full');
      };
      const failed = await Promise.allSettled([log.record(event('lost.1')), log.record(event('lost.2'))]);
      assert.deepEqual(failed.map((f) => f.status), ['rejected', 'rejected']);
      db.transaction = begin;
      await log.record(event('after'));
      assert.deepEqual((await db.selectFrom('audit_log').select('action').orderBy('id').execute()).map((r) => r.action), ['before', 'after']);
      assert.deepEqual(await log.verifyChain(), { intact: true, rows_checked: 2 });
    } finally {
      await db.destroy();
    }
  });
});
