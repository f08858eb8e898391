// Role resolution for SSO users (spec §5 "SSO" 3) and the account name they get.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRole, secondFactorOffered, ssoUsername, type RoleInputs } from '../../domain/sso/roles.ts';
import type { Role } from '../../schema/access.ts';

describe('resolveRole', () => {
  const base: RoleInputs = { groupRoles: [], email: null, adminEmails: [], pinned: null };
  const cases: [string, Partial<RoleInputs>, Role][] = [
    ['no groups, no email: viewer', {}, 'viewer'],
    ['only viewer groups: viewer', { groupRoles: ['viewer', 'viewer'] }, 'viewer'],
    ['any admin group: admin (highest wins)', { groupRoles: ['viewer', 'admin', 'viewer'] }, 'admin'],
    ['email on the admin list: admin', { email: 'ops@example.com', adminEmails: ['ops@example.com'] }, 'admin'],
    ['email compared case-insensitively', { email: 'Ops@Example.COM', adminEmails: ['ops@example.com'] }, 'admin'],
    ['admin list written in capitals', { email: 'ops@example.com', adminEmails: ['OPS@example.com'] }, 'admin'],
    ['another email: viewer', { email: 'dev@example.com', adminEmails: ['ops@example.com'] }, 'viewer'],
    ['no email never matches an empty entry', { email: '', adminEmails: [''] }, 'viewer'],
    ['pinned viewer beats an admin group', { groupRoles: ['admin'], pinned: 'viewer' }, 'viewer'],
    ['pinned viewer beats the admin list', { email: 'ops@example.com', adminEmails: ['ops@example.com'], pinned: 'viewer' }, 'viewer'],
    ['pinned admin stays admin with no groups', { pinned: 'admin' }, 'admin'],
  ];
  for (const [name, given, expected] of cases) it(name, () => assert.equal(resolveRole({ ...base, ...given }), expected));
});

describe('secondFactorOffered', () => {
  const cases: [string, string | null, boolean, boolean][] = [
    ['local account', null, false, true],
    ['LDAP with TOTP for LDAP off (the default)', 'ldap', false, false],
    ['LDAP with TOTP for LDAP on', 'ldap', true, true],
    ['OIDC never', 'oidc', true, false],
    ['SAML never', 'saml', true, false],
  ];
  for (const [name, provider, ldapTotp, expected] of cases) it(name, () => assert.equal(secondFactorOffered(provider, ldapTotp), expected));
});

describe('ssoUsername', () => {
  const cases: [string, string, string | null, string][] = [
    ['the email, lower-cased', 'ldap', 'Alice@Example.com', 'alice@example.com'],
    ['no email: provider and subject', 'ldap', null, 'ldap:1234-abcd'],
    ['blank email counts as none', 'oidc', '  ', 'oidc:1234-abcd'],
  ];
  for (const [name, provider, email, expected] of cases) it(name, () => assert.equal(ssoUsername(provider, '1234-abcd', email), expected));
});
