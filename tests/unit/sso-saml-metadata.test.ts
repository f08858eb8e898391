// Reading an IdP's metadata (runtime/sso/saml.ts parseIdpMetadata): the redirect-binding SSO
// URL, the signing certificate and the entity ID; anything missing is a 400 on the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIdpMetadata } from '../../runtime/sso/saml.ts';

const CERT_B64 = 'MIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw' + 'A'.repeat(40);
const metadata = ({ binding = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', location = 'https://idp.example/sso', use = 'signing', cert = CERT_B64, descriptor = 'IDPSSODescriptor' } = {}) => `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example/metadata">
  <md:${descriptor} protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>ENCRYPTIONONLY</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:KeyDescriptor use="${use}"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
      ${cert}
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/slo-post"/>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/slo"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/post"/>
    <md:SingleSignOnService Binding="${binding}" Location="${location}"/>
  </md:${descriptor}>
</md:EntityDescriptor>`;

describe('parseIdpMetadata', () => {
  it('reads the redirect-binding SSO URL, the signing certificate (as PEM) and the entity ID', () => {
    const parsed = parseIdpMetadata(metadata());
    assert.ok(parsed.ok);
    assert.equal(parsed.value.ssoUrl, 'https://idp.example/sso');
    assert.equal(parsed.value.entityId, 'https://idp.example/metadata');
    assert.equal(parsed.value.sloUrl, 'https://idp.example/slo', 'single logout: the redirect-binding SingleLogoutService');
    assert.match(parsed.value.certPem, /^-----BEGIN CERTIFICATE-----\nMIIBszCC/);
    assert.doesNotMatch(parsed.value.certPem, /ENCRYPTIONONLY/, 'an encryption-only key is not the signing key');
  });

  const refusals: [string, string, RegExp][] = [
    ['not XML', '<md:EntityDescriptor', /not XML|IDPSSODescriptor/],
    ['an SP metadata (no IDPSSODescriptor)', metadata({ descriptor: 'SPSSODescriptor' }), /no IDPSSODescriptor/],
    ['no redirect binding', metadata({ binding: 'urn:oasis:names:tc:SAML:2.0:bindings:SOAP' }), /HTTP-Redirect/],
    ['a non-http SSO location', metadata({ location: 'javascript:alert(1)' }), /HTTP-Redirect/],
    ['no signing key', metadata({ use: 'encryption' }), /signing certificate/],
  ];
  for (const [name, xml, message] of refusals) {
    it(`refuses ${name}`, () => {
      const parsed = parseIdpMetadata(xml);
      assert.equal(parsed.ok, false);
      assert.equal(parsed.error.code, 'invalid_input');
      assert.match(parsed.error.message, message);
      assert.equal('field' in parsed.error ? parsed.error.field : null, 'idp_metadata_xml');
    });
  }
});
