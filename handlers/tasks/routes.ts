// The Tasks tray (admins, a person's session: spec §5 "Admin-only: … Tasks tray"). Reading the
// rows never clears the badge; only saying the tray was opened does (spec §3).
import type { TaskRow } from '../../domain/tasks/task.ts';
import type { Out } from '../../schema/common.ts';
import { NoInput } from '../../schema/common.ts';
import { TaskEvent, TaskList, TaskMute, TrayOpened, type TaskOut } from '../../schema/tasks.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import { defineRoute, noApiKeys, type Route, type StreamAnswer } from '../route.ts';

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
  const [tasks, unseen, muted] = await Promise.all([ctx.tasks.list(TRAY_ROWS), ctx.tasks.unseen(ctx.principal.userId), ctx.tasks.muted(ctx.principal.userId)]);
  return ok({ tasks: tasks.map(taskOutput), unseen, muted });
}

async function setMute(input: Out<typeof TaskMute>, ctx: SessionContext): Promise<Result<Out<typeof TaskMute>>> {
  await ctx.tasks.setMuted(ctx.principal.userId, input.muted);
  return ok({ muted: input.muted });
}

/** Events a slow reader may have waiting; past it the oldest go (the tray's rows are the record, not the stream). */
const LIVE_BACKLOG = 100;

/** Each task as it starts or ends, from the moment the stream opens, until the client goes. */
function taskEvents(_input: unknown, ctx: SessionContext): Result<StreamAnswer<Out<typeof TaskEvent>, never>> {
  return ok({
    async *events(signal) {
      const waiting: TaskRow[] = [];
      let wake: (() => void) | null = null;
      const unsubscribe = ctx.tasks.subscribe((row) => {
        waiting.push(row);
        if (waiting.length > LIVE_BACKLOG) waiting.shift();
        wake?.();
      });
      const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      try {
        while (!signal.aborted) {
          const row = waiting.shift();
          if (row !== undefined) {
            yield { type: 'task', task: taskOutput(row) };
            continue;
          }
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), stopped]);
          wake = null;
        }
      } finally {
        unsubscribe();
      }
    },
  });
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
    method: 'GET',
    path: '/tasks/events',
    summary: 'Each task as it starts or ends, as Server-Sent Events (`task`), from the moment the stream opens: what the dashboard toasts from, once per task. At most 3 open per user and 50 in all',
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'read',
    input: NoInput,
    output: TaskEvent,
    stream: { event: TaskEvent, caps: { perUser: 3, total: 50, noun: 'task streams' } },
    handler: taskEvents,
  }),
  defineRoute({
    method: 'PUT',
    path: '/tasks/mute',
    summary: 'Mute or unmute your Tasks toasts ({muted}); the rows and the badge stay',
    ...noApiKeys('admin'),
    audit: 'http',
    rateLimit: 'write',
    input: TaskMute,
    output: TaskMute,
    handler: setMute,
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
