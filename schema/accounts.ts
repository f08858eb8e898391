import * as v from 'valibot';
import { Role } from './access.ts';
import { TotpCode } from './auth.ts';
import { Timestamp } from './common.ts';
import { SsoProvider } from './sso.ts';

export const Username = v.pipe(v.string(), v.trim(), v.regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'username: 1–63 of a-z 0-9 . _ -, starting with a letter or digit'));
export const NewPassword = v.pipe(v.string(), v.minLength(8, 'password must be at least 8 characters'), v.maxLength(1024));

export const User = v.object({
  id: v.number(),
  username: v.string(),
  role: Role,
  active: v.boolean(),
  totp_enabled: v.boolean(),
  created_at: Timestamp,
  /** An SSO account's role set by hand: sign-ins leave it alone until un-pinned (DELETE /admin/users/{username}/role-pin). */
  role_pinned: v.boolean(),
  /** The identity provider an SSO account signs in with; null for a local account. */
  sso_provider: v.nullable(SsoProvider),
});
export const UserList = v.object({ users: v.array(User) });
export const CreateUserInput = v.object({ username: Username, password: NewPassword, role: Role });
export const UpdateUserInput = v.pipe(
  v.object({ username: v.string(), role: v.optional(Role), active: v.optional(v.boolean()) }),
  v.check((i) => i.role !== undefined || i.active !== undefined, 'give role, active or both'),
);
export const UserOutput = v.object({ user: User });

export const Session = v.object({
  id: v.string(),
  username: v.string(),
  ip: v.string(),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  /** The session this request came with. */
  current: v.boolean(),
});
export const SessionList = v.object({ sessions: v.array(Session) });
export const SessionIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'id must be a session id')) });
export const SessionRevoked = v.object({ status: v.literal('revoked') });

export const SecondFactorStatus = v.object({ enabled: v.boolean(), pending: v.boolean() });
export const Enrolment = v.object({
  /** Base32, for typing into an authenticator by hand. */
  secret: v.string(),
  otpauth_uri: v.pipe(v.string(), v.startsWith('otpauth://totp/')),
});
export const CodeInput = v.object({ code: TotpCode });

/** Changing one's own password (POST /me/password): the current one proves it is you at the keyboard. */
export const PasswordChangeInput = v.object({ current_password: v.pipe(v.string(), v.minLength(1, 'give your current password'), v.maxLength(1024)), new_password: NewPassword });
export const PasswordChanged = v.object({ status: v.literal('changed'), other_sessions_ended: v.number() });

/** Seats (GET /admin/seats): accounts by role and by where they sign in; `local` is a password account. */
export const SeatProvider = v.picklist(['local', 'ldap', 'oidc', 'saml']);
export const Seats = v.object({
  seats: v.array(v.object({ role: Role, provider: SeatProvider, active: v.number(), inactive: v.number() })),
  /** Active accounts in all: the seats in use. */
  total_active: v.number(),
});
