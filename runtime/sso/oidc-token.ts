// ID-token verification (issue 17 item 5): the signature against the issuer's JWKS with `jose`,
// restricted to asymmetric algorithms before any key is chosen, then every OpenID Connect rule
// in domain/sso/oidc.ts (issuer, audience, azp, expiry, iat, nonce, sub) on what was verified.
import { decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { checkIdToken, checkIdTokenAlgorithm, CLOCK_SKEW_SECS, ID_TOKEN_ALGORITHMS, type IdTokenExpectations, type IdTokenIdentity } from '../../domain/sso/oidc.ts';
import { fail, ok, type Result } from '../../handlers/result.ts';

const refused = (why: string): Result<IdTokenIdentity> => fail({ code: 'unauthenticated', message: `ID token refused: ${why}` });

/** Verifies an ID token's signature with `keys` (the issuer's JWKS) and its claims against `want`. */
export async function verifyIdToken(token: string, keys: JWTVerifyGetKey, want: IdTokenExpectations): Promise<Result<IdTokenIdentity>> {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return refused('not a signed JWT');
  }
  // Refused before the JWKS is consulted: `none` and HS* never reach a key lookup.
  const algProblem = checkIdTokenAlgorithm(header.alg);
  if (algProblem) return refused(algProblem);
  let claims: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, keys, {
      algorithms: [...ID_TOKEN_ALGORITHMS],
      issuer: want.issuer,
      audience: want.clientId,
      currentDate: new Date(want.nowSecs * 1000),
      clockTolerance: CLOCK_SKEW_SECS,
      requiredClaims: ['exp', 'iat', 'sub', 'nonce'],
    });
    claims = verified.payload;
    header = verified.protectedHeader;
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'invalid';
    // jose's codes name the failed rule (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ERR_JWT_CLAIM_VALIDATION_FAILED ...).
    const reason = error instanceof Error ? error.message : code;
    return refused(`${code}: ${reason}`);
  }
  const verdict = checkIdToken(header, claims, want);
  return verdict.ok ? ok(verdict.identity) : refused(verdict.reason);
}
