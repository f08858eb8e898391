import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import Libsql from 'libsql';
import type { Clock } from '../../domain/clock.ts';
import { migrations as releasedMigrations, type Migration } from './migrations.ts';
import type { Database } from './tables.ts';
import { TableWriteWatch } from './write-watch.ts';

export type Db = Kysely<Database>;

/** The tables a verified credential is read from: a write to any may end or change one. */
const CREDENTIAL_TABLES: ReadonlySet<string> = new Set(['users', 'sessions', 'api_keys', 'oauth_tokens']);
const credentialWatches = new WeakMap<Db, TableWriteWatch>();

/** Counts writes to the credential tables through `db` (null for a handle not made by openDatabase). */
export function credentialWrites(db: Db): TableWriteWatch | null {
  return credentialWatches.get(db) ?? null;
}

type Row = Record<string, unknown>;

/** libsql adds an enumerable `_metadata` key to every row; nothing above the store should see it. */
function clean<T>(row: T): T {
  if (row && typeof row === 'object' && '_metadata' in row) {
    const copy: Row = { ...(row as Row) };
    delete copy._metadata;
    return copy as T;
  }
  return row;
}

/** Prepared statements kept per SQL text: kysely prepares every query it runs, and most are the same few. */
const STATEMENT_CACHE_SIZE = 256;

function adapt(db: Libsql.Database): SqliteDatabase {
  const statements = new Map<string, Libsql.Statement>();
  const prepared = (query: string): Libsql.Statement => {
    let stmt = statements.get(query);
    if (stmt === undefined) {
      stmt = db.prepare(query);
      statements.set(query, stmt);
      if (statements.size > STATEMENT_CACHE_SIZE) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
    }
    return stmt;
  };
  return {
    close: () => {
      statements.clear();
      db.close();
    },
    prepare(query: string): SqliteStatement {
      const stmt = prepared(query);
      return {
        get reader() {
          return stmt.reader;
        },
        all: (parameters: readonly unknown[]) => stmt.all(...parameters).map(clean),
        run: (parameters: readonly unknown[]) => stmt.run(...parameters),
        iterate: function* (parameters: readonly unknown[]) {
          for (const row of stmt.iterate(...parameters) as Iterable<unknown>) yield clean(row);
        },
      };
    },
  };
}

export interface OpenOptions {
  /** The released migrations unless a test gives others. */
  migrations?: readonly Migration[];
  /** The audit chain's HMAC key; needed once, to re-key an audit chain an earlier release wrote unkeyed. */
  auditChainKey?: Buffer;
}

/** Opens DATA_DIR/capstan.db (WAL, foreign keys on) and applies pending migrations. */
export async function openDatabase(dataDir: string, clock: Clock, options: OpenOptions = {}): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const raw = new Libsql(join(dataDir, 'capstan.db'));
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  raw.exec('PRAGMA busy_timeout = 5000');
  const watch = new TableWriteWatch(CREDENTIAL_TABLES);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: adapt(raw) }), plugins: [watch] });
  credentialWatches.set(db, watch);
  try {
    await migrate(db, clock, options.migrations ?? releasedMigrations, options.auditChainKey ?? null);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return db;
}

export async function migrate(db: Db, clock: Clock, migrations: readonly Migration[], auditChainKey: Buffer | null = null): Promise<number[]> {
  await sql`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`.execute(db);
  const applied = new Set((await db.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version));
  // A downgrade guard: rows a later release wrote may mean things this release cannot read (or
  // would overwrite), so refuse before anything is written rather than run on a schema it
  // does not know.
  const known = new Set(migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v)).sort((a, b) => a - b);
  if (unknown.length > 0) {
    const newest = unknown[unknown.length - 1];
    throw new Error(
      `capstan.db was written by a newer Capstan (schema version ${newest}); this release knows versions up to ${Math.max(0, ...known)}. ` +
        'Refusing to open it: run the release that wrote it, or restore the backup taken before the upgrade (docs/install.md, "Upgrade").',
    );
  }
  const ran: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    await db.transaction().execute(async (trx) => {
      await migration.up(trx, { now: clock.now().getTime(), auditChainKey });
      await trx.insertInto('schema_migrations').values({ version: migration.version, name: migration.name, applied_at: clock.now().getTime() }).execute();
    });
    ran.push(migration.version);
  }
  return ran;
}
