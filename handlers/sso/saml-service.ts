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
}

/** SAML 2.0 service-provider side (runtime/auth/saml.ts, @node-saml/node-saml). */
export interface SamlService {
  stored(): Promise<StoredSaml | null>;
  endpoints(config: SamlConfig): SamlEndpoints;
  /** Resolves the IdP (metadata XML or URL + certificate), stores it sealed and enables SAML; bad metadata is `invalid_input`. */
  configure(input: v.InferOutput<typeof SamlConfigInput>): Promise<Result<StoredSaml>>;
  /** Turns SAML sign-in off, keeping its configuration; false when it was not on. */
  disable(): Promise<boolean>;
  /** The SP metadata XML for the IdP. */
  metadata(config: SamlConfig): string;
  /** An AuthnRequest (redirect binding): the IdP URL to send the browser to; its ID is remembered briefly with the return path. */
  start(config: SamlConfig, returnTo: string): Promise<Result<{ location: string; nonce: string }>>;
  /**
   * Verifies a POSTed SAMLResponse: signature (RSA-SHA256 only), audience, time window with
   * 5 minutes' skew, InResponseTo one of our outstanding requests and matching the signed
   * RelayState, assertion ID never seen before; when `browserNonce` is given (HTTPS: the flow
   * cookie), it must be that RelayState's nonce. `unauthenticated` otherwise.
   */
  consume(config: SamlConfig, samlResponse: string, relayState: string | undefined, browserNonce: string | null): Promise<Result<{ identity: SsoIdentity; returnTo: string }>>;
}
