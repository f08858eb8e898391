// SSO (spec §4 "SSO routes", `/admin/sso*`, Admin → Groups; docs/sso.md). Configuring needs
// Enterprise (`feature: 'sso'`, 402 otherwise); reading, disabling, groups and sign-in do not,
// so sign-in keeps working when the license lapses and an admin can always turn SSO off. The
// admin routes are identity routes: never reachable with an API key (403 api_key_forbidden).
import { authMethods, disableLdap, getSso, setAdminEmails, setLdap, testLdap } from '../../handlers/sso/admin.ts';
import { listGroups, setGroupRole } from '../../handlers/sso/groups.ts';
import { ldapLogin } from '../../handlers/sso/ldap-login.ts';
import { disableOidc, oidcCallback, oidcStart, setOidc } from '../../handlers/sso/oidc.ts';
import { NoInput } from '../../schema/common.ts';
import { OidcCallbackInput, OidcConfig, OidcDisabled, OidcRedirect, OidcStartInput, OidcView } from '../../schema/sso.ts';
import { AdminEmailsInput, AuthMethods, GroupList, GroupOutput, LdapConfig, LdapDisabled, LdapLoginInput, LdapLoginOutput, LdapTestInput, LdapTestOutput, SetGroupRoleInput, SsoView } from '../../schema/sso.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { noApiKeys } from './access.ts';

const admin = noApiKeys('admin');
const enterprise = { ...admin, feature: 'sso' } as const;

export const ssoRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/auth/methods',
    summary: 'The sign-in methods the sign-in page offers: the password form per sso.local_login, and each enabled SSO method',
    input: NoInput,
    output: AuthMethods,
    access: { auth: 'public' },
    audit: 'none',
    rateLimit: 'read',
    feature: null,
    handler: authMethods,
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/ldap/login',
    summary: 'LDAP sign-in: direct bind with the user\'s own credentials, just-in-time account, groups to roles; sets a SameSite=Lax session cookie. 404 while LDAP is off; 429 after 6 failures for one username from one address',
    input: LdapLoginInput,
    output: LdapLoginOutput,
    access: { auth: 'public' },
    audit: 'login',
    rateLimit: 'login',
    feature: null,
    handler: ldapLogin,
  }),
  defineRoute({ ...admin, method: 'GET', path: '/admin/sso', summary: 'SSO configuration (secrets masked), admin emails and the password sign-in mode', input: NoInput, output: SsoView, audit: 'http', rateLimit: 'read', handler: getSso }),
  defineRoute({
    ...enterprise,
    method: 'PUT',
    path: '/admin/sso/ldap',
    summary: 'Configure and enable LDAP sign-in (Enterprise); stored encrypted. Plaintext ldap:// without StartTLS is refused',
    input: LdapConfig,
    output: SsoView,
    audit: 'auth',
    rateLimit: 'write',
    handler: setLdap,
  }),
  defineRoute({
    ...enterprise,
    method: 'POST',
    path: '/admin/sso/ldap/test',
    summary: 'Try an LDAP configuration by signing in as a user: the DN, subject, email, groups and role sign-in would see; nothing stored',
    input: LdapTestInput,
    output: LdapTestOutput,
    audit: 'auth',
    rateLimit: 'login',
    handler: testLdap,
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/sso/ldap',
    summary: 'Turn LDAP sign-in off (always allowed); if password sign-in was off and no SSO method is left, it comes back for admins',
    input: NoInput,
    output: LdapDisabled,
    audit: 'auth',
    rateLimit: 'write',
    handler: disableLdap,
  }),
  defineRoute({
    ...enterprise,
    method: 'PUT',
    path: '/admin/sso/admin-emails',
    summary: 'Emails (case-insensitive) that make an SSO user admin whatever their groups',
    input: AdminEmailsInput,
    output: SsoView,
    audit: 'auth',
    rateLimit: 'write',
    handler: setAdminEmails,
  }),
  // OpenID Connect (docs/sso.md "OIDC"): authorization code + PKCE, ID tokens checked against the issuer's JWKS.
  defineRoute({
    method: 'GET',
    path: '/auth/oidc/start',
    summary: 'Start OIDC sign-in: 302 to the provider (code + PKCE S256, state, nonce in a sealed 10-minute SameSite=Lax cookie); return_to is a same-origin path to land on afterwards. 404 while OIDC is off',
    input: OidcStartInput,
    output: OidcRedirect,
    access: { auth: 'public' },
    audit: 'none',
    rateLimit: 'login',
    feature: null,
    handler: oidcStart,
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/oidc/callback',
    summary: "The provider's redirect back: exchanges the code, verifies the ID token (JWKS, asymmetric algorithms, issuer, audience, expiry, nonce), signs the user in (SameSite=Lax session) and redirects to the return path; 401 for a missing or foreign flow cookie, a state mismatch, a replayed callback or a refused token",
    input: OidcCallbackInput,
    output: OidcRedirect,
    access: { auth: 'public' },
    audit: 'login',
    rateLimit: 'login',
    feature: null,
    handler: oidcCallback,
  }),
  defineRoute({
    ...enterprise,
    method: 'PUT',
    path: '/admin/sso/oidc',
    summary: "Configure and enable OIDC sign-in (Enterprise): the issuer's discovery document must answer; stored encrypted, the client secret shown as •••• (sending •••• back keeps it)",
    input: OidcConfig,
    output: OidcView,
    audit: 'auth',
    rateLimit: 'write',
    handler: setOidc,
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/sso/oidc',
    summary: 'Turn OIDC sign-in off (always allowed); if password sign-in was off and no SSO method is left, it comes back for admins',
    input: NoInput,
    output: OidcDisabled,
    audit: 'auth',
    rateLimit: 'write',
    handler: disableOidc,
  }),
  defineRoute({ ...admin, method: 'GET', path: '/admin/groups', summary: 'Groups SSO sign-ins have carried, with their roles (new groups: viewer)', input: NoInput, output: GroupList, audit: 'http', rateLimit: 'read', handler: listGroups }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/groups/:provider/:name',
    summary: "Set a group's role; its members without a pinned role act at it on their next request",
    input: SetGroupRoleInput,
    output: GroupOutput,
    audit: 'auth',
    rateLimit: 'write',
    handler: setGroupRole,
  }),
];
