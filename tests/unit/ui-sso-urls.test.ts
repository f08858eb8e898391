// The addresses Admin → SSO shows (the OIDC redirect URI, the SAML SP's entity ID, ACS and
// metadata URLs) are what the agent itself derives, for public URLs with and without a trailing
// slash; and the sign-in buttons' start URL goes through the dashboard's /api/agent proxy with
// the return path encoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OidcConfig, SamlConfig } from '../../schema/sso.ts';
import { oidcRedirectUri, redirectSignInUrl, samlEndpoints } from '../../ui/web/src/api/sso-urls.ts';
import { testServices } from '../support/services.ts';

const PUBLIC_URLS = ['https://capstan.example.com', 'https://capstan.example.com/', 'http://127.0.0.1:18080', 'https://[::1]:8443/'];

describe('the dashboard derives the SSO addresses as the agent does', () => {
  for (const publicUrl of PUBLIC_URLS) {
    it(publicUrl, async () => {
      const services = await testServices();
      const oidc: OidcConfig = { issuer: 'https://login.example.com', client_id: 'c', client_secret: 's', public_url: publicUrl, scopes: ['openid'], groups_claim: 'groups' };
      assert.equal(oidcRedirectUri(publicUrl), services.oidc.redirectUri(oidc));
      // As stored: configure strips the trailing slash; the dashboard compares against that.
      const saml: SamlConfig = { public_url: publicUrl.replace(/\/$/, ''), idp_sso_url: 'https://idp.example.com/sso', idp_entity_id: null, idp_cert_pem: '-----BEGIN CERTIFICATE-----\n', email_attribute: 'email', groups_attribute: 'groups' };
      const agent = services.saml.endpoints(saml);
      assert.deepEqual(samlEndpoints(publicUrl), { sp_entity_id: agent.spEntityId, acs_url: agent.acsUrl, metadata_url: agent.metadataUrl });
    });
  }
});

describe('redirectSignInUrl', () => {
  const cases: [string, string, string][] = [
    ['/auth/oidc/start', '/overview', '/api/agent/auth/oidc/start?return_to=%2Foverview'],
    ['/auth/saml/start', '/security?severity=high&ns=a b', '/api/agent/auth/saml/start?return_to=%2Fsecurity%3Fseverity%3Dhigh%26ns%3Da+b'],
  ];
  for (const [path, returnTo, expected] of cases) {
    it(`${path} back to ${returnTo}`, () => {
      assert.equal(redirectSignInUrl(path, returnTo), expected);
      assert.equal(new URL(expected, 'http://x').searchParams.get('return_to'), returnTo);
    });
  }
});
