// The Tasks tray in the header (admins): a badge counting tasks that ended since the tray was
// last opened, the rows, and a toast once per task, fired by the live event of its end while
// the page is open (unless you muted them). Opening the tray clears the badge; closing a toast
// or muting removes nothing (spec §3, docs/tasks.md).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { muteToasts, taskChanged, tasks, trayOpened, type Task } from '../api/queries/tasks';
import { useTaskEvents } from '../api/task-events';
import { SortableTable, type Column } from './sortable-table';
import { ActionError, QueryView } from './states';
import { Time } from './time';

const STATE_WORDS: Record<Task['state'], string> = { running: 'running', finished: 'finished', failed: 'failed', stopped_reporting: 'stopped reporting' };
const STATE_BADGE: Record<Task['state'], string> = { running: 'degraded', finished: 'healthy', failed: 'critical', stopped_reporting: 'amber' };

const COLUMNS: Column<Task>[] = [
  { key: 'kind', label: 'Task', value: (t) => t.kind.replaceAll('_', ' '), sortable: false },
  { key: 'state', label: 'State', value: (t) => t.state, render: (t) => <span className={`badge ${STATE_BADGE[t.state]}`}>{STATE_WORDS[t.state]}</span>, sortable: false },
  { key: 'actor', label: 'Started by', value: (t) => t.actor, sortable: false },
  {
    key: 'detail',
    label: 'What happened',
    value: (t) => t.detail,
    render: (t) => (
      <>
        {t.reason ? <code>{t.reason}</code> : null} {t.detail}
        {t.consequence ? <p className="muted">{t.consequence}</p> : null}
      </>
    ),
    sortable: false,
  },
  { key: 'started', label: 'Started', value: (t) => t.started_at, render: (t) => <Time at={t.started_at} />, sortable: false },
  { key: 'ended', label: 'Ended', value: (t) => t.ended_at, render: (t) => (t.ended_at ? <Time at={t.ended_at} /> : '–'), sortable: false },
];

export function TasksTray() {
  const queryClient = useQueryClient();
  const query = useQuery(tasks());
  const opened = useMutation(trayOpened(queryClient));
  const [open, setOpen] = useState(false);
  const mute = useMutation(muteToasts(queryClient));
  const [toasts, setToasts] = useState<Task[]>([]);
  // Each task toasts once, from the live event of its end; a muted admin gets none.
  const toasted = useRef(new Set<string>());
  const muted = query.data?.muted ?? false;
  useTaskEvents((task) => {
    void taskChanged(queryClient);
    if (task.state === 'running' || muted || toasted.current.has(task.id)) return;
    toasted.current.add(task.id);
    setToasts((shown) => [...shown, task]);
  });
  const unseen = query.data?.unseen ?? 0;
  const toggle = () => {
    if (!open) opened.mutate();
    setOpen(!open);
  };
  return (
    <>
      <button type="button" onClick={toggle} aria-expanded={open} aria-controls="tasks-tray">
        Tasks{unseen > 0 ? <span className="count" aria-label={`${String(unseen)} ended since you last looked`}> {unseen}</span> : null}
      </button>
      {open ? (
        <section id="tasks-tray" className="card tray" aria-labelledby="tasks-tray-title">
          <h2 id="tasks-tray-title">Tasks</h2>
          <label>
            <input type="checkbox" checked={muted} disabled={mute.isPending || query.data === undefined} onChange={(e) => mute.mutate(e.target.checked)} /> Mute notices (the rows and the count stay)
          </label>
          <ActionError error={opened.error} what="mark the tray read" />
          <ActionError error={mute.error} what="mute the notices" />
          <QueryView query={query} what="tasks">
            {(data) => <SortableTable rows={data.tasks} columns={COLUMNS} rowKey={(t) => t.id} caption="Long operations, newest first" sortable={false} empty="No task yet: scans, Helm operations and AI writes appear here." />}
          </QueryView>
        </section>
      ) : null}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <p key={t.id} className={`toast ${STATE_BADGE[t.state]}`}>
            {t.kind.replaceAll('_', ' ')} {STATE_WORDS[t.state]}: {t.detail}{' '}
            <button type="button" onClick={() => setToasts((shown) => shown.filter((s) => s.id !== t.id))} aria-label={`Dismiss the ${t.kind.replaceAll('_', ' ')} notice`}>
              ×
            </button>
          </p>
        ))}
      </div>
    </>
  );
}
