// Topology layouts in the embedded database, one row per user and focus.
import * as v from 'valibot';
import type { Clock } from '../../domain/clock.ts';
import type { LayoutStore } from '../../handlers/graph/service.ts';
import { fail, ok } from '../../handlers/result.ts';
import { MAX_LAYOUTS_PER_USER, Positions } from '../../schema/graph.ts';
import type { Db } from '../store/database.ts';

export function createLayoutStore(db: Db, clock: Clock): LayoutStore {
  return {
    async get(userId, focus) {
      const row = await db.selectFrom('topology_layouts').selectAll().where('user_id', '=', userId).where('focus', '=', focus).executeTakeFirst();
      return row ? { positions: v.parse(Positions, JSON.parse(row.positions)), updatedAt: new Date(row.updated_at) } : null;
    },
    async put(userId, focus, positions) {
      const now = clock.now().getTime();
      return db.transaction().execute(async (trx) => {
        const exists = await trx.selectFrom('topology_layouts').select('focus').where('user_id', '=', userId).where('focus', '=', focus).executeTakeFirst();
        if (!exists) {
          const { n } = await trx.selectFrom('topology_layouts').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
          if (n >= MAX_LAYOUTS_PER_USER) return fail({ code: 'conflict', field: 'focus', message: `you keep ${MAX_LAYOUTS_PER_USER} layouts already: delete one first` });
        }
        await trx
          .insertInto('topology_layouts')
          .values({ user_id: userId, focus, positions: JSON.stringify(positions), updated_at: now })
          .onConflict((oc) => oc.columns(['user_id', 'focus']).doUpdateSet({ positions: JSON.stringify(positions), updated_at: now }))
          .execute();
        return ok({ updatedAt: new Date(now) });
      });
    },
    async remove(userId, focus) {
      const result = await db.deleteFrom('topology_layouts').where('user_id', '=', userId).where('focus', '=', focus).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
