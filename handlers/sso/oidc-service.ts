import type { OidcConfig } from '../../schema/sso.ts';
import type { Result } from '../result.ts';
import type { SsoIdentity } from './service.ts';

export interface StoredOidc {
  enabled: boolean;
  config: OidcConfig;
  updatedAt: Date;
}

/** The short-lived cookie carrying one sign-in's state, nonce and PKCE verifier (sealed, Lax). */
export const OIDC_FLOW_COOKIE = 'capstan_oidc';

/** OpenID Connect relying party (runtime/sso/oidc.ts: arctic for the code flow, jose for ID tokens). */
export interface OidcService {
  stored(): Promise<StoredOidc | null>;
  /** Checks the issuer's discovery document, then stores (sealed) and enables OIDC; an unreachable or mismatched issuer is `invalid_input` on `issuer`. */
  configure(config: OidcConfig): Promise<Result<StoredOidc>>;
  /** Turns OIDC sign-in off, keeping its configuration; false when it was not on. */
  disable(): Promise<boolean>;
  redirectUri(config: OidcConfig): string;
  /**
   * A new sign-in: the provider's authorization URL (code + PKCE S256, state, nonce) and the
   * flow cookie's value (state, nonce, verifier and return path, sealed, 10 minutes).
   */
  start(config: OidcConfig, returnTo: string): Promise<Result<{ location: string; flowCookie: string }>>;
  /**
   * The callback: the flow cookie must be ours, unexpired and carry this `state`, used once;
   * the code is exchanged with the verifier and the ID token verified (JWKS, algorithm,
   * issuer, audience, expiry, nonce). `unauthenticated` otherwise.
   */
  finish(config: OidcConfig, code: string, state: string, flowCookie: string | undefined): Promise<Result<{ identity: SsoIdentity; returnTo: string }>>;
}
