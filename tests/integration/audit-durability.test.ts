// kill -9 of the agent during a burst of audited writes: every write the client saw succeed
// has its audit row, and the chain still verifies. The audit row is committed before the
// response leaves (the audit stage wraps the handler), which is what makes this hold.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { AuditLog } from '../../runtime/audit/audit-log.ts';
import { auditChainKey, loadEncryptionKey } from '../../runtime/crypto/secret-box.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { spawnAgent } from '../support/agent-process.ts';
import { testCluster } from '../support/cluster.ts';

const PASSWORD = 'durability-test-password';
/** Acknowledged writes before the kill: enough that some are surely still being written when it comes. */
const BURST = 40;

it('loses no acknowledged audit row and keeps the chain verifiable across kill -9', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-durability-'));
  const agent = await spawnAgent({ kubeconfig: testCluster().kubeconfig, dataDir, env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD } });
  const { url } = agent;

  const login = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  let acknowledged = 0;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      try {
        const res = await fetch(`${url}/me/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify({ name: 'burst', scopes: ['workloads:read'] }),
        });
        if (res.status === 200) acknowledged++;
        await res.arrayBuffer();
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const writers = Array.from({ length: 16 }, writer);
  // Killed once enough writes were acknowledged to prove something, however long that takes on
  // this machine (a fixed window once measured too few on a loaded one), with writes in flight.
  const started = Date.now();
  while (acknowledged < BURST && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 20));
  killed = true;
  const stopped = agent.stop('SIGKILL');
  await Promise.all(writers);
  await stopped;
  assert.ok(acknowledged >= BURST, `the burst was too small to prove anything (${acknowledged} in 120 s)`);

  const db = await openDatabase(dataDir, { now: () => new Date() });
  try {
    const rows = await db.selectFrom('audit_log').select(['id']).where('action', '=', 'POST /me/api-keys').where('status', '=', 200).execute();
    t.diagnostic(`${acknowledged} writes acknowledged before kill -9, ${rows.length} audited`);
    assert.ok(rows.length >= acknowledged, `${acknowledged} writes acknowledged but only ${rows.length} audited`);
    // The key the agent used: CAPSTAN_ENCRYPTION_KEY from the environment it inherited, else the one it generated into the data dir.
    const chainKey = auditChainKey(loadEncryptionKey(process.env.CAPSTAN_ENCRYPTION_KEY, dataDir));
    assert.deepEqual(await new AuditLog(db, { now: () => new Date() }, chainKey).verifyChain(), { intact: true, rows_checked: (await db.selectFrom('audit_log').select('id').execute()).length });
  } finally {
    await db.destroy();
  }
});
