// The authorization endpoint must not be an open redirector (RFC 6749 §4.1.2.1, RFC 9700 §4.11):
// client registration is open, so a registered redirect URI proves nothing about who owns it.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { testApp } from '../support/app.ts';

const ATTACKER = 'https://attacker.example/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

async function setUp(t: TestContext) {
  const h = await testApp();
  t.after(() => h.services.stop());
  const registered = await h.call('POST', '/api/agent/oauth/register', { body: { client_name: 'Anyone', redirect_uris: [ATTACKER] } });
  assert.equal(registered.status, 200, registered.text);
  const clientId = String(registered.body.client_id);
  const authorize = (params: Record<string, string>, cookie?: string) => {
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: ATTACKER, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's1', ...params });
    return h.call('GET', `/api/agent/oauth/authorize?${query.toString()}`, { cookie });
  };
  return { h, authorize };
}

const sentTo = (location: string | null) => (location === null ? null : `${new URL(location).origin}${new URL(location).pathname}`);

describe('OAuth authorization endpoint', () => {
  it('shows an error itself, never redirecting to the client, when nobody is signed in', async (t) => {
    const { authorize } = await setUp(t);
    const invalid: Record<string, string>[] = [{ scope: 'admin' }, { resource: 'https://other.example/mcp' }];
    for (const params of invalid) {
      const answer = await authorize(params);
      assert.notEqual(sentTo(answer.headers.get('location')), ATTACKER, `no redirect to the registered URI for ${JSON.stringify(params)}`);
      assert.equal(answer.status, 400, answer.text);
      assert.match(String(answer.body.error), /^invalid_(request|target)$/);
      assert.equal(typeof answer.body.error_description, 'string');
    }
  });

  it('never redirects for an unknown client or an unregistered redirect_uri, even signed in', async (t) => {
    const { h, authorize } = await setUp(t);
    const admin = await h.signIn();
    const invalid: Record<string, string>[] = [{ client_id: 'no-such-client', scope: 'admin' }, { redirect_uri: 'https://elsewhere.example/cb', scope: 'admin' }];
    for (const params of invalid) {
      const answer = await authorize(params, admin);
      assert.equal(answer.headers.get('location'), null, answer.text);
      assert.equal(answer.status, 400, answer.text);
    }
  });

  it('redirects an error to the validated client only for a signed-in user, with the state', async (t) => {
    const { h, authorize } = await setUp(t);
    const admin = await h.signIn();
    const answer = await authorize({ scope: 'admin' }, admin);
    assert.equal(answer.status, 302, answer.text);
    const location = new URL(answer.headers.get('location') ?? '');
    assert.equal(sentTo(location.href), ATTACKER);
    assert.deepEqual([location.searchParams.get('error'), location.searchParams.get('state')], ['invalid_request', 's1']);
  });

  it('sends a valid request to our own consent screen, signed in or not', async (t) => {
    const { authorize } = await setUp(t);
    const answer = await authorize({});
    assert.equal(answer.status, 302, answer.text);
    assert.equal(new URL(answer.headers.get('location') ?? '').pathname, '/oauth/consent');
  });
});
