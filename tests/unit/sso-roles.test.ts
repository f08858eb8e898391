// Role resolution for SSO users (spec §5 "SSO" 3) and the account name they get.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupRolesAtSignIn, resolveRole, secondFactorOffered, ssoUsername, type RoleInputs } from '../../domain/sso/roles.ts';
import type { Role } from '../../schema/access.ts';

describe('resolveRole', () => {
  const base: RoleInputs = { groupRoles: [], email: null, emailVerified: true, adminEmails: [], pinned: null };
  const cases: [string, Partial<RoleInputs>, Role][] = [
    ['no groups, no email: viewer', {}, 'viewer'],
    ['only viewer groups: viewer', { groupRoles: ['viewer', 'viewer'] }, 'viewer'],
    ['any admin group: admin (highest wins)', { groupRoles: ['viewer', 'admin', 'viewer'] }, 'admin'],
    ['email on the admin list: admin', { email: 'ops@example.com', adminEmails: ['ops@example.com'] }, 'admin'],
    ['email compared case-insensitively', { email: 'Ops@Example.COM', adminEmails: ['ops@example.com'] }, 'admin'],
    ['admin list written in capitals', { email: 'ops@example.com', adminEmails: ['OPS@example.com'] }, 'admin'],
    ['another email: viewer', { email: 'dev@example.com', adminEmails: ['ops@example.com'] }, 'viewer'],
    // Anyone may claim an address at a provider that does not check it: only a verified one matches.
    ['email on the admin list but not verified: viewer', { email: 'ops@example.com', emailVerified: false, adminEmails: ['ops@example.com'] }, 'viewer'],
    ['unverified email with an admin group: admin (from the group)', { groupRoles: ['admin'], email: 'dev@example.com', emailVerified: false, adminEmails: ['dev@example.com'] }, 'admin'],
    ['no email never matches an empty entry', { email: '', adminEmails: [''] }, 'viewer'],
    ['pinned viewer beats an admin group', { groupRoles: ['admin'], pinned: 'viewer' }, 'viewer'],
    ['pinned viewer beats the admin list', { email: 'ops@example.com', adminEmails: ['ops@example.com'], pinned: 'viewer' }, 'viewer'],
    ['pinned admin stays admin with no groups', { pinned: 'admin' }, 'admin'],
  ];
  for (const [name, given, expected] of cases) it(name, () => assert.equal(resolveRole({ ...base, ...given }), expected));
});

describe('groupRolesAtSignIn (the default role for groups seen for the first time) then resolveRole', () => {
  const known = new Map<string, Role>([['ops', 'admin'], ['devs', 'viewer']]);
  // name, groups at sign-in, default role, roles per group, groups recorded as new, the user's role
  const cases: [string, string[], Role, Role[], string[], Role][] = [
    ['no groups: viewer whatever the default (the default is a group role, not a user role)', [], 'admin', [], [], 'viewer'],
    ['a new group with the default viewer (spec default): viewer', ['new'], 'viewer', ['viewer'], ['new'], 'viewer'],
    ['a new group with default admin: admin', ['new'], 'admin', ['admin'], ['new'], 'admin'],
    ['a known viewer group keeps viewer when the default is admin', ['devs'], 'admin', ['viewer'], [], 'viewer'],
    ['a known admin group keeps admin when the default is viewer', ['ops'], 'viewer', ['admin'], [], 'admin'],
    ['known viewer and new group, default admin: admin (highest wins)', ['devs', 'new'], 'admin', ['viewer', 'admin'], ['new'], 'admin'],
    ['known viewer and new group, default viewer: viewer', ['devs', 'new'], 'viewer', ['viewer', 'viewer'], ['new'], 'viewer'],
    ['a group carried twice is one group', ['new', 'new'], 'viewer', ['viewer'], ['new'], 'viewer'],
    ['group names are exact (case matters, as the provider spells them)', ['OPS'], 'viewer', ['viewer'], ['OPS'], 'viewer'],
  ];
  for (const [name, groups, defaultRole, roles, fresh, role] of cases) {
    it(name, () => {
      const got = groupRolesAtSignIn(groups, known, defaultRole);
      assert.deepEqual(got, { roles, fresh });
      assert.equal(resolveRole({ groupRoles: got.roles, email: null, emailVerified: false, adminEmails: [], pinned: null }), role);
    });
  }
  it('a pinned role still wins over a default-admin new group', () => {
    assert.equal(resolveRole({ groupRoles: groupRolesAtSignIn(['new'], known, 'admin').roles, email: null, emailVerified: false, adminEmails: [], pinned: 'viewer' }), 'viewer');
  });
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
