import type { Role } from '../../schema/access.ts';
import type { Group, LdapConfig, SsoProvider } from '../../schema/sso.ts';
import type { Result } from '../result.ts';

/** What an identity provider vouched for at one sign-in (a verified bind, later a verified ID token or assertion). */
export interface SsoIdentity {
  provider: SsoProvider;
  /** Stable per provider: LDAP's entryUUID, OIDC's `sub`, SAML's NameID. */
  subject: string;
  email: string | null;
  /**
   * Whether the provider vouches that the email is the user's (OIDC `email_verified: true`; LDAP
   * and SAML only with the admin's `trust_email` on that provider): only then does it match the
   * admin emails. An unverified email may still name the account.
   */
  emailVerified: boolean;
  /** The groups the provider lists for the user right now. */
  groups: readonly string[];
}

/** The Capstan account an SSO sign-in resolved to, after provisioning and the role re-read. */
export interface SsoAccount {
  id: number;
  username: string;
  role: Role;
  active: boolean;
  totpEnabled: boolean;
}

export interface StoredLdap {
  enabled: boolean;
  config: LdapConfig;
  updatedAt: Date;
}

/** Provider-neutral SSO state: configuration (sealed at rest), identities, groups and roles. */
export interface SsoService {
  ldap(): Promise<StoredLdap | null>;
  /** Stores (sealed) and enables the LDAP configuration. */
  setLdap(config: LdapConfig): Promise<StoredLdap>;
  /** Turns LDAP sign-in off, keeping its configuration and accounts; false when it was not on. */
  disableLdap(): Promise<boolean>;
  /** The provider an account belongs to; null for a local account. */
  providerOf(userId: number): Promise<SsoProvider | null>;
  /** Providers whose sign-in is on. */
  enabledProviders(): Promise<SsoProvider[]>;
  adminEmails(): Promise<string[]>;
  setAdminEmails(emails: readonly string[]): Promise<void>;
  /**
   * Just-in-time provisioning keyed on (provider, subject): creates the account on first sight,
   * records the groups (new ones appear with role viewer), and sets the role from groups and
   * the admin emails unless pinned; the role is read per request, so sessions already signed in
   * act at it at once. A deactivated account stays deactivated (`active: false`). An account
   * name taken by another account is 409 `conflict` on `username`.
   */
  signIn(identity: SsoIdentity): Promise<Result<SsoAccount>>;
  /** The role an identity would get now, without provisioning anything (the admin's test). */
  previewRole(identity: SsoIdentity): Promise<Role>;
  groups(): Promise<Group[]>;
  /**
   * Removes the pin a hand-set role left (PATCH /admin/users) and re-resolves the role now from
   * the groups of the account's last sign-in and the admin emails (never demoting the last
   * active admin); the next sign-in re-reads the groups from the provider. Unknown user: 404;
   * a local account (its role is only ever set by hand): 400 on `username`.
   */
  unpinRole(username: string): Promise<Result<{ username: string; role: Role; wasPinned: boolean }>>;
  /** Sets a group's role and re-resolves every unpinned user of that provider in it; unknown group: 404. */
  setGroupRole(provider: SsoProvider, name: string, role: Role): Promise<Result<{ group: Group; usersUpdated: number }>>;
}

/** A directory bind that succeeded: who the directory says this is. */
export interface LdapIdentity {
  dn: string;
  subject: string;
  email: string | null;
  groups: string[];
}

/** LDAP template direct bind (runtime/sso/ldap.ts). */
export interface LdapDirectory {
  /**
   * Binds as the user with their own password and reads their entry and groups, bound as them.
   * A wrong username or password is `unauthenticated`; an empty password is refused before any
   * connection; a directory that cannot be reached or whose certificate fails is `not_ready`.
   */
  authenticate(config: LdapConfig, username: string, password: string): Promise<Result<LdapIdentity>>;
}
