// Saved applications in the embedded database. The unique index on the name (ignoring case)
// decides a name clash, so two concurrent creates cannot both win.
import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import * as v from 'valibot';
import { appNameTaken, appNotFound, type ApplicationStore } from '../../handlers/apps/service.ts';
import { fail, ok } from '../../handlers/result.ts';
import type { Clock } from '../../domain/clock.ts';
import { LabelSelector, type App, type AppDefinition } from '../../schema/apps.ts';
import type { AppsTable } from '../store/tables.ts';
import type { Db } from '../store/database.ts';

function toApp(row: AppsTable): App {
  return {
    id: row.id,
    name: row.name,
    namespaces: v.parse(v.array(v.string()), JSON.parse(row.namespaces)),
    selector: v.parse(LabelSelector, JSON.parse(row.selector)),
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

const isNameClash = (err: unknown) => err instanceof Error && /UNIQUE constraint failed: apps\.name/.test(err.message);

export const newAppId = () => `app_${encodeBase32LowerCaseNoPadding(randomBytes(8)).slice(0, 12)}`;

export function createAppStore(db: Db, clock: Clock): ApplicationStore {
  const row = (id: string) => db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
  const columns = (d: AppDefinition) => ({ name: d.name, namespaces: JSON.stringify(d.namespaces), selector: JSON.stringify(d.selector) });

  return {
    async list() {
      return (await db.selectFrom('apps').selectAll().orderBy('name').execute()).map(toApp);
    },

    async get(id) {
      const found = await row(id);
      return found ? toApp(found) : null;
    },

    async create(definition, createdBy) {
      const now = clock.now().getTime();
      const record: AppsTable = { id: newAppId(), ...columns(definition), created_by: createdBy, created_at: now, updated_at: now };
      try {
        await db.insertInto('apps').values(record).execute();
      } catch (err) {
        if (isNameClash(err)) return fail(appNameTaken(definition.name));
        throw err;
      }
      return ok(toApp(record));
    },

    async update(id, definition) {
      try {
        const result = await db.updateTable('apps').set({ ...columns(definition), updated_at: clock.now().getTime() }).where('id', '=', id).executeTakeFirst();
        if (result.numUpdatedRows === 0n) return fail(appNotFound(id));
      } catch (err) {
        if (isNameClash(err)) return fail(appNameTaken(definition.name));
        throw err;
      }
      const updated = await row(id);
      return updated ? ok(toApp(updated)) : fail(appNotFound(id));
    },

    async remove(id) {
      const result = await db.deleteFrom('apps').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
