// A refused SSO redirect flow, reached by a browser navigating (from the identity provider), is a
// 303 to the sign-in page with its code and reason; the audit row still records the refusal with
// its own status, and every API client (fetch, curl) still gets the JSON error exactly as before.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptQuality, isBrowserNavigation, REASON_MAX_CHARS, refusalLocation } from '../../runtime/http/browser-errors.ts';
import type { LicensedFeature } from '../../schema/access.ts';
import { testApp } from '../support/app.ts';
import { discoveryIssuerForFile } from '../support/oidc-discovery.ts';

const CHROME_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('isBrowserNavigation', () => {
  const rows: [string, Record<string, string>, boolean][] = [
    ['Chromium navigating', { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', accept: CHROME_ACCEPT }, true],
    ['Chromium navigating, through the dashboard proxy (its fetch overwrites the mode)', { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'cors', accept: CHROME_ACCEPT }, true],
    ['fetch() from the dashboard, through its proxy', { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', accept: '*/*' }, false],
    ['a navigation inside a frame is not top-level', { 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate', accept: CHROME_ACCEPT }, false],
    ['Mode alone (no Dest) navigating', { 'sec-fetch-mode': 'navigate', accept: CHROME_ACCEPT }, true],
    ['an IdP form posting (navigation)', { 'sec-fetch-mode': 'navigate', accept: '*/*' }, true],
    ['fetch() from a page', { 'sec-fetch-mode': 'cors', accept: '*/*' }, false],
    ['fetch() asking for HTML is still not a navigation', { 'sec-fetch-mode': 'cors', accept: 'text/html' }, false],
    ['no-cors subresource', { 'sec-fetch-mode': 'no-cors', accept: CHROME_ACCEPT }, false],
    ['an old browser without Fetch Metadata', { accept: CHROME_ACCEPT }, true],
    ['curl', { accept: '*/*' }, false],
    ['no Accept at all', {}, false],
    ['JSON client', { accept: 'application/json' }, false],
    ['JSON preferred over HTML', { accept: 'application/json, text/html;q=0.5' }, false],
    ['HTML preferred over JSON', { accept: 'text/html, application/json;q=0.5' }, true],
    ['equal preference keeps JSON', { accept: 'text/html, application/json' }, false],
    ['text/* beats a lesser wildcard', { accept: 'text/*, */*;q=0.1' }, true],
  ];
  for (const [name, headers, expected] of rows) {
    it(`${name}: ${expected ? 'navigation' : 'API call'}`, () => {
      assert.equal(isBrowserNavigation(new Headers(headers)), expected);
    });
  }

  it('reads q-values by the most specific range', () => {
    assert.equal(acceptQuality('text/html;q=0.2, */*', 'text/html'), 0.2);
    assert.equal(acceptQuality('text/html;q=0.2, */*', 'application/json'), 1);
    assert.equal(acceptQuality('text/html;q=bogus', 'text/html'), 0);
    assert.equal(acceptQuality('image/png', 'application/json'), 0);
  });
});

describe('refusalLocation', () => {
  it('is a same-origin path carrying the code and the reason', () => {
    const location = refusalLocation('sign-in', 'unauthenticated', 'state does not match <b>&</b>');
    assert.match(location, /^\/sign-in\?/);
    const query = new URL(location, 'https://capstan.example.com').searchParams;
    assert.equal(query.get('sso_error'), 'unauthenticated');
    assert.equal(query.get('reason'), 'state does not match <b>&</b>');
  });

  it(`cuts the reason to ${REASON_MAX_CHARS} characters, never inside a code point`, () => {
    const query = new URL(refusalLocation('sign-in', 'unauthenticated', '🔑'.repeat(500)), 'https://x').searchParams;
    assert.equal(query.get('reason'), '🔑'.repeat(REASON_MAX_CHARS));
  });

  it('names an unexpected code generically rather than echoing it', () => {
    const query = new URL(refusalLocation('sign-in', 'Not A Code\r\n', 'x'), 'https://x').searchParams;
    assert.equal(query.get('sso_error'), 'sign_in_failed');
  });
});

const discovery = discoveryIssuerForFile();

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: CHROME_ACCEPT };
const FETCH = { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', accept: '*/*' };

async function withOidc() {
  const h = await testApp({ licensing: enterprise });
  const configured = await h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: await h.signIn('admin'), body: { issuer: discovery.issuer(), client_id: 'capstan', client_secret: 's3cret', public_url: 'https://capstan.example.com' } });
  assert.equal(configured.status, 200, configured.text);
  return h;
}

async function auditRows(h: Awaited<ReturnType<typeof testApp>>, action: string) {
  return h.services.db.selectFrom('audit_log').select(['status', 'outcome', 'category', 'detail']).where('action', '=', action).orderBy('id').execute();
}

describe('a refused OIDC callback', () => {
  it('sends a navigation to the sign-in page with the code and reason, and audits the 401', async () => {
    const h = await withOidc();
    const res = await h.call('GET', '/api/agent/auth/oidc/callback?code=x&state=y', { headers: NAVIGATION });
    assert.equal(res.status, 303, res.text);
    const location = res.headers.get('location') ?? '';
    assert.match(location, /^\/sign-in\?/, 'a relative same-origin path, like the success redirect');
    const query = new URL(location, 'https://capstan.example.com').searchParams;
    assert.equal(query.get('sso_error'), 'unauthenticated');
    assert.ok((query.get('reason') ?? '').length > 0, location);
    assert.ok((query.get('reason') ?? '').length <= REASON_MAX_CHARS);
    assert.equal(res.headers.get('cache-control'), 'no-store');

    const rows = await auditRows(h, 'GET /auth/oidc/callback');
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]?.status, rows[0]?.outcome, rows[0]?.category], [401, 'denied', 'login']);
    assert.match(rows[0]?.detail ?? '', /"provider":"oidc"/);
  });

  it('answers the same request from fetch() or curl with the same 401 JSON as before', async () => {
    const h = await withOidc();
    const clients: Record<string, string>[] = [FETCH, { accept: '*/*' }, {}];
    for (const headers of clients) {
      const res = await h.call('GET', '/api/agent/auth/oidc/callback?code=x&state=y', { headers });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.headers.get('location'), null);
      assert.equal(res.body.error, 'unauthenticated');
      assert.equal(typeof res.body.message, 'string');
    }
    const rows = await auditRows(h, 'GET /auth/oidc/callback');
    assert.deepEqual(rows.map((r) => [r.status, r.outcome]), [[401, 'denied'], [401, 'denied'], [401, 'denied']]);
  });

  it("carries the provider's own refusal as the reason, bounded", async () => {
    const h = await withOidc();
    const description = 'the user said no. '.repeat(30);
    const res = await h.call('GET', `/api/agent/auth/oidc/callback?${new URLSearchParams({ error: 'access_denied', error_description: description }).toString()}`, { headers: NAVIGATION });
    assert.equal(res.status, 303, res.text);
    const reason = new URL(res.headers.get('location') ?? '', 'https://x').searchParams.get('reason') ?? '';
    assert.match(reason, /^the identity provider refused the sign-in: access_denied \(the user said no\./);
    assert.equal(reason.length, REASON_MAX_CHARS);
  });
});

