// The pure rules of SAML sign-in (docs/sso.md "SAML"): which signature algorithms are accepted,
// where a sign-in may send the browser afterwards, and the bounded memory of assertion IDs
// already used. The XML and the cryptography live in runtime/sso/saml.ts.

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
/** NotBefore / NotOnOrAfter are honoured with this much clock drift either way. */
export const SAML_CLOCK_SKEW_MS = 5 * 60_000;
/** An AuthnRequest is answerable this long (the user may have to type a password at the IdP). */
export const SAML_REQUEST_TTL_MS = 10 * 60_000;

/**
 * Only RSA-SHA256 with SHA-256 digests is accepted: RSA-SHA1 (and SHA-1 digests) are refused
 * whatever else the document carries, so a signature cannot be downgraded. Null when every
 * signature in the response is acceptable; otherwise why not.
 */
export function algorithmRefusal(signatureMethods: readonly string[], digestMethods: readonly string[]): string | null {
  if (signatureMethods.length === 0) return 'the response carries no signature';
  const badSig = signatureMethods.find((a) => a !== RSA_SHA256);
  if (badSig !== undefined) return `signature algorithm ${badSig} is refused: only RSA-SHA256 is accepted`;
  const badDigest = digestMethods.find((a) => a !== SHA256);
  if (badDigest !== undefined) return `digest algorithm ${badDigest} is refused: only SHA-256 is accepted`;
  return null;
}

/**
 * Where the browser goes after sign-in: a path on Capstan's own origin, or `/`. Anything that a
 * browser could read as another origin (`//host`, `/\host`, a scheme, control characters) is
 * replaced by `/`, so RelayState can never become an open redirect.
 */
export function sameOriginPath(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  // Browsers strip tabs and newlines and treat backslashes as slashes: refuse them outright.
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return '/';
  return raw;
}

/**
 * Whether the ACS requires the flow cookie: whenever the configured public URL is https, decided
 * from configuration and never from how one request arrived (a proxy that does not tell the
 * scheme must not let a response skip the browser binding). The IdP's form posts cross-site,
 * which carries only `SameSite=None` cookies, and browsers keep those only with `Secure`: over a
 * plain-HTTP public URL (development) no cookie can make the trip, so none is asked for.
 */
export function samlFlowCookieRequired(publicUrl: string): boolean {
  return /^https:/i.test(publicUrl.trim());
}

/** A return path carried in a flow (a cookie or RelayState) at most this many UTF-8 bytes; a longer one lands on `/`. */
export const MAX_FLOW_RETURN_BYTES = 2048;

/**
 * Assertion IDs already accepted, each kept until the assertion itself could no longer be
 * accepted (its NotOnOrAfter plus the clock skew). Bounded: when full of IDs that are all still
 * live, `accept` refuses (`full`) rather than forgetting one, which would re-open a replay.
 */
export class ReplayMemory {
  private readonly seen = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.seen.size;
  }

  /** Records `id` as used until `expiresAt` (ms); `replayed` when it was already used and is still remembered. */
  accept(id: string, expiresAt: number, now: number): 'accepted' | 'replayed' | 'full' {
    const until = this.seen.get(id);
    if (until !== undefined && until > now) return 'replayed';
    if (this.seen.size >= this.capacity) this.prune(now);
    if (this.seen.size >= this.capacity) return 'full';
    this.seen.set(id, expiresAt);
    return 'accepted';
  }

  /** Forgets IDs whose assertions have expired. */
  prune(now: number): void {
    for (const [id, until] of this.seen) if (until <= now) this.seen.delete(id);
  }
}

/** The email a SAML identity carries: the configured attribute, else a NameID that is an email. */
export function samlEmail(attribute: unknown, nameId: string): string | null {
  const first = Array.isArray(attribute) ? (attribute as unknown[])[0] : attribute;
  if (typeof first === 'string' && first.includes('@')) return first;
  return /^[^@\s]+@[^@\s]+$/.test(nameId) ? nameId : null;
}

/** The groups a SAML attribute lists: one value or many, strings only. */
export function samlGroups(attribute: unknown): string[] {
  const values = Array.isArray(attribute) ? (attribute as unknown[]) : attribute === undefined ? [] : [attribute];
  return [...new Set(values.filter((g): g is string => typeof g === 'string' && g !== ''))].sort();
}

/** Key transport allowed for encrypted assertions: RSA-OAEP. RSA PKCS#1 v1.5 (`rsa-1_5`) is refused (Bleichenbacher's oracle). */
export const KEY_TRANSPORT = ['http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p', 'http://www.w3.org/2009/xmlenc11#rsa-oaep'];
/** Content encryption allowed: AES (CBC or GCM). Triple DES is refused. */
export const CONTENT_ENCRYPTION = [
  'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
  'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
  'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
];

/** Null when every xenc EncryptionMethod in the response is one accepted above (or there is none); otherwise why not. */
export function encryptionRefusal(encryptionMethods: readonly string[]): string | null {
  const bad = encryptionMethods.find((a) => !KEY_TRANSPORT.includes(a) && !CONTENT_ENCRYPTION.includes(a));
  return bad === undefined ? null : `encryption algorithm ${bad} is refused: only RSA-OAEP key transport with AES content encryption is accepted`;
}

/** node-saml's refusals reached only once the assertion's signature verified: they tell the sender nothing about ciphertext it made up. */
const AFTER_VERIFICATION = /audience|expired|not yet valid|subject confirmation|InResponseTo|issuer|NameID/i;
export const ENCRYPTED_REFUSAL = 'the encrypted assertion could not be decrypted and verified';

/**
 * What the sender of an encrypted response is told when it is refused. Every failure short of a
 * verified assertion (a key or content that does not decrypt, bad padding, decrypted bytes that
 * are not XML, a bad signature inside) reads the same, so the ACS cannot serve as a decryption
 * oracle: XML Encryption's AES-CBC, which samlidp and many IdPs use, falls to one (Jager and
 * Somorovsky, 2011). The detail goes to the agent's log.
 */
export function encryptedRefusalMessage(detail: string): string {
  return AFTER_VERIFICATION.test(detail) ? detail : ENCRYPTED_REFUSAL;
}
