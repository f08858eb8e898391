import type * as v from 'valibot';
import type { Role } from '../../schema/access.ts';
import type { Session, User } from '../../schema/accounts.ts';

export type UserRecord = v.InferOutput<typeof User>;

/** A session as stored: the response's `current` flag is the handler's to add. */
export type SessionRecord = Omit<v.InferOutput<typeof Session>, 'current'>;

/** Local accounts and their sessions, as admins manage them. */
export interface UserDirectory {
  list(): Promise<UserRecord[]>;
  create(username: string, password: string, role: Role): Promise<UserRecord | 'exists'>;
  /** Deactivating ends the user's sessions and revokes their API keys and OAuth grants for good; the last active admin cannot be demoted or deactivated. */
  update(username: string, change: { role?: Role; active?: boolean }): Promise<UserRecord | 'not_found' | 'last_admin'>;
  /** One user's sessions, or everyone's with null. */
  sessions(userId: number | null): Promise<SessionRecord[]>;
  /** False when no such session (of that user, unless userId is null) exists. */
  revokeSession(sessionId: string, userId: number | null): Promise<boolean>;
}

/** TOTP second factor (RFC 6238) for local accounts. */
export interface SecondFactorService {
  status(userId: number): Promise<{ enabled: boolean; pending: boolean }>;
  /** A fresh secret, inactive until confirmed; refused while one is active. */
  beginEnrolment(userId: number, username: string): Promise<{ secret: string; otpauth_uri: string } | 'already_enabled'>;
  confirm(userId: number, code: string): Promise<'ok' | 'invalid' | 'not_pending'>;
  /** At most a few codes per sign-in are checked (counted before checking); past that, 'too_many' without looking at the code. */
  disable(userId: number, code: string): Promise<'ok' | 'invalid' | 'not_enabled' | 'too_many'>;
  /** Accepts a code once: a replay within its window is refused. */
  verify(userId: number, code: string): Promise<'ok' | 'invalid' | 'replayed'>;
}
