// Admin: security settings an admin edits at runtime (the session idle timeout).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Body } from '../client';

const securityKey = ['admin', 'settings', 'security'] as const;

export const securitySettings = () => queryOptions({ queryKey: securityKey, queryFn: () => unwrap(api.GET('/admin/settings/security')) });

export const updateSecuritySettings = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (settings: Body<'put_admin_settings_security'>) => unwrap(api.PUT('/admin/settings/security', { body: settings })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKey }),
  });
