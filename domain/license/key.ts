// License keys read and judged without I/O (docs/licensing.md, "The key"). A key is
// `capstan1.<payload>.<signature>`: the payload is base64url JSON (schema/license.ts), the
// signature an Ed25519 signature over the ASCII text `capstan1.<payload>` (as JWS signs its
// header and payload), base64url. The signature check itself needs node:crypto, so the runtime
// hands it in (runtime/license/keys.ts); what a verified payload means (tier,
// expiry) is decided here, with the time passed in.
import * as v from 'valibot';
import { LicensePayload, LicenseTier, type LicenseState } from '../../schema/license.ts';

export const KEY_PREFIX = 'capstan1';

/** True when `signature` (base64url) is the issuer's signature of `signingInput`; false for anything else, never throws. */
export type SignatureCheck = (signingInput: string, signature: string) => boolean;

/** A key as far as the signature decides: its payload, or why it is not a key of ours. Independent of time. */
export type ReadKey = { ok: true; payload: LicensePayload } | { ok: false; reason: string };

/** What a key means at one instant. */
export type KeyVerdict =
  | { state: Extract<LicenseState, 'none'> }
  | { state: Extract<LicenseState, 'invalid'>; reason: string }
  | { state: Extract<LicenseState, 'expired'>; reason: string; payload: LicensePayload }
  | { state: Extract<LicenseState, 'valid'>; payload: LicensePayload };

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** base64url (no padding) to UTF-8 text; null when it is not that. */
function decodeBase64Url(text: string): string | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Structure, then signature, then payload: nothing in an unverified payload is read, so a
 * tampered key is reported as tampered whatever it claims.
 */
export function readKey(key: string, check: SignatureCheck): ReadKey {
  const parts = key.trim().split('.');
  if (parts.length !== 3 || parts[0] !== KEY_PREFIX) return { ok: false, reason: `malformed: a license key is ${KEY_PREFIX}.<payload>.<signature>` };
  const [prefix, payloadPart = '', signature = ''] = parts;
  if (!BASE64URL.test(payloadPart) || !BASE64URL.test(signature)) return { ok: false, reason: 'malformed: the payload and signature must be base64url' };
  if (!check(`${prefix}.${payloadPart}`, signature)) return { ok: false, reason: 'signature does not verify: the key was altered or was not issued for this Capstan (wrong signing key)' };
  const json = decodeBase64Url(payloadPart);
  let raw: unknown;
  try {
    raw = json === null ? undefined : JSON.parse(json);
  } catch {
    raw = undefined;
  }
  if (raw === undefined) return { ok: false, reason: 'malformed: the signed payload is not JSON' };
  const tier = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).tier : undefined;
  if (!v.is(LicenseTier, tier)) return { ok: false, reason: `unknown tier ${JSON.stringify(tier ?? null)}: this Capstan knows ${LicenseTier.options.join(', ')}` };
  const parsed = v.safeParse(LicensePayload, raw);
  if (!parsed.success) {
    const [issue] = parsed.issues;
    return { ok: false, reason: `malformed: payload field ${v.getDotPath(issue) ?? '(payload)'}: ${issue.message}` };
  }
  if (Date.parse(parsed.output.expires_at) <= Date.parse(parsed.output.issued_at)) return { ok: false, reason: 'malformed: expires_at is not after issued_at' };
  return { ok: true, payload: parsed.output };
}

/** A read key at `now`: expired from the instant `expires_at` is reached (no grace period). */
export function judgeKey(read: ReadKey | null, now: Date): KeyVerdict {
  if (read === null) return { state: 'none' };
  if (!read.ok) return { state: 'invalid', reason: read.reason };
  if (now.getTime() >= Date.parse(read.payload.expires_at)) return { state: 'expired', reason: `expired at ${new Date(read.payload.expires_at).toISOString()}`, payload: read.payload };
  return { state: 'valid', payload: read.payload };
}

/** The tier in force: the key's while valid, else free. */
export function tierInForce(verdict: KeyVerdict): LicenseTier {
  return verdict.state === 'valid' ? verdict.payload.tier : 'free';
}

