// Ed25519 for license keys, through node:crypto only (docs/licensing.md, "The key"). The
// project's public key ships beside this file; the private key stays with the issuer, outside
// the repository (scripts/sign-license.ts reads it from a path).
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KEY_PREFIX, type SignatureCheck } from '../../domain/license/key.ts';
import type { LicensePayload } from '../../schema/license.ts';

/** The issuer's public key (SPKI PEM) every Capstan build verifies license keys with. */
export const SHIPPED_PUBLIC_KEY_PEM: string = readFileSync(new URL('./public-key.pem', import.meta.url), 'utf8');

/** An Ed25519 public key from PEM; throws naming what is wrong, so a bad CAPSTAN_LICENSE_PUBLIC_KEY stops the start. */
export function ed25519PublicKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the license public key must be Ed25519, got ${key.asymmetricKeyType ?? 'an unknown type'}`);
  return key;
}

/** The signature check domain/license/key.ts asks for. */
export function ed25519Check(publicKeyPem: string): SignatureCheck {
  const key = ed25519PublicKey(publicKeyPem);
  return (signingInput, signature) => {
    const sig = Buffer.from(signature, 'base64url');
    // Ed25519 signatures are 64 bytes; anything else is refused before it reaches verify.
    if (sig.length !== 64) return false;
    try {
      return verify(null, Buffer.from(signingInput, 'ascii'), key, sig);
    } catch {
      return false;
    }
  };
}

/** A key for `payload`, signed with the issuer's private key (PKCS#8 PEM). */
export function signLicense(payload: LicensePayload, privateKeyPem: string): string {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the signing key must be Ed25519, got ${key.asymmetricKeyType ?? 'an unknown type'}`);
  const input = `${KEY_PREFIX}.${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input, 'ascii'), key).toString('base64url')}`;
}
