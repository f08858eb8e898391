import * as v from 'valibot';
import { Role } from './access.ts';

export const TotpCode = v.pipe(v.string(), v.regex(/^\d{6}$/, 'code must be 6 digits'));

export const LoginInput = v.object({
  username: v.pipe(v.string(), v.nonEmpty('username is required'), v.maxLength(256)),
  password: v.pipe(v.string(), v.nonEmpty('password is required'), v.maxLength(1024)),
  /** The current TOTP code, when the account has a second factor. */
  code: v.optional(TotpCode),
});

export const Me = v.object({
  username: v.string(),
  role: Role,
  /** How this session signed in: the password form, or an SSO provider (docs/sso.md). */
  auth_method: v.picklist(['password', 'ldap', 'oidc', 'saml']),
});
export type Me = v.InferOutput<typeof Me>;

export const LoginOutput = v.object({ user: Me });
export const LogoutOutput = v.object({ status: v.literal('signed_out') });
