// The addresses Admin → SSO shows (the OIDC redirect URI, the SAML SP's entity ID, ACS,
// metadata and single logout URLs) are what the agent itself derives, for public URLs with and
// without a trailing slash; and the sign-in buttons' start URL goes through the dashboard's
// /api/agent proxy with the return path encoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { SamlConfigInput, type OidcConfig } from '../../schema/sso.ts';
import { oidcRedirectUri, redirectSignInUrl, samlEndpoints } from '../../ui/web/src/api/sso-urls.ts';
import { testServices } from '../support/services.ts';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n';
const PUBLIC_URLS = ['https://capstan.example.com', 'https://capstan.example.com/', 'http://127.0.0.1:18080', 'https://[::1]:8443/'];

describe('the dashboard derives the SSO addresses as the agent does', () => {
  for (const publicUrl of PUBLIC_URLS) {
    it(publicUrl, async () => {
      const services = await testServices();
      const oidc: OidcConfig = { issuer: 'https://login.example.com', client_id: 'c', client_secret: 's', public_url: publicUrl, scopes: ['openid'], groups_claim: 'groups' };
      assert.equal(oidcRedirectUri(publicUrl), services.oidc.redirectUri(oidc));
      // As the agent stores it (configure, the route's own path, strips a trailing slash).
      const stored = await services.saml.configure(v.parse(SamlConfigInput, { public_url: publicUrl, idp_sso_url: 'https://idp.example.com/sso', idp_cert_pem: CERT }));
      assert.ok(stored.ok, JSON.stringify(stored));
      const agent = services.saml.endpoints(stored.value.config);
      assert.deepEqual(samlEndpoints(publicUrl), { sp_entity_id: agent.spEntityId, acs_url: agent.acsUrl, metadata_url: agent.metadataUrl, slo_url: agent.sloUrl });
    });
  }
});

describe('redirectSignInUrl', () => {
  const cases: [string, string, string][] = [
    ['/auth/oidc/login', '/overview', '/api/agent/auth/oidc/login?return_to=%2Foverview'],
    ['/auth/saml/login', '/security?severity=high&ns=a b', '/api/agent/auth/saml/login?return_to=%2Fsecurity%3Fseverity%3Dhigh%26ns%3Da+b'],
  ];
  for (const [path, returnTo, expected] of cases) {
    it(`${path} back to ${returnTo}`, () => {
      assert.equal(redirectSignInUrl(path, returnTo), expected);
      assert.equal(new URL(expected, 'http://x').searchParams.get('return_to'), returnTo);
    });
  }
});
