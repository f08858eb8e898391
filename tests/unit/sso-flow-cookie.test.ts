// The SSO flow cookies as the runtime renders them from a handler's typed `cookie` effect:
// security.cookieSecure decides Secure in one place (as for the session cookie), HttpOnly and
// the SameSite each flow needs always; SAML's SameSite=None cookie always Secure (browsers drop
// a None cookie without it). The flows themselves: sso-saml-flow.test.ts and the integration tests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp, type CookieSecure } from '../../runtime/http/app.ts';
import { parseTrustedProxies } from '../../runtime/http/client-ip.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp } from '../support/app.ts';
import { discoveryIssuerForFile } from '../support/oidc-discovery.ts';

const discovery = discoveryIssuerForFile();

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAAAAAAAAAAAAAAAAAAAAAAAAAwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n';

/** An agent with OIDC and SAML configured, its app built with `cookieSecure`; answers the flow cookie each start sets, by the scheme the request arrived with. */
async function agent(cookieSecure: CookieSecure) {
  const h = await testApp({ licensing: enterprise });
  const admin = await h.signIn('admin');
  const oidc = await h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: admin, body: { issuer: discovery.issuer(), client_id: 'capstan', client_secret: 'secret', public_url: 'https://capstan.example.com' } });
  assert.equal(oidc.status, 200, oidc.text);
  const saml = await h.call('PUT', '/api/agent/admin/sso/saml', { cookie: admin, body: { public_url: 'https://capstan.example.com', idp_sso_url: 'https://idp.example.com/sso', idp_cert_pem: CERT } });
  assert.equal(saml.status, 200, saml.text);
  const app = createApp({ routes, rawEndpoints, services: h.services, middleware: h.services.middleware, validateOutput: true, cookieSecure, trustedProxies: parseTrustedProxies(''), corsOrigins: [], log: silentLogger });
  return async (provider: 'oidc' | 'saml', scheme: 'http' | 'https'): Promise<string> => {
    const res = await app.request(`${scheme}://capstan.example.com/api/agent/auth/${provider}/login`, {}, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    assert.equal(res.status, 302, await res.text());
    const cookies = res.headers.getSetCookie();
    assert.equal(cookies.length, 1, cookies.join(' | '));
    return cookies[0] ?? '';
  };
}

const attributes = (cookie: string) => cookie.split(';').slice(1).map((a) => a.trim());

describe('SSO flow cookies', () => {
  const cases: [CookieSecure, 'http' | 'https', boolean][] = [
    ['true', 'http', true],
    ['true', 'https', true],
    ['auto', 'https', true],
    ['auto', 'http', false],
    ['false', 'https', false],
    ['false', 'http', false],
  ];
  for (const [cookieSecure, scheme, secure] of cases) {
    it(`OIDC: cookieSecure=${cookieSecure} over ${scheme}: ${secure ? '' : 'not '}Secure; HttpOnly, SameSite=Lax, Path=/, 10 minutes always`, async () => {
      const start = await agent(cookieSecure);
      const cookie = await start('oidc', scheme);
      assert.match(cookie, /^capstan_oidc=[^;]+;/);
      const attrs = attributes(cookie);
      assert.equal(attrs.includes('Secure'), secure, cookie);
      for (const a of ['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=600']) assert.ok(attrs.includes(a), `${a} in ${cookie}`);
    });
  }

  for (const cookieSecure of ['true', 'auto', 'false'] as const) {
    it(`SAML (https public_url): cookieSecure=${cookieSecure}: HttpOnly, SameSite=None and therefore Secure, whatever the request's scheme`, async () => {
      const start = await agent(cookieSecure);
      for (const scheme of ['http', 'https'] as const) {
        const cookie = await start('saml', scheme);
        assert.match(cookie, /^capstan_saml=[^;]+;/);
        const attrs = attributes(cookie);
        for (const a of ['HttpOnly', 'SameSite=None', 'Secure', 'Path=/', 'Max-Age=600']) assert.ok(attrs.includes(a), `${a} in ${cookie} (${scheme})`);
      }
    });
  }
});
