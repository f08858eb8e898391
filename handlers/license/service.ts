import type { KeyVerdict, ReadKey } from '../../domain/license/key.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import type { LicenseSource } from '../../schema/license.ts';

/** The tier in force and what it licenses, as the licensing middleware and the copilot's admission read it. */
export interface Licensing {
  tier: string;
  has(feature: LicensedFeature): boolean;
}

/** The license in force and the admin's hold on it (runtime/license/license.ts). */
export interface LicenseService {
  /** The key in force judged now, and where it came from (null source: no key). */
  current(): { verdict: KeyVerdict; source: LicenseSource | null };
  /** A key checked against the issuer's public key; no state changes. */
  read(key: string): ReadKey;
  /** Puts `key` in force at once and stores it (sealed) so it survives restarts. */
  install(key: string): Promise<void>;
  /** Back to Free at once; also keeps the install key (`license.key`) out until the chart supplies a different one. */
  remove(): Promise<void>;
}
