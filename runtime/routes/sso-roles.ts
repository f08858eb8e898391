// Admin → Groups' default role and un-pinning an SSO account's hand-set role (spec §5 "SSO" 3
// and 8; docs/sso.md "Admin emails and groups"). Identity routes like the rest of /admin/groups
// and /admin/users: an admin's session only, never an API key; no license needed (as for the
// group roles: an admin must be able to manage who is admin whatever the tier).
import { setDefaultRole, unpinRole } from '../../handlers/sso/roles.ts';
import { DefaultRoleInput, DefaultRoleOutput, RoleUnpinned, UnpinRoleInput } from '../../schema/sso.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { noApiKeys } from './access.ts';

const admin = noApiKeys('admin');

export const ssoRoleRoutes: readonly Route[] = [
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/groups/default-role',
    summary: 'The role a group gets the first time an SSO sign-in carries it (viewer by default); groups already listed keep theirs',
    input: DefaultRoleInput,
    output: DefaultRoleOutput,
    audit: 'auth',
    rateLimit: 'write',
    handler: setDefaultRole,
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/users/:username/role-pin',
    summary: "Un-pin an SSO account's hand-set role: re-resolved now from its last sign-in's groups and the admin emails, and re-read from the provider at each sign-in again. 400 for a local account",
    input: UnpinRoleInput,
    output: RoleUnpinned,
    audit: 'auth',
    rateLimit: 'write',
    handler: unpinRole,
  }),
];
