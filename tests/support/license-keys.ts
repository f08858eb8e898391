// A license issuer of the tests' own: a fresh Ed25519 pair whose public key the agent is given
// through its `license.publicKeyPem` option (CAPSTAN_LICENSE_PUBLIC_KEY), as a self-hosted
// issuer's would be. The private key never leaves the test process.
import { generateKeyPairSync } from 'node:crypto';
import { signLicense } from '../../runtime/license/keys.ts';
import type { LicensePayload } from '../../schema/license.ts';

export interface TestIssuer {
  publicKeyPem: string;
  privateKeyPem: string;
  /** A key for a Pro licensee valid for a year from `now`, with `overrides` applied. */
  key(overrides?: Partial<LicensePayload>, now?: Date): string;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

export function testIssuer(): TestIssuer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    publicKeyPem,
    privateKeyPem,
    key: (overrides = {}, now = new Date()) =>
      signLicense(
        { id: 'lic_test_1', tier: 'pro', licensee: 'Example Corp', issued_at: now.toISOString(), expires_at: new Date(now.getTime() + YEAR_MS).toISOString(), ...overrides },
        privateKeyPem,
      ),
  };
}
