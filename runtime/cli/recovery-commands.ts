// `capstan recover-admin` and `capstan enable-local-login`: run inside the agent pod
// (kubectl exec) against its data dir, with the agent's own environment.
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock } from '../../domain/clock.ts';
import { AuditLog } from '../audit/audit-log.ts';
import { enableLocalLogin, recoverAdmin } from '../auth/recovery.ts';
import { auditChainKey, createSecretBox, loadEncryptionKey } from '../crypto/secret-box.ts';
import { openDatabase, type Db } from '../store/database.ts';
import { SettingsStore } from '../store/settings.ts';
import { settingValues } from '../store/setting-defaults.ts';
import { agentOptionsFromEnv } from './env-options.ts';

const dataDirOption = { 'data-dir': { type: 'string', default: process.env.CAPSTAN_DATA_DIR ?? './data' } } as const;

async function withStore<T>(dataDir: string, run: (db: Db, settings: SettingsStore, audit: AuditLog) => Promise<T>): Promise<T> {
  const env = agentOptionsFromEnv();
  mkdirSync(dataDir, { recursive: true });
  // The agent's own key (same environment, same data dir): the rows written here join its chain.
  const encryptionKey = loadEncryptionKey(env.encryptionKey, dataDir);
  const chainKey = auditChainKey(encryptionKey);
  const db = await openDatabase(dataDir, systemClock, { auditChainKey: chainKey });
  try {
    const secrets = createSecretBox(encryptionKey);
    const settings = new SettingsStore(db, systemClock, settingValues(env.settingDefaults ?? {}, secrets));
    return await run(db, settings, new AuditLog(db, systemClock, chainKey));
  } finally {
    await db.destroy();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export async function runRecoverAdminCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { username: { type: 'string' }, 'password-stdin': { type: 'boolean', default: false }, ...dataDirOption }, strict: true });
  if (!values.username || !values['password-stdin']) {
    process.stderr.write('usage: capstan recover-admin --username <user> --password-stdin [--data-dir DIR]\n  (the new password is read from standard input, never from the command line)\n');
    return 2;
  }
  const username = values.username;
  const password = await readStdin();
  const report = await withStore(values['data-dir'], (db, settings, audit) => recoverAdmin(db, systemClock, settings, audit, username, password));
  process.stdout.write(
    `${report.created ? 'created' : 'recovered'} admin ${username}: password reset, second factor cleared, account active, ` +
      `${report.sessionsEnded} session(s) ended, ${report.bansCleared} IP ban(s) cleared, password sign-in on for everyone\n`,
  );
  return 0;
}

export async function runEnableLocalLoginCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'admin-only': { type: 'boolean', default: false }, ...dataDirOption }, strict: true });
  const mode = await withStore(values['data-dir'], (_db, settings, audit) => enableLocalLogin(settings, audit, values['admin-only']));
  process.stdout.write(`password sign-in is now ${mode === 'all' ? 'on for everyone' : 'on for admins only'}\n`);
  return 0;
}
