// Admin: local users. Deactivating one also ends their sessions and revokes their API keys
// and connected apps (the agent does it; reactivating restores none of them).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type User = Answer<'get_admin_users'>['users'][number];
export type Role = User['role'];
export type UserChange = Body<'patch_admin_users_by_username'> & { username: string };

const usersKey = ['admin', 'users'] as const;

export const users = () => queryOptions({ queryKey: usersKey, queryFn: () => unwrap(api.GET('/admin/users')) });

export type Seats = Answer<'get_admin_seats'>;

/** Under the users key: creating or (de)activating a user invalidates the counts with the list. */
export const seats = () => queryOptions({ queryKey: [...usersKey, 'seats'], queryFn: () => unwrap(api.GET('/admin/seats')) });

export const createUser = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (user: Body<'post_admin_users'>) => unwrap(api.POST('/admin/users', { body: user })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });

/** A role change or (de)activation. */
export const updateUser = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ username, ...change }: UserChange) => unwrap(api.PATCH('/admin/users/{username}', { params: { path: { username } }, body: change })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
