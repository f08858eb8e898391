import type * as v from 'valibot';
import type { Role, Scope } from '../../schema/access.ts';
import type { ApiKey } from '../../schema/api-keys.ts';

export type ApiKeyRecord = v.InferOutput<typeof ApiKey>;

export interface AccountSummary {
  id: number;
  username: string;
  role: Role;
  /** A confirmed second factor: sign-in needs a code too. */
  totpEnabled: boolean;
}

/** Password accounts, lockout bookkeeping and sessions (spec §5). */
export interface AuthService {
  /**
   * Counts a sign-in attempt of this account from this address before its password or code is
   * checked, in one atomic step, so parallel attempts cannot all be judged before any counts.
   * Refused while the pair is locked; `lockedUntil` on an admitted attempt means it used up the
   * allowance (the pair is locked from now until then, whatever this attempt's outcome).
   */
  beginAttempt(username: string, ip: string): Promise<{ admitted: true; lockedUntil: Date | null } | { admitted: false; lockedUntil: Date }>;
  /** Gives back an admitted attempt that guessed nothing wrong (a right password still needing its code, or refused by policy). */
  refundAttempt(username: string, ip: string): Promise<void>;
  /** The active account whose password this is, else null (timing does not reveal which part was wrong). */
  checkPassword(username: string, password: string): Promise<AccountSummary | null>;
  /** After a successful sign-in: forgets the pair's attempts, unless they reached the lock (it then runs its course). */
  clearFailures(username: string, ip: string): Promise<void>;
  /** `sessionId`: the stored id (the principal's `sessionId`), for records kept beside the session. */
  startSession(userId: number, ip: string): Promise<{ token: string; sessionId: string }>;
  endSession(sessionId: string): Promise<void>;
  /** Returns the key itself once; only its hash is kept. */
  createApiKey(userId: number, name: string, scopes: readonly Scope[], expiresAt: Date | null): Promise<{ key: string; record: ApiKeyRecord }>;
  /** One owner's keys, or everyone's with null. */
  listApiKeys(ownerId: number | null): Promise<ApiKeyRecord[]>;
  /** False when no such key (of that owner, unless ownerId is null) exists. */
  revokeApiKey(keyId: number, ownerId: number | null): Promise<boolean>;
}
