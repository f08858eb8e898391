// Changing your own password: every other session of yours ends, so the sessions list is stale.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../client';

export const changePassword = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (body: { current_password: string; new_password: string }) => unwrap(api.POST('/me/password', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['account', 'sessions'] }),
  });
