// Account storage, password hashing and the admin/viewer seeding of spec §5.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../domain/clock.ts';
import type { Role } from '../../schema/access.ts';
import type { Logger } from '../log.ts';
import type { Db } from '../store/database.ts';
import { isBcryptHash, type PasswordHasher } from './password.ts';

export const INITIAL_ADMIN_PASSWORD_FILE = 'initial-admin-password';

export interface SeedOptions {
  /** CAPSTAN_ADMIN_PASSWORD: at least 8 characters; empty = generate one. */
  adminPassword?: string;
  /** CAPSTAN_VIEWER_PASSWORD: a bcrypt hash or plaintext; empty = single-admin mode. */
  viewerPassword?: string;
}

/**
 * Creates `admin` (and `viewer`) when absent. An already-set password is never overwritten.
 * A generated admin password is written once to DATA_DIR/initial-admin-password (0600).
 */
export async function seedAccounts(db: Db, dataDir: string, clock: Clock, options: SeedOptions, passwords: PasswordHasher, log: Logger): Promise<void> {
  const supplied = options.adminPassword ?? '';
  if (supplied !== '' && supplied.length < 8) throw new Error('CAPSTAN_ADMIN_PASSWORD must be at least 8 characters');
  if (!(await findUser(db, 'admin'))) {
    let password = supplied;
    if (password === '') {
      password = randomBytes(18).toString('base64url');
      const file = join(dataDir, INITIAL_ADMIN_PASSWORD_FILE);
      writeFileSync(file, password + '\n', { mode: 0o600 });
      log.info('generated the initial admin password', { username: 'admin', password, file });
    }
    await insertUser(db, clock, 'admin', 'admin', await passwords.hash(password));
  }
  const viewer = options.viewerPassword ?? '';
  if (viewer !== '' && !(await findUser(db, 'viewer'))) {
    await insertUser(db, clock, 'viewer', 'viewer', isBcryptHash(viewer) ? viewer : await passwords.hash(viewer));
  }
}

/** The generated admin password, if this data dir has one (the demo prints it). */
export function readInitialAdminPassword(dataDir: string): string | null {
  const file = join(dataDir, INITIAL_ADMIN_PASSWORD_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

export function findUser(db: Db, username: string) {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

async function insertUser(db: Db, clock: Clock, username: string, role: Role, passwordHash: string): Promise<void> {
  await db.insertInto('users').values({ username, role, password_hash: passwordHash, active: 1, created_at: clock.now().getTime() }).execute();
}
