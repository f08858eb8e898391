// OAuth: the consent question an MCP client's authorization raises, the apps you have
// connected (grants), which you can disconnect, and (admins) every registered client.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';
import type { operations } from '../schema';

export type Grant = Answer<'get_me_oauth_grants'>['grants'][number];
export type AuthorizationRequest = operations['get_oauth_consent']['parameters']['query'];
export type OAuthClient = Answer<'get_admin_oauth_clients'>['clients'][number];

const grantsKey = ['account', 'oauth-grants'] as const;

export const grants = () => queryOptions({ queryKey: grantsKey, queryFn: () => unwrap(api.GET('/me/oauth/grants')) });

export const revokeGrant = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: string) => unwrap(api.DELETE('/me/oauth/grants/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: grantsKey }),
  });

export const consentRequest = (request: AuthorizationRequest) =>
  queryOptions({ queryKey: ['oauth', 'consent', request], queryFn: () => unwrap(api.GET('/oauth/consent', { params: { query: request } })), retry: false });

/** Answers the consent question; approving adds a grant. The caller follows `redirect_to`. */
export const decideConsent = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (decision: Body<'post_oauth_consent'>) => unwrap(api.POST('/oauth/consent', { body: decision })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: grantsKey }),
  });

const clientsKey = ['admin', 'oauth-clients'] as const;

export const oauthClients = () => queryOptions({ queryKey: clientsKey, queryFn: () => unwrap(api.GET('/admin/oauth/clients')) });

/** Deleting a client revokes its tokens, so connected apps change too. */
export const deleteOAuthClient = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: string) => unwrap(api.DELETE('/admin/oauth/clients/{id}', { params: { path: { id } } })),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: clientsKey }), queryClient.invalidateQueries({ queryKey: grantsKey })]),
  });
