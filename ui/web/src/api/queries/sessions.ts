// Your signed-in sessions, and ending one.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';
import { recheckSession } from './session';

export type Session = Answer<'get_me_sessions'>['sessions'][number];

const sessionsKey = ['account', 'sessions'] as const;

export const mySessions = () => queryOptions({ queryKey: sessionsKey, queryFn: () => unwrap(api.GET('/me/sessions')) });

export const revokeSession = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: string) => unwrap(api.DELETE('/me/sessions/{id}', { params: { path: { id } } })),
    // Ending the session this browser uses signs it out: the gate finds out and shows sign-in.
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: sessionsKey }), recheckSession(queryClient)]),
  });
