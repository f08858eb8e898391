// Admin: IP access, the allow and deny lists and the bans (lifting one).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';

export type IpAccess = Answer<'get_admin_access_control'>;
export type Ban = IpAccess['bans'][number];

const ipAccessKey = ['admin', 'ip-access'] as const;

export const ipAccess = () => queryOptions({ queryKey: ipAccessKey, queryFn: () => unwrap(api.GET('/admin/access-control')) });

export const updateIpLists = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (lists: Body<'put_admin_access_control'>) => unwrap(api.PUT('/admin/access-control', { body: lists })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ipAccessKey }),
  });

export const liftBan = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (ip: string) => unwrap(api.DELETE('/admin/access-control/bans/{ip}', { params: { path: { ip } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ipAccessKey }),
  });
