import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../runtime/store/database.ts';
import { migrations } from '../../runtime/store/migrations.ts';

const clock = { now: () => new Date('2026-11-21T12:00:00Z') };
const freshDir = () => mkdtempSync(join(tmpdir(), 'capstan-store-'));

describe('embedded database', () => {
  it('applies every migration once, in WAL mode with foreign keys enforced', async () => {
    const dir = freshDir();
    const db = await openDatabase(dir, clock);
    const versions = await db.selectFrom('schema_migrations').select(['version', 'applied_at']).execute();
    assert.deepEqual(versions, migrations.map((m) => ({ version: m.version, applied_at: clock.now().getTime() })));
    const mode = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db);
    assert.equal(mode.rows[0]?.journal_mode, 'wal');
    await assert.rejects(
      db.insertInto('sessions').values({ id: 's', user_id: 999, created_at: 0, last_seen_at: 0, ip: '127.0.0.1' }).execute(),
      /FOREIGN KEY/,
    );
    await db.destroy();

    const reopened = await openDatabase(dir, clock);
    assert.equal((await reopened.selectFrom('schema_migrations').selectAll().execute()).length, migrations.length);
    await reopened.destroy();
  });

  it('rolls a failing migration back whole, leaving no half-made table', async () => {
    const dir = freshDir();
    const broken = [
      ...migrations,
      {
        version: 99,
        name: 'fails half-way',
        async up(db: Parameters<(typeof migrations)[number]['up']>[0]) {
          await sql`CREATE TABLE half_made (id INTEGER)`.execute(db);
          throw new Error('disk on fire');
        },
      },
    ];
    await assert.rejects(openDatabase(dir, clock, { migrations: broken }), /disk on fire/);
    const db = await openDatabase(dir, clock);
    const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db);
    assert.ok(!tables.rows.some((t) => t.name === 'half_made'));
    const versions = (await db.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version);
    assert.ok(!versions.includes(99));
    await db.destroy();
  });

  it('refuses a database a newer release migrated (a downgrade), naming both versions, and leaves it untouched', async () => {
    const dir = freshDir();
    const newer = [...migrations, { version: 999, name: 'from a later release', async up(db: Parameters<(typeof migrations)[number]['up']>[0]) { await sql`CREATE TABLE later_table (id INTEGER)`.execute(db); } }];
    const written = await openDatabase(dir, clock, { migrations: newer });
    await written.destroy();
    const known = Math.max(...migrations.map((m) => m.version));
    await assert.rejects(openDatabase(dir, clock), (err: Error) => {
      assert.match(err.message, /written by a newer Capstan/);
      assert.match(err.message, /schema version 999/);
      assert.match(err.message, new RegExp(`knows versions up to ${known}`));
      return true;
    });
    // Opened again by the release that wrote it, nothing was lost or half-done.
    const again = await openDatabase(dir, clock, { migrations: newer });
    const versions = (await again.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version);
    assert.ok(versions.includes(999));
    await again.destroy();
  });

  it('returns plain rows without driver metadata', async () => {
    const db = await openDatabase(freshDir(), clock);
    await db.insertInto('users').values({ username: 'ada', role: 'admin', password_hash: null, active: 1, created_at: 1 }).execute();
    const row = await db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(Object.keys(row).sort(), ['active', 'created_at', 'id', 'password_hash', 'role', 'role_pinned', 'totp_disable_attempts', 'totp_enabled', 'totp_last_step', 'totp_secret', 'username']);
    await db.destroy();
  });
});
