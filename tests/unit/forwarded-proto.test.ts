// Issue 11 item 6: behind TLS terminated by a trusted proxy, `cookieSecure=auto` marks the
// session cookie Secure and OAuth metadata names https, because both follow the resolved
// origin (X-Forwarded-Proto honoured only from security.trustedProxyCidrs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testApp } from '../support/app.ts';
import { ADMIN_PASSWORD } from '../support/services.ts';

const PROXY = '10.0.0.1';

async function signInVia(ip: string, headers: Record<string, string>) {
  const h = await testApp({ trustedProxies: PROXY });
  const res = await h.call('POST', '/auth/login', { ip, headers, body: { username: 'admin', password: ADMIN_PASSWORD } });
  assert.equal(res.status, 200, res.text);
  return res.headers.get('set-cookie') ?? '';
}

describe('the scheme the client used', () => {
  it('marks the cookie Secure when a trusted proxy says the client used https', async () => {
    assert.match(await signInVia(PROXY, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'capstan.example' }), /;\s*Secure/i);
    assert.match(await signInVia(PROXY, { 'x-forwarded-proto': 'https' }), /;\s*Secure/i, 'the scheme alone is enough');
  });

  it('ignores X-Forwarded-Proto from a peer it does not trust, and http stays http', async () => {
    assert.doesNotMatch(await signInVia('192.0.2.10', { 'x-forwarded-proto': 'https' }), /Secure/i);
    assert.doesNotMatch(await signInVia(PROXY, { 'x-forwarded-proto': 'http' }), /Secure/i);
  });

  it('names https in OAuth metadata behind a TLS-terminating trusted proxy', async () => {
    const h = await testApp({ trustedProxies: PROXY });
    const res = await h.call('GET', '/.well-known/oauth-authorization-server', { ip: PROXY, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'capstan.example' } });
    assert.equal(res.body.issuer, 'https://capstan.example');
    const schemeOnly = await h.call('GET', '/.well-known/oauth-authorization-server', { ip: PROXY, headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(schemeOnly.body.issuer, 'https://localhost', 'an ingress that keeps Host but terminates TLS');
    const direct = await h.call('GET', '/.well-known/oauth-authorization-server', { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'capstan.example' } });
    assert.equal(direct.body.issuer, 'http://localhost', 'an untrusted peer names nothing');
  });
});
