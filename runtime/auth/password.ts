// Password hashing: bcrypt (spec §5 "Passwords are stored as bcrypt hashes") at BCRYPT_COST.
// One hasher per agent, handed to everything that stores or checks a password, so the many
// tests around sign-in can run at bcrypt's lowest cost; the CLI and the chart never choose it.
import bcrypt from 'bcryptjs';

/** bcrypt's work factor for every stored password (about 0.35 s a hash on one core here). */
export const BCRYPT_COST = 12;

export interface PasswordHasher {
  readonly cost: number;
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `hash`. For an account that does not exist (`null`) it compares
   * against a dummy hash of the same cost, so the answer takes as long and says nothing more.
   */
  verify(password: string, hash: string | null): Promise<boolean>;
}

export function bcryptHasher(cost = BCRYPT_COST): PasswordHasher {
  // Made on first need rather than at import: every process importing this would pay a hash.
  let dummy: Promise<string> | null = null;
  return {
    cost,
    hash: (password) => bcrypt.hash(password, cost),
    async verify(password, hash) {
      if (hash !== null) return bcrypt.compare(password, hash);
      dummy ??= bcrypt.hash('capstan-timing-equaliser', cost);
      await bcrypt.compare(password, await dummy);
      return false;
    },
  };
}

export function isBcryptHash(value: string): boolean {
  return /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(value);
}
