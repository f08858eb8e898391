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
    /**
     * Let the directory's email match the admin emails (docs/sso.md "Admin emails"). Off by
     * default: a directory asserts nothing about an address, and users may be able to edit their own.
     */
    trust_email: v.optional(v.boolean(), false),
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

// OpenID Connect (issue 17 item 5, docs/sso.md "OIDC"): authorization code + PKCE against the
// issuer's discovery document, ID tokens verified against its JWKS.

/** Shown instead of the client secret; sent back unchanged, it keeps the stored one. */
export const MASKED_SECRET = '••••';

/** https://, or http:// to a loopback host only (a provider on the same machine, as in development and tests). */
const OidcUrl = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2048),
  v.url('must be a URL'),
  v.check((u) => u.startsWith('https://') || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(u), 'must be https:// (http:// only to a loopback host)'),
);
const OidcClaim = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(256));

export const OidcConfig = v.object({
  /** Exactly as the provider's tokens name it (`iss`); `<issuer>/.well-known/openid-configuration` must answer. */
  issuer: OidcUrl,
  client_id: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(512)),
  /** Sealed at rest, shown as ••••; sending •••• back keeps the stored secret. */
  client_secret: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
  /** Capstan's origin as browsers reach it (`sso.publicUrl`): the redirect URI is `<public_url>/api/agent/auth/oidc/callback` (the dashboard proxies /api/agent/* to the agent). */
  public_url: v.pipe(OidcUrl, v.regex(/^https?:\/\/[^/?#]+\/?$/, 'public_url: scheme, host and port only')),
  scopes: v.optional(
    v.pipe(v.array(OidcClaim), v.maxLength(20), v.check((s) => s.includes('openid'), 'scopes must include openid')),
    ['openid', 'email', 'profile', 'groups'],
  ),
  /** The claim listing groups: `groups` (dex, Okta, Keycloak), `roles` for Entra ID app roles. */
  groups_claim: v.optional(OidcClaim, 'groups'),
});
export type OidcConfig = v.InferOutput<typeof OidcConfig>;

export const OidcView = v.object({
  enabled: v.boolean(),
  config: OidcConfig,
  /** What to register at the provider. */
  redirect_uri: v.string(),
  updated_at: Timestamp,
});
export const OidcDisabled = v.object({ status: v.literal('disabled') });
export const OidcStartInput = v.object({ return_to: v.optional(v.pipe(v.string(), v.maxLength(2048))) });
/** What the provider sends the browser back with (RFC 6749 §4.1.2, §4.1.2.1). */
export const OidcCallbackInput = v.object({
  code: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  state: v.optional(v.pipe(v.string(), v.maxLength(512))),
  error: v.optional(v.pipe(v.string(), v.maxLength(256))),
  error_description: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});
export const OidcRedirect = v.object({ location: v.string() });

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
export const GroupList = v.object({
  groups: v.array(Group),
  /** The role a group gets the first time a sign-in carries it (viewer unless an admin changed it). */
  default_role: Role,
});
/** PUT /admin/groups/default-role: applies to groups seen from now on; groups already listed keep theirs. */
export const DefaultRoleInput = v.object({ default_role: Role });
export const DefaultRoleOutput = v.object({ default_role: Role });
/** DELETE /admin/users/{username}/role-pin: the SSO account's role follows its groups again. */
export const UnpinRoleInput = v.object({ username: v.pipe(v.string(), v.minLength(1), v.maxLength(256)) });
export const RoleUnpinned = v.object({
  username: v.string(),
  /** Re-resolved now from the groups of the last sign-in and the admin emails; the next sign-in re-reads the groups. */
  role: Role,
  role_pinned: v.literal(false),
  /** False when the role was not pinned (nothing changed but the re-resolution). */
  was_pinned: v.boolean(),
});
export const SetGroupRoleInput = v.object({ provider: SsoProvider, name: v.pipe(v.string(), v.minLength(1), v.maxLength(512)), role: Role });
export const GroupOutput = v.object({ group: Group, users_updated: v.number() });

export const LdapLoginOutput = v.object({ user: v.object({ username: v.string(), role: Role, auth_method: v.literal('ldap') }) });

// SAML 2.0 (issue 17 item 6, docs/sso.md "SAML"): SP-initiated sign-in, assertions signed with
// RSA-SHA256 only. The IdP is given by its metadata XML or by its SSO URL and signing certificate.
const HttpUrl = v.pipe(v.string(), v.trim(), v.maxLength(2048), v.url('must be a URL'), v.regex(/^https?:\/\//, 'must be http:// or https://'));
const Pem = v.pipe(v.string(), v.maxLength(64 * 1024), v.includes('-----BEGIN CERTIFICATE-----', 'must be a PEM certificate'));
const SamlAttribute = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(512));
const SpPrivateKeyPem = v.pipe(
  v.string(),
  v.maxLength(64 * 1024),
  v.check((s) => s === MASKED_SECRET || s.includes('PRIVATE KEY-----'), 'must be a PEM private key (or •••• to keep the stored one)'),
);

/** What an admin sends: the IdP as metadata XML, or as SSO URL + certificate. */
export const SamlConfigInput = v.pipe(
  v.object({
    /** Capstan's origin as browsers reach it (`sso.publicUrl`): the SP entity ID and ACS URL derive from it. */
    public_url: v.pipe(v.string(), v.trim(), v.maxLength(2048), v.regex(/^https?:\/\/[^/?#\s]+\/?$/, 'public_url: http(s)://host[:port] (scheme, host and port only)')),
    idp_metadata_xml: v.optional(v.pipe(v.string(), v.maxLength(512 * 1024))),
    idp_sso_url: v.optional(HttpUrl),
    idp_entity_id: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1024))),
    idp_cert_pem: v.optional(Pem),
    /** The IdP's SingleLogoutService (HTTP-Redirect binding) when configured by URL; read from the metadata otherwise. Absent: no single logout. */
    idp_slo_url: v.optional(HttpUrl),
    /** The attribute holding the email; the NameID is used when it is absent and looks like one. */
    email_attribute: v.optional(SamlAttribute, 'email'),
    /** The attribute listing the user's groups (Entra: http://schemas.microsoft.com/ws/2008/06/identity/claims/groups). */
    groups_attribute: v.optional(SamlAttribute, 'groups'),
    /**
     * The optional SP keypair (signed AuthnRequests, encrypted assertions): an unencrypted PEM
     * RSA key (>= 2048 bits) with `sp_cert_pem`, or `generate_sp_key: true`. Sealed at rest and
     * shown as ••••. Absent or ••••: the stored pair is kept (a client unaware of it, such as an
     * older form, cannot drop it by accident); null removes it.
     */
    sp_private_key_pem: v.optional(v.nullable(SpPrivateKeyPem)),
    /** With a kept key: a new certificate for it (renewal). */
    sp_cert_pem: v.optional(Pem),
    /** Make a new RSA-2048 key and a self-signed certificate (replacing any stored pair). */
    generate_sp_key: v.optional(v.boolean(), false),
    /** With a keypair: refuse a response whose assertion is not encrypted. Absent: as stored (true at first). */
    require_encrypted_assertions: v.optional(v.boolean()),
    /** Let the IdP's email attribute match the admin emails (docs/sso.md "Admin emails"). Absent: as stored (false at first). */
    trust_email: v.optional(v.boolean()),
  }),
  v.forward(
    v.check((c) => c.idp_metadata_xml !== undefined || (c.idp_sso_url !== undefined && c.idp_cert_pem !== undefined), 'give idp_metadata_xml, or idp_sso_url and idp_cert_pem'),
    ['idp_metadata_xml'],
  ),
  v.forward(
    v.check((c) => !(c.generate_sp_key && (typeof c.sp_private_key_pem === 'string' || c.sp_cert_pem !== undefined)), 'generate_sp_key makes a new keypair: send it without sp_private_key_pem and sp_cert_pem'),
    ['generate_sp_key'],
  ),
  v.forward(
    v.check((c) => typeof c.sp_private_key_pem !== 'string' || c.sp_private_key_pem === MASKED_SECRET || c.sp_cert_pem !== undefined, 'sp_cert_pem is required with sp_private_key_pem'),
    ['sp_cert_pem'],
  ),
  v.forward(
    v.check((c) => !(c.sp_private_key_pem === null && c.sp_cert_pem !== undefined), 'sp_private_key_pem null removes the keypair: send it without sp_cert_pem'),
    ['sp_cert_pem'],
  ),
);

/** What is stored (sealed) and shown: the IdP resolved from its metadata, and the SP keypair, whose private key alone is secret (masked when shown). */
export const SamlConfig = v.object({
  public_url: v.string(),
  idp_sso_url: HttpUrl,
  idp_entity_id: v.nullable(v.string()),
  idp_cert_pem: Pem,
  /** The IdP's SingleLogoutService (HTTP-Redirect binding), or null: sign-out then ends the Capstan session only (stored before it existed: null). */
  idp_slo_url: v.optional(v.nullable(HttpUrl), null),
  email_attribute: SamlAttribute,
  groups_attribute: SamlAttribute,
  /** The SP keypair, or null (configurations stored before it existed read as null). The key is shown as ••••. */
  sp_cert_pem: v.optional(v.nullable(Pem), null),
  sp_private_key_pem: v.optional(v.nullable(SpPrivateKeyPem), null),
  require_encrypted_assertions: v.optional(v.boolean(), true),
  /** The email attribute may match the admin emails; off unless the admin trusts this IdP's addresses (stored before it existed: false). */
  trust_email: v.optional(v.boolean(), false),
});
export type SamlConfig = v.InferOutput<typeof SamlConfig>;

export const SamlView = v.object({
  enabled: v.boolean(),
  config: SamlConfig,
  /** What to give the IdP: the SP entity ID, ACS URL and metadata URL. */
  sp_entity_id: v.string(),
  acs_url: v.string(),
  metadata_url: v.string(),
  /** The SP's SingleLogoutService (HTTP-POST binding), published in its metadata. */
  slo_url: v.string(),
  updated_at: Timestamp,
});
export const SamlDisabled = v.object({ status: v.literal('disabled') });

export const SamlStartInput = v.object({ return_to: v.optional(v.pipe(v.string(), v.maxLength(2048))) });
/** The POST binding's form fields (the IdP's auto-submitted form). */
export const SamlAcsInput = v.object({
  SAMLResponse: v.pipe(v.string(), v.nonEmpty('SAMLResponse is required'), v.maxLength(256 * 1024)),
  // The flow's nonce (https public URL), or over plain HTTP the sealed flow itself (its return path at most 2 KiB).
  RelayState: v.optional(v.pipe(v.string(), v.maxLength(4096))),
});
export const SamlMetadataOutput = v.object({ xml: v.string() });
/** Answered as a 302 to `location`. */
export const SamlRedirect = v.object({ location: v.string() });
/** GET /auth/saml/logout: where to land once signed out (a same-origin path). */
export const SamlLogoutInput = v.object({ return_to: v.optional(v.pipe(v.string(), v.maxLength(2048))) });
/** The SP's SingleLogoutService (HTTP-POST binding): the IdP's LogoutRequest or its LogoutResponse to ours, XML-signed. */
export const SamlSloInput = v.pipe(
  v.object({
    SAMLRequest: v.optional(v.pipe(v.string(), v.nonEmpty('SAMLRequest is empty'), v.maxLength(64 * 1024))),
    SAMLResponse: v.optional(v.pipe(v.string(), v.nonEmpty('SAMLResponse is empty'), v.maxLength(64 * 1024))),
    RelayState: v.optional(v.pipe(v.string(), v.maxLength(512))),
  }),
  v.forward(
    v.check((m) => (m.SAMLRequest === undefined) !== (m.SAMLResponse === undefined), 'exactly one of SAMLRequest and SAMLResponse is required'),
    ['SAMLRequest'],
  ),
);
/** The same service, HTTP-Redirect binding: the deflated message and its query-string signature. */
export const SamlSloRedirectInput = v.pipe(
  v.object({
    SAMLRequest: v.optional(v.pipe(v.string(), v.nonEmpty('SAMLRequest is empty'), v.maxLength(64 * 1024))),
    SAMLResponse: v.optional(v.pipe(v.string(), v.nonEmpty('SAMLResponse is empty'), v.maxLength(64 * 1024))),
    RelayState: v.optional(v.pipe(v.string(), v.maxLength(512))),
    SigAlg: v.optional(v.pipe(v.string(), v.maxLength(256))),
    Signature: v.optional(v.pipe(v.string(), v.maxLength(2048))),
  }),
  v.forward(
    v.check((m) => (m.SAMLRequest === undefined) !== (m.SAMLResponse === undefined), 'exactly one of SAMLRequest and SAMLResponse is required'),
    ['SAMLRequest'],
  ),
);

// Admin → SSO as one read (after every provider's view, which it names).
/** `sso.publicUrl` (CAPSTAN_SSO_PUBLIC_URL): Capstan's origin as browsers reach it, scheme, host and port only (no trailing slash). */
export const SsoPublicUrl = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2048),
  v.regex(/^https?:\/\/[^/?#\s]+\/?$/, 'http(s)://host[:port] (scheme, host and port only)'),
  v.check((u) => URL.canParse(u), 'must be a URL'),
  v.transform((u) => u.replace(/\/$/, '')),
);

export const SsoView = v.object({
  ldap: v.nullable(LdapView),
  oidc: v.nullable(OidcView),
  saml: v.nullable(SamlView),
  /** `sso.publicUrl` as installed (the wizard's prefill for OIDC's and SAML's public_url); null when not set. */
  public_url: v.nullable(v.string()),
  /** Emails that make a user admin whatever their groups (compared case-insensitively). */
  admin_emails: v.array(v.string()),
  local_login: LocalLogin,
});
