import type * as v from 'valibot';
import type { Role } from '../../schema/access.ts';
import type { Session, User } from '../../schema/accounts.ts';
import type { Result } from '../result.ts';

export type UserRecord = v.InferOutput<typeof User>;

/** A session as stored: the response's `current` flag is the handler's to add. */
export type SessionRecord = Omit<v.InferOutput<typeof Session>, 'current'>;

/** Local accounts and their sessions, as admins manage them. Refusals are AppErrors (see Result). */
export interface UserDirectory {
  list(): Promise<UserRecord[]>;
  /** A taken username is 409 `conflict` on `username`. */
  create(username: string, password: string, role: Role): Promise<Result<UserRecord>>;
  /** Deactivating ends the user's sessions and revokes their API keys and OAuth grants for good; the last active admin cannot be demoted or deactivated (400 on the field that would do it); an unknown user is 404. */
  update(username: string, change: { role?: Role; active?: boolean }): Promise<Result<UserRecord>>;
  /** One user's sessions, or everyone's with null. */
  sessions(userId: number | null): Promise<SessionRecord[]>;
  /** False when no such session (of that user, unless userId is null) exists. */
  revokeSession(sessionId: string, userId: number | null): Promise<boolean>;
  /**
   * Sets one's own password when `current` is right (400 on `current_password` otherwise, or
   * for an account that signs in only through SSO), and ends every other session of the
   * account; `keepSession` (the caller's) stays signed in. Answers how many sessions ended.
   */
  changePassword(userId: number, current: string, next: string, keepSession: string): Promise<Result<{ sessionsEnded: number }>>;
}

/** TOTP second factor (RFC 6238) for local accounts. */
export interface SecondFactorService {
  status(userId: number): Promise<{ enabled: boolean; pending: boolean }>;
  /** A fresh secret, inactive until confirmed; refused (400 on `totp`) while one is active. */
  beginEnrolment(userId: number, username: string): Promise<Result<{ secret: string; otpauth_uri: string }>>;
  /** Refusals are 400 on `code`: no enrolment pending, or a wrong or used code. */
  confirm(userId: number, code: string): Promise<Result<void>>;
  /**
   * Refusals are 400 on `code` (no second factor active, a wrong or used code), or
   * `unauthenticated` once the allowance of codes per sign-in is used up: at most a few codes
   * are checked, each counted before it is checked; past that, the code is not looked at.
   */
  disable(userId: number, code: string): Promise<Result<void>>;
  /** Accepts a code once: a wrong code or a replay within its window is `unauthenticated`, each with its own message. */
  verify(userId: number, code: string): Promise<Result<void>>;
}
