import type { TaskOutcome, TaskRow } from '../../domain/tasks/task.ts';

/** What starts and ends Tasks: the code that runs a long operation (scans now; Helm and AI writes later). */
export interface TaskRecorder {
  start(input: { id: string; kind: string; actor: string; detail: string }): Promise<void>;
  finish(id: string, outcome: TaskOutcome): Promise<void>;
}

/** The Tasks tray (admins): the rows, newest first, and the badge. */
export interface TaskService extends TaskRecorder {
  list(limit: number): Promise<TaskRow[]>;
  /** Ended tasks since `userId` last opened the tray. */
  unseen(userId: number): Promise<number>;
  /** The tray was opened: the badge clears (and only so). */
  opened(userId: number): Promise<void>;
  /** Whether `userId` muted the toasts (the rows and the badge stay). */
  muted(userId: number): Promise<boolean>;
  setMuted(userId: number, muted: boolean): Promise<void>;
  /** Every row as it starts or ends, from now on (the live event a toast fires from); returns the unsubscribe. */
  subscribe(listener: (row: TaskRow) => void): () => void;
}
