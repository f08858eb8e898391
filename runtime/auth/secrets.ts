import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A random secret generated once and kept in the data dir (0600); the same on every start. */
export function persistentSecret(dataDir: string, name: string, bytes = 32): Buffer {
  const file = join(dataDir, name);
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  const secret = randomBytes(bytes);
  writeFileSync(file, secret.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}
