// The role an SSO user signs in with (spec §5 "SSO" 3): admin when any current group is set to
// admin or the email is on the admin list (case-insensitive), else viewer; the highest role wins.
// Only an email the provider vouches for matches the list (docs/sso.md "Admin emails"): anyone can
// put any address on an account at a provider that does not check it.
// A role an admin set by hand on the user is pinned: the identity provider no longer changes it.
import type { Role } from '../../schema/access.ts';

const RANK: Readonly<Record<Role, number>> = { viewer: 0, admin: 1 };

export const highestRole = (roles: readonly Role[]): Role => roles.reduce<Role>((best, r) => (RANK[r] > RANK[best] ? r : best), 'viewer');

export interface RoleInputs {
  /** The groups this sign-in carried, with the role each has in Admin → Groups (new groups: the default role, `groupRolesAtSignIn`). */
  groupRoles: readonly Role[];
  email: string | null;
  /**
   * Whether the provider vouches that the email is the user's: OIDC's `email_verified: true`, or
   * for LDAP and SAML the admin's `trust_email` on that provider. Otherwise it never matches the
   * admin emails.
   */
  emailVerified: boolean;
  adminEmails: readonly string[];
  /** A role set by hand (users.role_pinned): wins over everything the provider says. */
  pinned: Role | null;
}

/**
 * The role each group of a sign-in carries: the one Admin → Groups holds for a known group, the
 * default role (Admin → Groups, viewer unless an admin changed it) for a group seen for the
 * first time, which is recorded with it (`fresh`). Changing the default later leaves groups
 * already seen as they are: each keeps the role it was given, or an admin set.
 */
export function groupRolesAtSignIn(groups: readonly string[], known: ReadonlyMap<string, Role>, defaultRole: Role): { roles: Role[]; fresh: string[] } {
  const roles: Role[] = [];
  const fresh: string[] = [];
  for (const name of new Set(groups)) {
    const role = known.get(name);
    if (role === undefined) fresh.push(name);
    roles.push(role ?? defaultRole);
  }
  return { roles, fresh };
}

export function resolveRole(inputs: RoleInputs): Role {
  if (inputs.pinned !== null) return inputs.pinned;
  const email = inputs.emailVerified ? (inputs.email?.trim().toLowerCase() ?? null) : null;
  const byEmail: Role[] = email !== null && email !== '' && inputs.adminEmails.some((e) => e.trim().toLowerCase() === email) ? ['admin'] : [];
  return highestRole([...inputs.groupRoles, ...byEmail]);
}

/**
 * Whether an account may use the TOTP second factor (spec §5 "Password login" 5): local
 * accounts always, LDAP accounts only while the LDAP configuration offers it (off by default),
 * OIDC and SAML accounts never (their provider owns the second factor).
 */
export function secondFactorOffered(provider: string | null, ldapTotp: boolean): boolean {
  if (provider === null) return true;
  return provider === 'ldap' && ldapTotp;
}

/**
 * The account name an SSO user gets: the email (lower-cased) when the provider gives one, so
 * audit rows read `email@ip`; else `<provider>:<subject>`. Never merged into an existing account
 * of that name (an email is not proof of owning a local account): the caller refuses the clash.
 */
export function ssoUsername(provider: string, subject: string, email: string | null): string {
  const e = email?.trim().toLowerCase() ?? '';
  return e !== '' ? e : `${provider}:${subject}`;
}
