// The Tasks tray (admins, a person's session: spec §5 "Admin-only: … Tasks tray"). Reading the
// rows never clears the badge; only saying the tray was opened does (spec §3).
import type { TaskRow } from '../../domain/tasks/task.ts';
import type { Out } from '../../schema/common.ts';
import { NoInput } from '../../schema/common.ts';
import { TaskList, TrayOpened, type TaskOut } from '../../schema/tasks.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

/** Rows the tray answers, newest first. */
export const TRAY_ROWS = 100;

const taskOutput = (t: TaskRow): Out<typeof TaskOut> => ({
  id: t.id,
  kind: t.kind,
  actor: t.actor,
  state: t.state,
  reason: t.reason,
  detail: t.detail,
  consequence: t.consequence,
  started_at: t.startedAt.toISOString(),
  ended_at: t.endedAt?.toISOString() ?? null,
});

async function listTasks(_input: unknown, ctx: SessionContext): Promise<Result<Out<typeof TaskList>>> {
  const [tasks, unseen] = await Promise.all([ctx.tasks.list(TRAY_ROWS), ctx.tasks.unseen(ctx.principal.userId)]);
  return ok({ tasks: tasks.map(taskOutput), unseen });
}

async function trayOpened(_input: unknown, ctx: SessionContext): Promise<Result<Out<typeof TrayOpened>>> {
  await ctx.tasks.opened(ctx.principal.userId);
  return ok({ unseen: 0 });
}

export const taskRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/tasks',
    summary: 'The Tasks tray: the newest 100 long operations (who started each, its state, reason, detail and consequence) and how many ended since you last opened it',
    ...noApiKeys('admin'),
    // The dashboard polls it every 5 s: a read that succeeds goes to the access log (7 days),
    // not a chained audit row each time; a refused one is still audited.
    audit: 'access',
    rateLimit: 'read',
    input: NoInput,
    output: TaskList,
    handler: listTasks,
  }),
  defineRoute({
    method: 'POST',
    path: '/tasks/opened',
    summary: 'You opened the Tasks tray: its badge clears (nothing else does; no row is removed)',
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'write',
    input: NoInput,
    output: TrayOpened,
    handler: trayOpened,
  }),
];
