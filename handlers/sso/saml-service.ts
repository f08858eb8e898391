import type * as v from 'valibot';
import type { SamlConfig, SamlConfigInput } from '../../schema/sso.ts';
import type { Result } from '../result.ts';
import type { SsoIdentity } from './service.ts';

export interface StoredSaml {
  enabled: boolean;
  config: SamlConfig;
  updatedAt: Date;
}

/** The SP's own addresses, derived from the configured public URL. */
export interface SamlEndpoints {
  spEntityId: string;
  acsUrl: string;
  metadataUrl: string;
  /** The SP's SingleLogoutService (HTTP-POST binding). */
  sloUrl: string;
}

/** The IdP's name for a signed-in SAML session: what a LogoutRequest names (either way). */
export interface SamlSessionName {
  nameId: string;
  nameIdFormat: string | null;
  sessionIndex: string | null;
}

/** The HTTP-Redirect binding's signature: SigAlg, Signature and the query string exactly as sent, which they sign. Absent: the POST binding. */
export interface SamlRedirectSignature {
  sigAlg: string | undefined;
  signature: string | undefined;
  relayState: string | undefined;
  rawQuery: string;
}

/** Single logout (runtime/sso/saml-logout.ts): every message received must be signed (RSA-SHA256). */
export interface SamlLogoutService {
  /** Remembers the IdP's name for a Capstan session signed in through SAML (ends with the session). */
  recordSession(sessionId: string, name: SamlSessionName): Promise<void>;
  /**
   * A signed LogoutRequest for this Capstan session (redirect binding): the IdP URL to send the
   * browser to, or null when there is nothing to tell the IdP (not a SAML session, no
   * SingleLogoutService or no SP key configured). Its ID is remembered briefly with `returnTo`.
   */
  startLogout(config: SamlConfig, sessionId: string, returnTo: string): Promise<string | null>;
  /**
   * The IdP's LogoutRequest (POST binding): signed by the IdP (RSA-SHA256), from it, to this SP,
   * fresh and never seen before, or `unauthenticated`. Answers the Capstan sessions it ends
   * and the IdP URL carrying our LogoutResponse (null without an IdP SingleLogoutService).
   */
  acceptLogoutRequest(config: SamlConfig, samlRequest: string, relayState: string | undefined, redirect?: SamlRedirectSignature): Promise<Result<{ sessionIds: string[]; location: string | null; nameId: string }>>;
  /** The IdP's LogoutResponse to one of our LogoutRequests: signed, from the IdP, status Success; answers the return path. */
  acceptLogoutResponse(config: SamlConfig, samlResponse: string, redirect?: SamlRedirectSignature): Promise<Result<{ returnTo: string }>>;
}

/** SAML 2.0 service-provider side (runtime/sso/saml.ts, @node-saml/node-saml). */
export interface SamlService extends SamlLogoutService {
  stored(): Promise<StoredSaml | null>;
  endpoints(config: SamlConfig): SamlEndpoints;
  /** Resolves the IdP (metadata XML or URL + certificate), stores it sealed and enables SAML; bad metadata is `invalid_input`. */
  configure(input: v.InferOutput<typeof SamlConfigInput>): Promise<Result<StoredSaml>>;
  /** Turns SAML sign-in off, keeping its configuration; false when it was not on. */
  disable(): Promise<boolean>;
  /** The SP metadata XML for the IdP. */
  metadata(config: SamlConfig): string;
  /**
   * An AuthnRequest (redirect binding): the IdP URL to send the browser to, and the flow cookie's
   * value (request ID, nonce, return path and expiry, sealed, 10 minutes) when the configured
   * public URL is https; null over plain HTTP, where the sealed flow is the RelayState instead.
   * Nothing is kept server-side.
   */
  start(config: SamlConfig, returnTo: string): Promise<Result<{ location: string; flowCookie: string | null }>>;
  /**
   * Verifies a POSTed SAMLResponse: signature (RSA-SHA256 only), audience, time window with
   * 5 minutes' skew, InResponseTo the request the sealed flow names (the flow cookie, required
   * whenever the configured public URL is https, with the RelayState its nonce; else the sealed
   * RelayState), unexpired and answered once, assertion ID never seen before. `unauthenticated` otherwise.
   */
  consume(config: SamlConfig, samlResponse: string, relayState: string | undefined, flowCookie: string | undefined): Promise<Result<{ identity: SsoIdentity; returnTo: string; session: SamlSessionName }>>;
}
