// Who is signed in, signing in and signing out. `['me']` is the session gate's key: a 401 on
// it shows sign-in, and every other cached answer is dropped when the session ends.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type Me = Answer<'get_me'>;

const meKey = ['me'] as const;

/** True for the session gate's own query (a 401 anywhere else asks it again). */
export const isMeQuery = (key: readonly unknown[]): boolean => key.length === 1 && key[0] === meKey[0];

export const me = () => queryOptions({ queryKey: meKey, queryFn: () => unwrap(api.GET('/me')), retry: false, staleTime: 60_000 });

/** Asks the gate who we are again; a 401 there (an expired session) shows sign-in. */
export const recheckSession = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: meKey, exact: true });

/** Marks the writes whose 401 is an answer (a wrong password), not a session that ended. */
export const signInKey = ['sign-in'] as const;

export const signIn = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: signInKey,
    mutationFn: (credentials: Body<'post_auth_login'>) => unwrap(api.POST('/auth/login', { body: credentials })),
    onSuccess: () => recheckSession(queryClient),
  });

/** Ends the session server-side, forgets everything cached for it, and asks who we are again. */
export const signOut = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => unwrap(api.POST('/auth/logout')),
    // Even when the agent cannot be reached, nothing of this session stays on screen.
    onSettled: async () => {
      queryClient.removeQueries({ predicate: (q) => !isMeQuery(q.queryKey) });
      await queryClient.resetQueries({ queryKey: meKey, exact: true });
    },
  });
