// OpenID Connect ID-token rules (issue 17 item 5, docs/sso.md "OIDC"), pure so every refusal is
// table-tested. The signature is checked against the issuer's JWKS by a JOSE library in the
// runtime (runtime/sso/oidc-token.ts) with the same algorithm list; these checks then run on
// the verified header and claims, so a token the library let through for any reason of its own
// (a claim it treats as optional, a wider algorithm default) still meets every rule here.

/**
 * Asymmetric algorithms only. `none` would accept an unsigned token; HS* would verify with a
 * shared secret, and a JWKS-keyed verifier that accepted HS256 could be fed a token MACed with
 * the issuer's PUBLIC key (the classic key-confusion attack).
 */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** Clock drift allowed between the provider and Capstan for `exp`, `iat` and `nbf`. */
export const CLOCK_SKEW_SECS = 60;

/** At most this many groups are read from one token (the SSO model records 500; a token is bounded anyway). */
const MAX_TOKEN_GROUPS = 1000;

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  /** The nonce this browser's flow cookie carries; the token must echo it. */
  nonce: string;
  /** The claim listing groups: `groups` (dex, Okta, Keycloak) or `roles` (Entra app roles). */
  groupsClaim: string;
  nowSecs: number;
}

/** Who the provider says signed in, once every rule held. */
export interface IdTokenIdentity {
  subject: string;
  /** The account's name and audited actor: kept unless `email_verified` is false. */
  email: string | null;
  /** `email_verified` is true: only then may the email match the admin-email list. */
  emailVerified: boolean;
  groups: string[];
}

/** The verdict: the identity, or why the token is refused (the runtime answers 401 with it). */
export type IdTokenVerdict = { ok: true; identity: IdTokenIdentity } | { ok: false; reason: string };

const refuse = (reason: string): IdTokenVerdict => ({ ok: false, reason });

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function checkIdTokenAlgorithm(alg: unknown): string | null {
  return typeof alg === 'string' && (ID_TOKEN_ALGORITHMS as readonly string[]).includes(alg) ? null : `algorithm ${String(alg)} is not accepted (asymmetric signatures only)`;
}

/** Every rule of OpenID Connect Core §3.1.3.7 that applies to the code flow, on a signature-verified token. */
export function checkIdToken(header: Readonly<Record<string, unknown>>, claims: Readonly<Record<string, unknown>>, want: IdTokenExpectations): IdTokenVerdict {
  const algProblem = checkIdTokenAlgorithm(header.alg);
  if (algProblem) return refuse(algProblem);
  if (claims.iss !== want.issuer) return refuse(`issuer ${String(claims.iss)} is not ${want.issuer}`);
  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud) : [];
  if (!audiences.includes(want.clientId)) return refuse(`audience does not include this client (${want.clientId})`);
  // Several audiences: the authorized party must be this client (Core §3.1.3.7 items 4-5).
  if (audiences.length > 1 && claims.azp !== want.clientId) return refuse('azp is not this client although the token has several audiences');
  if (!isNumber(claims.exp)) return refuse('exp is missing');
  if (claims.exp + CLOCK_SKEW_SECS <= want.nowSecs) return refuse('expired');
  if (!isNumber(claims.iat)) return refuse('iat is missing');
  if (claims.iat - CLOCK_SKEW_SECS > want.nowSecs) return refuse('issued in the future');
  if (claims.nbf !== undefined && (!isNumber(claims.nbf) || claims.nbf - CLOCK_SKEW_SECS > want.nowSecs)) return refuse('not valid yet (nbf)');
  // A token minted for another sign-in (a replayed or injected one) carries another nonce.
  if (typeof claims.nonce !== 'string' || claims.nonce !== want.nonce) return refuse('nonce does not match this sign-in');
  if (typeof claims.sub !== 'string' || claims.sub === '' || claims.sub.length > 255) return refuse('sub is missing');
  // An address the provider says it has not verified is not used at all; one it does not say it
  // verified (no `email_verified`, as Entra ID sends) names the account but never matches the
  // admin-email list: only `email_verified: true` (the boolean) does.
  const email = typeof claims.email === 'string' && claims.email !== '' && claims.email_verified !== false ? claims.email : null;
  const emailVerified = email !== null && claims.email_verified === true;
  const rawGroups = claims[want.groupsClaim];
  const groups = Array.isArray(rawGroups) ? rawGroups.filter((g): g is string => typeof g === 'string' && g !== '' && g.length <= 512).slice(0, MAX_TOKEN_GROUPS) : [];
  return { ok: true, identity: { subject: claims.sub, email, emailVerified, groups } };
}

/**
 * The return path after sign-in: same-origin only. A path starting with one `/` and not `//`
 * or `/\` (which browsers read as another host); anything else becomes `/`.
 */
export function safeReturnPath(path: string | undefined): string {
  if (path === undefined || path.length > 2048) return '/';
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  // Control characters (a header split, a tab browsers strip to make `//`) are refused outright.
  for (const ch of path) if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) return '/';
  return path;
}
