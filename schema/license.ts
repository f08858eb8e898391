import * as v from 'valibot';
import { LicensedFeature } from './access.ts';
import { Timestamp } from './common.ts';

// License keys (docs/licensing.md): what a key carries, what the admin view shows and what
// the heartbeat sends. The tier table itself is domain/license/tiers.ts.

export const LicenseTier = v.picklist(['free', 'pro', 'enterprise']);
export type LicenseTier = v.InferOutput<typeof LicenseTier>;

/**
 * The signed payload of a key (`capstan1.<payload>.<signature>`). Unknown fields are ignored
 * so a later issuer may add some; an unknown tier is refused (invalid), never guessed.
 */
export const LicensePayload = v.object({
  /** The issuer's id for this key (shown to the admin, quoted to support). */
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  tier: LicenseTier,
  licensee: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  issued_at: Timestamp,
  expires_at: Timestamp,
});
export type LicensePayload = v.InferOutput<typeof LicensePayload>;

/** none: no key; valid: verified and current; expired: verified, past expires_at; invalid: malformed, tampered, wrong key or unknown tier. */
export const LicenseState = v.picklist(['none', 'valid', 'expired', 'invalid']);
export type LicenseState = v.InferOutput<typeof LicenseState>;

/** Where the key in force came from: the chart (`license.key`) or an admin (PUT /admin/license). */
export const LicenseSource = v.picklist(['install', 'admin']);
export type LicenseSource = v.InferOutput<typeof LicenseSource>;

/** GET /admin/license (and the answer to PUT/DELETE). */
export const LicenseView = v.object({
  /** The tier in force: the key's when valid, else free. */
  tier: LicenseTier,
  state: LicenseState,
  /** Why the key is not in force (invalid or expired); null when valid or absent. */
  reason: v.nullable(v.string()),
  /** From the key's payload when it could be read (an expired key's too); null otherwise. */
  key_tier: v.nullable(LicenseTier),
  licensee: v.nullable(v.string()),
  id: v.nullable(v.string()),
  issued_at: v.nullable(Timestamp),
  expires_at: v.nullable(Timestamp),
  /** `••••` while a key is installed: the key itself is never shown again. */
  key: v.nullable(v.string()),
  source: v.nullable(LicenseSource),
  /** The licensed features the tier in force carries (domain/license/tiers.ts). */
  features: v.array(LicensedFeature),
});
export type LicenseView = v.InferOutput<typeof LicenseView>;

/** A key is about 300 characters; the cap bounds what verification may be asked to read. */
export const InstallLicenseInput = v.object({ key: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(4096)) });
export type InstallLicenseInput = v.InferOutput<typeof InstallLicenseInput>;

/**
 * The stored setting: the admin's key sealed at rest, and the hash of the install key an admin
 * removed, so DELETE stays removed across restarts until the chart supplies a different key.
 */
export const LicenseSettings = v.object({
  key_sealed: v.nullable(v.string()),
  removed_install_key_sha256: v.nullable(v.string()),
});
export type LicenseSettings = v.InferOutput<typeof LicenseSettings>;

/** The heartbeat's whole body (spec §1: the cluster fingerprint and the license key, nothing else). */
export const LicenseHeartbeat = v.strictObject({ fingerprint: v.string(), license_key: v.string() });
export type LicenseHeartbeat = v.InferOutput<typeof LicenseHeartbeat>;
