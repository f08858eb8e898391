// The Tasks tray (admins): the rows and the badge, polled; saying the tray was opened clears
// the badge (reading the rows never does). docs/tasks.md.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type TaskList = Answer<'get_tasks'>;
export type Task = TaskList['tasks'][number];

const tasksKey = ['admin', 'tasks'] as const;

/** Every 15 s for the badge and the rows; a task's end reaches the page at once through the live events (api/task-events.ts). */
export const tasks = () => queryOptions({ queryKey: tasksKey, queryFn: () => unwrap(api.GET('/tasks')), refetchInterval: 15_000 });

/** Mute or unmute your toasts: the rows and the badge stay. */
export const muteToasts = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (muted: boolean) => unwrap(api.PUT('/tasks/mute', { body: { muted } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tasksKey }),
  });

/** A task started or ended: the rows and the badge are read again. */
export const taskChanged = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: tasksKey });

export const trayOpened = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => unwrap(api.POST('/tasks/opened')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tasksKey }),
  });
