// A Task: one long operation (a Helm operation, a scan, later an AI write) as the Tasks tray
// shows it (spec §2 Task row, §3 Task states). Pure: the states, the transitions and the words
// each row carries; the runtime stores rows and applies these.
//
// States: running → finished | failed, and running → stopped_reporting when the process that
// ran it went away mid-run (the agent restarted, its pod was evicted). A task nobody can vouch
// for is never shown as finished: stopped reporting is amber, and final.

export const TASK_STATES = ['running', 'finished', 'failed', 'stopped_reporting'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** How a run ended, as the code that ran it knows. */
export type TaskOutcome = { kind: 'success'; detail: string } | { kind: 'error'; reason: string; detail: string; consequence: string } | { kind: 'timeout'; afterSecs: number; consequence: string };

export interface TaskRow {
  id: string;
  /** What kind of operation: `security_scan`, `helm_install`… */
  kind: string;
  /** Who started it (an account name, or `scheduler`). */
  actor: string;
  state: TaskState;
  /** Short, machine-like: `DeadlineExceeded`, `OOMKilled`, `AgentRestarted`; null while running or on success. */
  reason: string | null;
  /** What happened, in plain words. */
  detail: string;
  /** What it means for the reader: what changed, or what did not. */
  consequence: string | null;
  startedAt: Date;
  endedAt: Date | null;
}

export type Transition = { ok: true; row: TaskRow } | { ok: false; message: string };

/** A new task, running. */
export function startTask(input: { id: string; kind: string; actor: string; detail: string; at: Date }): TaskRow {
  return { id: input.id, kind: input.kind, actor: input.actor, state: 'running', reason: null, detail: input.detail, consequence: null, startedAt: input.at, endedAt: null };
}

/**
 * A running task's end. A timeout is a failure (spec §3: "timeouts are shown as failures").
 * Only a running task ends: one that stopped reporting stays so, whatever arrives late, since
 * nobody saw the middle of its run.
 */
export function finishTask(row: TaskRow, outcome: TaskOutcome, at: Date): Transition {
  if (row.state !== 'running') return { ok: false, message: `task ${row.id} is ${row.state}, not running` };
  switch (outcome.kind) {
    case 'success':
      return { ok: true, row: { ...row, state: 'finished', reason: null, detail: outcome.detail, consequence: null, endedAt: at } };
    case 'error':
      return { ok: true, row: { ...row, state: 'failed', reason: outcome.reason, detail: outcome.detail, consequence: outcome.consequence, endedAt: at } };
    case 'timeout':
      return { ok: true, row: { ...row, state: 'failed', reason: 'DeadlineExceeded', detail: `It did not finish within ${String(outcome.afterSecs)} s and was stopped.`, consequence: outcome.consequence, endedAt: at } };
  }
}

/** Every task still running when the agent starts: nobody saw it end (spec §3 "stopped reporting", amber). */
export function stoppedReporting(row: TaskRow, at: Date): Transition {
  if (row.state !== 'running') return { ok: false, message: `task ${row.id} is ${row.state}, not running` };
  return {
    ok: true,
    row: {
      ...row,
      state: 'stopped_reporting',
      reason: 'AgentRestarted',
      detail: 'The agent restarted (or its pod was evicted) while this ran, so nothing reported how it ended.',
      consequence: 'Its result is unknown: check what it was changing before running it again.',
      endedAt: at,
    },
  };
}

/** How many of `rows` ended after the reader last opened the tray: the badge (it clears only when the tray is opened). */
export function unseenCount(rows: readonly Pick<TaskRow, 'endedAt'>[], openedAt: Date | null): number {
  return rows.filter((r) => r.endedAt !== null && (openedAt === null || r.endedAt > openedAt)).length;
}
