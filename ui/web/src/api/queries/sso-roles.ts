// Admin → Groups' default role and un-pinning an SSO account's hand-set role (docs/sso.md
// "Admin emails and groups").
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';
import { groups } from './sso';
import { users, type Role } from './users';

/** The role groups get the first time a sign-in carries them; groups already listed keep theirs. */
export const setDefaultRole = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (role: Role) => unwrap(api.PUT('/admin/groups/default-role', { body: { default_role: role } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groups().queryKey }),
  });

/** The account's role follows its groups again (re-resolved at once by the agent). */
export const unpinRole = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (username: string) => unwrap(api.DELETE('/admin/users/{username}/role-pin', { params: { path: { username } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: users().queryKey }),
  });
