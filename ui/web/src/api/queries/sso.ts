// Sign-in methods (public), LDAP sign-in, and Admin → SSO / Groups (docs/sso.md).
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../client';
import { recheckSession, signInKey } from './session';

export type AuthMethods = Answer<'get_auth_methods'>;
export type SsoView = Answer<'get_admin_sso'>;
export type LdapConfig = Body<'put_admin_sso_ldap'>;
export type LdapTestResult = Answer<'post_admin_sso_ldap_test'>;
export type Group = Answer<'get_admin_groups'>['groups'][number];
export type OidcConfig = Body<'put_admin_sso_oidc'>;
export type SamlConfigInput = Body<'put_admin_sso_saml'>;

const ssoKey = ['admin', 'sso'] as const;
const groupsKey = ['admin', 'groups'] as const;

export const authMethods = () => queryOptions({ queryKey: ['auth', 'methods'], queryFn: () => unwrap(api.GET('/auth/methods')), staleTime: 30_000 });

/** The same mutation key as the password form: a 401 here is an answer, not a session that ended. */
export const ldapSignIn = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: signInKey,
    mutationFn: (credentials: Body<'post_auth_ldap_login'>) => unwrap(api.POST('/auth/ldap/login', { body: credentials })),
    onSuccess: () => recheckSession(queryClient),
  });

export const ssoSettings = () => queryOptions({ queryKey: ssoKey, queryFn: () => unwrap(api.GET('/admin/sso')) });

const refreshSso = (queryClient: QueryClient) => Promise.all([queryClient.invalidateQueries({ queryKey: ssoKey }), queryClient.invalidateQueries({ queryKey: ['auth', 'methods'] })]);

export const saveLdap = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: (config: LdapConfig) => unwrap(api.PUT('/admin/sso/ldap', { body: config })), onSuccess: () => refreshSso(queryClient) });

export const testLdap = () => mutationOptions({ mutationFn: (input: Body<'post_admin_sso_ldap_test'>) => unwrap(api.POST('/admin/sso/ldap/test', { body: input })) });

export const disableLdap = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: () => unwrap(api.DELETE('/admin/sso/ldap')), onSuccess: () => refreshSso(queryClient) });

export const saveOidc = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: (config: OidcConfig) => unwrap(api.PUT('/admin/sso/oidc', { body: config })), onSuccess: () => refreshSso(queryClient) });

export const disableOidc = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: () => unwrap(api.DELETE('/admin/sso/oidc')), onSuccess: () => refreshSso(queryClient) });

export const saveSaml = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: (config: SamlConfigInput) => unwrap(api.PUT('/admin/sso/saml', { body: config })), onSuccess: () => refreshSso(queryClient) });

export const disableSaml = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: () => unwrap(api.DELETE('/admin/sso/saml')), onSuccess: () => refreshSso(queryClient) });

export const saveAdminEmails = (queryClient: QueryClient) =>
  mutationOptions({ mutationFn: (emails: string[]) => unwrap(api.PUT('/admin/sso/admin-emails', { body: { admin_emails: emails } })), onSuccess: () => refreshSso(queryClient) });

export const groups = () => queryOptions({ queryKey: groupsKey, queryFn: () => unwrap(api.GET('/admin/groups')) });

export const setGroupRole = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ provider, name, role }: Group) => unwrap(api.PUT('/admin/groups/{provider}/{name}', { params: { path: { provider, name } }, body: { role } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupsKey }),
  });
