// Session cookie value: `<random id>.<HMAC-SHA256(secret, id)>`, both base64url. The
// database stores only SHA-256(id), so a copy of the database cannot be replayed as cookies.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ID_BYTES = 32;
const PART = /^[A-Za-z0-9_-]{43}$/;

export interface IssuedToken {
  token: string;
  /** What the sessions table keys on. */
  storedId: string;
}

export function issueSessionToken(secret: Buffer): IssuedToken {
  const id = randomBytes(ID_BYTES).toString('base64url');
  return { token: `${id}.${sign(secret, id)}`, storedId: storedIdOf(id) };
}

export type TokenCheck = { ok: true; storedId: string } | { ok: false; reason: 'malformed' | 'forged' };

/** Never throws: any string is either a well-signed token or malformed/forged. */
export function verifySessionToken(secret: Buffer, token: string): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [id, mac] = parts as [string, string];
  if (!PART.test(id) || !PART.test(mac)) return { ok: false, reason: 'malformed' };
  // Compare the text, not decoded bytes: base64url's last character carries two ignored
  // bits, and only the one canonical spelling of a MAC may be accepted.
  const expected = Buffer.from(sign(secret, id), 'ascii');
  const given = Buffer.from(mac, 'ascii');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  return { ok: true, storedId: storedIdOf(id) };
}

function sign(secret: Buffer, id: string): string {
  return createHmac('sha256', secret).update(id).digest('base64url');
}

function storedIdOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