describe('SSO redirect routes while SSO is off', () => {
  for (const path of ['/auth/oidc/login', '/auth/saml/login', '/auth/oidc/callback?code=x&state=y', '/auth/saml/slo?SAMLRequest=x']) {
    it(`GET ${path}: a navigation lands on sign-in saying not_found, fetch gets the 404 JSON`, async () => {
      const h = await testApp();
      const nav = await h.call('GET', `/api/agent${path}`, { headers: NAVIGATION });
      assert.equal(nav.status, 303, nav.text);
      assert.equal(new URL(nav.headers.get('location') ?? '', 'https://x').searchParams.get('sso_error'), 'not_found');
      const api = await h.call('GET', `/api/agent${path}`, { headers: FETCH });
      assert.equal(api.status, 404, api.text);
      assert.equal(api.body.error, 'not_found');
    });
  }

  it('POST /auth/saml/acs from the IdP auto-submitted form: a navigation lands on sign-in, the refusal audited with its status', async () => {
    const h = await testApp();
    const post = (headers: Record<string, string>) =>
      h.app.request('/api/agent/auth/saml/acs', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://idp.example.com', 'sec-fetch-site': 'cross-site', ...headers }, body: 'SAMLResponse=PHNhbWw%2B&RelayState=x' }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    const nav = await post(NAVIGATION);
    assert.equal(nav.status, 303, await nav.text());
    assert.match(nav.headers.get('location') ?? '', /^\/sign-in\?sso_error=not_found&reason=/);
    const api = await post(FETCH);
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { error: string }).error, 'not_found');
    const rows = await auditRows(h, 'POST /auth/saml/acs');
    assert.deepEqual(rows.map((r) => [r.status, r.outcome]), [[404, 'rejected'], [404, 'rejected']]);
  });

  it('leaves routes that do not declare it alone: a navigation to the password sign-in still gets JSON', async () => {
    const h = await testApp();
    const res = await h.call('GET', '/api/agent/auth/methods?bogus', { headers: NAVIGATION });
    assert.notEqual(res.status, 303);
    const me = await h.call('GET', '/api/agent/me', { headers: NAVIGATION });
    assert.equal(me.status, 401);
    assert.equal(me.body.error, 'unauthenticated');
  });
});
