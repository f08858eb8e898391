// API key format (spec §2): `capstan_<prefix>_<secret>`. The prefix (8 lowercase hex) is
// stored and indexed for lookup; the 160-bit secret (32 base32 characters) only as SHA-256.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

const KEY = /^capstan_([0-9a-f]{8})_([a-z2-7]{32})$/;

export interface MintedKey {
  key: string;
  prefix: string;
  secretHash: string;
}

export function mintApiKey(): MintedKey {
  const prefix = randomBytes(4).toString('hex');
  const secret = encodeBase32LowerCaseNoPadding(randomBytes(20));
  return { key: `capstan_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

/** Never throws: anything not shaped exactly like a key is null. */
export function parseApiKey(value: string): { prefix: string; secret: string } | null {
  const match = KEY.exec(value);
  return match ? { prefix: match[1] ?? '', secret: match[2] ?? '' } : null;
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
