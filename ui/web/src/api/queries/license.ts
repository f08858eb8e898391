// Admin → License: the key in force, installing one, removing it. Any change also refetches
// the session's other queries, since a tier change decides which screens answer 402.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';

export type License = Answer<'get_admin_license'>;

const licenseKey = ['admin', 'license'] as const;

export const license = () => queryOptions({ queryKey: licenseKey, queryFn: () => unwrap(api.GET('/admin/license')) });

export const installLicense = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (key: string) => unwrap(api.PUT('/admin/license', { body: { key } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });

export const removeLicense = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => unwrap(api.DELETE('/admin/license')),
    onSuccess: () => queryClient.invalidateQueries(),
  });
