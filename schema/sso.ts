import * as v from 'valibot';
import { Role } from './access.ts';
import { TotpCode } from './auth.ts';
import { Timestamp } from './common.ts';
import { LocalLogin } from './settings.ts';

// Single sign-on (spec §5 "SSO", docs/sso.md). The provider-neutral part (identities keyed on
// (provider, subject), groups, roles, pinning) serves every protocol; each protocol adds its
// own configuration. LDAP is the first; OIDC and SAML follow on the same model.

export const SsoProvider = v.picklist(['ldap', 'oidc', 'saml']);
export type SsoProvider = v.InferOutput<typeof SsoProvider>;

const Dn = v.pipe(v.string(), v.trim(), v.minLength(3), v.maxLength(1024));
const AttributeName = v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, 'an LDAP attribute name (letters, digits, -)'));

/**
 * LDAP with template direct bind: the user's own DN is the template with `{username}` replaced
 * (RFC 4514 escaped), bound with the user's own password; no service account is stored.
 * Plaintext is refused: `ldaps://`, or `ldap://` with `starttls: true`.
 */
export const LdapConfig = v.pipe(
  v.object({
    url: v.pipe(v.string(), v.trim(), v.regex(/^ldaps?:\/\/[A-Za-z0-9.:[\]-]+(:\d{1,5})?\/?$/, 'url: ldaps://host[:port] or ldap://host[:port] (protocol, host and port only)')),
    /** With ldap://: upgrade with StartTLS before anything is sent. Required there (plaintext is refused). */
    starttls: v.optional(v.boolean(), false),
    /** e.g. `uid={username},ou=people,dc=example,dc=com`: exactly one `{username}`. */
    bind_dn_template: v.pipe(
      v.string(),
      v.trim(),
      v.maxLength(1024),
      v.check((t) => t.split('{username}').length === 2, 'bind_dn_template must contain {username} exactly once'),
    ),
    /** The attribute holding the user's email (the audited actor, the admin-email match). */
    email_attribute: v.optional(AttributeName, 'mail'),
    /** Where groups are searched (bound as the user); null: no groups are read. */
    group_base_dn: v.optional(v.nullable(Dn), null),
    group_object_class: v.optional(AttributeName, 'groupOfNames'),
    /** The group attribute that lists members by DN. */
    group_member_attribute: v.optional(AttributeName, 'member'),
    group_name_attribute: v.optional(AttributeName, 'cn'),
    /** PEM certificate(s) trusted for the directory's TLS; null: the system's CAs. */
    ca_pem: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64 * 1024), v.includes('-----BEGIN CERTIFICATE-----', 'ca_pem must be PEM certificates')))),
    /** Development only: accept any certificate. Logged and shown as a warning. */
    insecure_skip_verify: v.optional(v.boolean(), false),
    /** Offer the TOTP second factor to LDAP users (off by default, spec §5 "Password login" 5). */
    totp: v.optional(v.boolean(), false),
  }),
  v.forward(
    v.check((c) => c.url.startsWith('ldaps://') || c.starttls, 'plaintext LDAP is refused: use ldaps:// or set starttls'),
    ['url'],
  ),
  v.forward(
    v.check((c) => !(c.url.startsWith('ldaps://') && c.starttls), 'starttls applies to ldap:// only'),
    ['starttls'],
  ),
);
export type LdapConfig = v.InferOutput<typeof LdapConfig>;

/** What an admin reads back: the configuration with anything secret masked (LDAP stores none: no service account). */
export const LdapView = v.object({
  enabled: v.boolean(),
  config: LdapConfig,
  updated_at: Timestamp,
});

export const SsoView = v.object({
  ldap: v.nullable(LdapView),
  /** Emails that make a user admin whatever their groups (compared case-insensitively). */
  admin_emails: v.array(v.string()),
  local_login: LocalLogin,
});

export const AdminEmailsInput = v.object({
  admin_emails: v.pipe(v.array(v.pipe(v.string(), v.trim(), v.email('admin_emails: each must be an email address'))), v.maxLength(1000)),
});

const Username = v.pipe(v.string(), v.nonEmpty('username is required'), v.maxLength(256));
/** Empty passwords are refused here, before any bind: an LDAP bind with no password is an anonymous bind that "succeeds". */
const Password = v.pipe(v.string(), v.nonEmpty('password is required'), v.maxLength(1024));

export const LdapLoginInput = v.object({ username: Username, password: Password, code: v.optional(TotpCode) });

export const LdapTestInput = v.object({ config: LdapConfig, username: Username, password: Password });
export const LdapTestOutput = v.object({
  subject: v.string(),
  dn: v.string(),
  email: v.nullable(v.string()),
  groups: v.array(v.string()),
  /** The role this identity would get now (pinning aside). */
  role: Role,
});

export const LdapDisabled = v.object({ status: v.literal('disabled') });

/** The sign-in methods the sign-in page offers (public). */
export const AuthMethods = v.object({
  local_login: LocalLogin,
  sso: v.array(v.object({ provider: SsoProvider, path: v.string(), totp: v.boolean() })),
});

export const Group = v.object({
  provider: SsoProvider,
  name: v.string(),
  role: Role,
  first_seen_at: Timestamp,
});
export type Group = v.InferOutput<typeof Group>;
export const GroupList = v.object({ groups: v.array(Group) });
export const SetGroupRoleInput = v.object({ provider: SsoProvider, name: v.pipe(v.string(), v.minLength(1), v.maxLength(512)), role: Role });
export const GroupOutput = v.object({ group: Group, users_updated: v.number() });

export const LdapLoginOutput = v.object({ user: v.object({ username: v.string(), role: Role, auth_method: v.literal('ldap') }) });
