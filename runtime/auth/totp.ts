// RFC 6238 TOTP over @oslojs/otp's HOTP, so the clock is ours (injectable) and the
// accepted time step is known: a step at or before the last accepted one is a replay.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp';
import { encodeBase32NoPadding } from '@oslojs/encoding';

export const TOTP_PERIOD_SECS = 30;
export const TOTP_DIGITS = 6;
/** ±30 s clock tolerance (spec §8): the previous, current and next step. */
const DRIFT_STEPS = 1;
const SECRET_BYTES = 20;

export function newTotpSecret(): Uint8Array {
  return new Uint8Array(randomBytes(SECRET_BYTES));
}

export function totpSecretText(secret: Uint8Array): string {
  return encodeBase32NoPadding(secret);
}

export function totpUri(username: string, secret: Uint8Array): string {
  return createTOTPKeyURI('Capstan', username, secret, TOTP_PERIOD_SECS, TOTP_DIGITS);
}

export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECS);
}

export function totpCodeAt(secret: Uint8Array, step: number): string {
  return generateHOTP(secret, BigInt(step), TOTP_DIGITS);
}

/** The time step a code belongs to within the tolerance window, or null when it matches none. */
export function matchingStep(secret: Uint8Array, code: string, at: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const current = totpStep(at);
  let matched: number | null = null;
  // Every candidate is compared, so timing does not say which step matched.
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(totpCodeAt(secret, step)), Buffer.from(code))) matched ??= step;
  }
  return matched;
}
