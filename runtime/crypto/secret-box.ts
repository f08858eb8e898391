// Encryption at rest for stored credentials (TOTP secrets, the audit webhook token, later
// SSO configuration): AES-256-GCM from node:crypto, never a hand-rolled cipher.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { persistentSecret } from '../auth/secrets.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_FILE = 'encryption-key';

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the value was not sealed with this key or was altered. */
  open(sealed: string): string;
}

/**
 * The at-rest key: CAPSTAN_ENCRYPTION_KEY (16, 24 or 32 raw bytes, or those lengths in
 * base64) when set, else a 32-byte key generated once into the data dir. Shorter operator
 * keys are stretched with HKDF-SHA256 so the cipher is always AES-256.
 */
export function loadEncryptionKey(fromEnv: string | undefined, dataDir: string): Buffer {
  const material = fromEnv !== undefined && fromEnv !== '' ? parseOperatorKey(fromEnv) : persistentSecret(dataDir, KEY_FILE);
  return Buffer.from(hkdfSync('sha256', material, Buffer.from('capstan'), Buffer.from('capstan-at-rest-v1'), 32));
}

/**
 * The audit chain's HMAC key: HKDF-SHA256 from the at-rest key under its own label, so the
 * key lives wherever the at-rest key does (never in the database) and neither key can stand
 * in for the other. The agent and the recovery CLIs derive the same one.
 */
export function auditChainKey(atRestKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', atRestKey, Buffer.from('capstan'), Buffer.from('capstan-audit-chain-v1'), 32));
}

function parseOperatorKey(value: string): Buffer {
  const valid = (b: Buffer) => b.length === 16 || b.length === 24 || b.length === 32;
  const raw = Buffer.from(value, 'utf8');
  if (valid(raw)) return raw;
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const decoded = Buffer.from(value, 'base64');
    if (valid(decoded)) return decoded;
  }
  throw new Error('CAPSTAN_ENCRYPTION_KEY must be 16, 24 or 32 bytes, raw or base64');
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the at-rest key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}:${iv.toString('base64url')}:${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, iv, body] = sealed.split(':');
      if (version !== VERSION || iv === undefined || body === undefined) throw new Error('not a sealed value');
      const bytes = Buffer.from(body, 'base64url');
      // GCM verifies a tag of any length from 4 bytes unless told otherwise, and a short tag is
      // a cheap forgery: only full 16-byte tags are accepted, and a body too short to hold one
      // is refused before it could be split wrongly.
      if (bytes.length < TAG_BYTES) throw new Error('sealed value is too short to carry its tag');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
