// The Tasks tray (spec §2 Task row, §3 Task states): docs/tasks.md.
import * as v from 'valibot';
import { TASK_STATES } from '../domain/tasks/task.ts';
import { Timestamp } from './common.ts';

export const TaskOut = v.object({
  id: v.string(),
  /** `security_scan` now; Helm operations and AI writes later. */
  kind: v.string(),
  /** Who started it. */
  actor: v.string(),
  /** `stopped_reporting` (amber): the agent lost it mid-run; never shown as finished. */
  state: v.picklist(TASK_STATES),
  reason: v.nullable(v.string()),
  detail: v.string(),
  consequence: v.nullable(v.string()),
  started_at: Timestamp,
  ended_at: v.nullable(Timestamp),
});

export const TaskList = v.object({
  tasks: v.array(TaskOut),
  /** Tasks that ended since you last opened the tray (the badge). */
  unseen: v.number(),
  /** You muted the toasts: the rows and the badge stay. */
  muted: v.boolean(),
});

export const TaskMute = v.object({ muted: v.boolean() });

/** The live event: a task started or ended (what a toast fires from, once). */
export const TaskEvent = v.object({ type: v.literal('task'), task: TaskOut });

export const TrayOpened = v.object({ unseen: v.literal(0) });
