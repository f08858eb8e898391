// The SAML service provider's optional keypair (issue 17 item 6, docs/sso.md "The SP keypair"):
// it signs AuthnRequests and decrypts encrypted assertions. An admin supplies a PEM key and
// certificate, or asks Capstan to make them: node:crypto makes the RSA key but cannot issue a
// certificate, so node-forge builds the self-signed X.509 (its ASN.1, not ours). Whatever the
// source, the pair is checked here: PEM that parses, RSA of at least 2048 bits, the certificate
// carrying this key's public half.
import { createPrivateKey, generateKeyPair, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { fail, ok, type Result } from '../../handlers/result.ts';

/** RSA below this is refused (NIST SP 800-131A). */
export const MIN_RSA_BITS = 2048;
/** A generated certificate's lifetime: IdPs pin the SP certificate from its metadata, so a short one would only break sign-in at renewal. */
const GENERATED_CERT_YEARS = 10;

export interface SpKeypair {
  /** PKCS#8 PEM. */
  privateKeyPem: string;
  certPem: string;
}

const bad = (field: string, message: string): Result<never> => fail({ code: 'invalid_input', field, message });

function rsaBits(key: KeyObject): number | null {
  return key.asymmetricKeyType === 'rsa' ? (key.asymmetricKeyDetails?.modulusLength ?? null) : null;
}

/**
 * Checks a supplied pair; answers it normalised (the key as unencrypted PKCS#8 PEM, the first
 * certificate of the PEM). Errors name the field: `sp_private_key_pem` or `sp_cert_pem`.
 */
export function checkSpKeypair(privateKeyPem: string, certPem: string): Result<SpKeypair> {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  } catch (err) {
    // An encrypted key without its passphrase lands here too: the agent has nowhere to keep one.
    return bad('sp_private_key_pem', `not a readable unencrypted PEM private key: ${err instanceof Error ? err.message : String(err)}`);
  }
  const bits = rsaBits(key);
  if (bits === null) return bad('sp_private_key_pem', `must be an RSA key (SAML signs with RSA-SHA256), not ${key.asymmetricKeyType ?? 'unknown'}`);
  if (bits < MIN_RSA_BITS) return bad('sp_private_key_pem', `RSA key of ${bits} bits: at least ${MIN_RSA_BITS} are required`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    return bad('sp_cert_pem', `not a readable PEM certificate: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!cert.checkPrivateKey(key)) return bad('sp_cert_pem', 'the certificate is not for this private key');
  return ok({ privateKeyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(), certPem: cert.toString() });
}

/** A fresh RSA-2048 key and a self-signed certificate (SHA-256) for it, named after the SP. */
export async function generateSpKeypair(commonName: string, now: Date): Promise<SpKeypair> {
  // Asynchronous: RSA key generation takes a few hundred milliseconds, off the event loop.
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: MIN_RSA_BITS });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ format: 'pem', type: 'spki' }).toString());
  // Positive (leading zero byte) and random, as RFC 5280 asks of serial numbers.
  cert.serialNumber = `00${randomBytes(16).toString('hex')}`;
  cert.validity.notBefore = now;
  cert.validity.notAfter = new Date(now.getTime());
  cert.validity.notAfter.setUTCFullYear(now.getUTCFullYear() + GENERATED_CERT_YEARS);
  const name = [{ name: 'commonName', value: commonName.slice(0, 64) }];
  cert.setSubject(name);
  cert.setIssuer(name);
  const privateKeyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  cert.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  // Re-read by node:crypto: the same PEM layout (\n line ends, not forge's \r\n) as a supplied certificate.
  return { privateKeyPem, certPem: new X509Certificate(forge.pki.certificateToPem(cert)).toString() };
}
