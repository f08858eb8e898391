// The Tasks tray (admins): the rows and the badge, polled; saying the tray was opened clears
// the badge (reading the rows never does). docs/tasks.md.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type TaskList = Answer<'get_tasks'>;
export type Task = TaskList['tasks'][number];

const tasksKey = ['admin', 'tasks'] as const;

/** Every 5 s: a finished task's toast comes from the poll that first sees it ended. */
export const tasks = () => queryOptions({ queryKey: tasksKey, queryFn: () => unwrap(api.GET('/tasks')), refetchInterval: 5000 });

export const trayOpened = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => unwrap(api.POST('/tasks/opened')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tasksKey }),
  });
