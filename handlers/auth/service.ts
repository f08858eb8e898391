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
  /** When this account may try again from this address; null when not locked out. */
  lockedUntil(username: string, ip: string): Promise<Date | null>;
  /** The active account whose password this is, else null (timing does not reveal which part was wrong). */
  checkPassword(username: string, password: string): Promise<AccountSummary | null>;
  /** Counts a failed password; returns the lock's end when this failure locked the account. */
  recordFailure(username: string, ip: string): Promise<Date | null>;
  clearFailures(username: string, ip: string): Promise<void>;
  startSession(userId: number, ip: string): Promise<{ token: string }>;
  endSession(sessionId: string): Promise<void>;
  /** Returns the key itself once; only its hash is kept. */
  createApiKey(userId: number, name: string, scopes: readonly Scope[], expiresAt: Date | null): Promise<{ key: string; record: ApiKeyRecord }>;
  /** One owner's keys, or everyone's with null. */
  listApiKeys(ownerId: number | null): Promise<ApiKeyRecord[]>;
  /** False when no such key (of that owner, unless ownerId is null) exists. */
  revokeApiKey(keyId: number, ownerId: number | null): Promise<boolean>;
}
