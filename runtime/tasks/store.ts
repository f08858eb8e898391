// The Tasks tray's rows (spec §2, §3), through the transitions of domain/tasks/task.ts: a
// store never writes a state the domain did not produce. At start, every task an earlier run
// of the agent left running becomes stopped reporting (amber), never finished.
import type { Clock } from '../../domain/clock.ts';
import { finishTask, startTask, stoppedReporting, type TaskRow } from '../../domain/tasks/task.ts';
import type { TaskService } from '../../handlers/tasks/service.ts';
import type { Logger } from '../log.ts';
import type { Db } from '../store/database.ts';
import type { TasksTable } from '../store/tables.ts';

/** Spec §6 keeps the general audit log 365 days; the tray keeps its rows as long. */
export const TASK_RETENTION_MS = 365 * 24 * 60 * 60 * 1000;

const toRow = (r: TasksTable): TaskRow => ({
  id: r.id,
  kind: r.kind,
  actor: r.actor,
  state: r.state as TaskRow['state'],
  reason: r.reason,
  detail: r.detail,
  consequence: r.consequence,
  startedAt: new Date(r.started_at),
  endedAt: r.ended_at === null ? null : new Date(r.ended_at),
});

const toTable = (row: TaskRow): TasksTable => ({
  id: row.id,
  kind: row.kind,
  actor: row.actor,
  state: row.state,
  reason: row.reason,
  detail: row.detail,
  consequence: row.consequence,
  started_at: row.startedAt.getTime(),
  ended_at: row.endedAt?.getTime() ?? null,
});

export async function createTaskStore(db: Db, clock: Clock, log: Logger): Promise<TaskService> {
  const lost = await db.selectFrom('tasks').selectAll().where('state', '=', 'running').execute();
  for (const r of lost) {
    const marked = stoppedReporting(toRow(r), clock.now());
    if (marked.ok) await db.updateTable('tasks').set(toTable(marked.row)).where('id', '=', r.id).where('state', '=', 'running').execute();
  }
  if (lost.length > 0) log.warn('tasks left running by an earlier run are stopped reporting', { tasks: lost.map((r) => r.id) });

  const listeners = new Set<(row: TaskRow) => void>();
  const emit = (row: TaskRow) => {
    for (const listener of listeners) {
      try {
        listener(row);
      } catch (err) {
        log.warn('a task listener failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  };
  const trayRow = (userId: number) => db.selectFrom('task_tray_opened').selectAll().where('user_id', '=', userId).executeTakeFirst();

  return {
    async start(input) {
      const row = startTask({ ...input, at: clock.now() });
      await db.insertInto('tasks').values(toTable(row)).execute();
      await db.deleteFrom('tasks').where('started_at', '<', clock.now().getTime() - TASK_RETENTION_MS).execute();
      emit(row);
    },
    async finish(id, outcome) {
      const held = await db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
      if (held === undefined) return;
      const next = finishTask(toRow(held), outcome, clock.now());
      if (!next.ok) {
        log.warn('a task could not end', { task: id, why: next.message });
        return;
      }
      const result = await db.updateTable('tasks').set(toTable(next.row)).where('id', '=', id).where('state', '=', 'running').executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) emit(next.row);
    },
    async list(limit) {
      return (await db.selectFrom('tasks').selectAll().orderBy('started_at', 'desc').limit(limit).execute()).map(toRow);
    },
    async unseen(userId) {
      // unseenCount's rule, counted by the database: ended after the tray was last opened.
      const opened = await db.selectFrom('task_tray_opened').select('opened_at').where('user_id', '=', userId).executeTakeFirst();
      const row = await db
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll<number | bigint>().as('n'))
        .where('ended_at', 'is not', null)
        .where('ended_at', '>', opened?.opened_at ?? -1)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async opened(userId) {
      const at = clock.now().getTime();
      await db.insertInto('task_tray_opened').values({ user_id: userId, opened_at: at, muted: 0 }).onConflict((oc) => oc.column('user_id').doUpdateSet({ opened_at: at })).execute();
    },
    async muted(userId) {
      return (await trayRow(userId))?.muted === 1;
    },
    async setMuted(userId, muted) {
      // A first mute before the tray was ever opened leaves the badge as it was: nothing counts as seen.
      await db.insertInto('task_tray_opened').values({ user_id: userId, opened_at: -1, muted: muted ? 1 : 0 }).onConflict((oc) => oc.column('user_id').doUpdateSet({ muted: muted ? 1 : 0 })).execute();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
