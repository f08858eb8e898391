// MCP over OAuth on a real agent, driven by the MCP SDK's own OAuth client (discovery, dynamic
// registration, authorization code + PKCE, token exchange): the test plays the user's browser
// on the consent screen. Then: the token works for MCP only, acts as the user right now, is
// refused at another resource, and dies when revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { RunningAgent } from '../../runtime/agent.ts';
import { startTestAgent } from '../support/cluster.ts';

const ADMIN_PASSWORD = 'oauth-admin-password';
const REDIRECT = 'http://127.0.0.1:8976/callback';
let agent: RunningAgent;

/** What a desktop MCP client keeps between runs, in memory; the authorization URL it would open in a browser is captured. */
class TestProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Desktop Assistant (test)', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function signIn(username: string, password: string): Promise<string> {
  const res = await fetch(`${agent.url}/api/agent/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

const mcpUrl = () => new URL(`${agent.url}/api/agent/mcp`);

/** The user's browser: follows the authorization URL to the consent screen and approves as `cookie`. */
async function approve(authorizationUrl: URL, cookie: string): Promise<string> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' });
  assert.equal(first.status, 302);
  const consentPage = new URL(first.headers.get('location') ?? '');
  assert.equal(consentPage.pathname, '/oauth/consent', 'the dashboard consent screen');
  const params = Object.fromEntries(consentPage.searchParams);
  const preview = (await (await fetch(`${agent.url}/api/agent/oauth/consent?${consentPage.searchParams.toString()}`, { headers: { cookie } })).json()) as { client_name: string; scope: string };
  assert.deepEqual([preview.client_name, preview.scope], ['Desktop Assistant (test)', 'mcp:read'], 'the consent screen names the client');
  const decided = await fetch(`${agent.url}/api/agent/oauth/consent`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ ...params, approve: true }) });
  assert.equal(decided.status, 200, await decided.clone().text());
  const redirect = new URL(((await decided.json()) as { redirect_to: string }).redirect_to);
  assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
  assert.equal(redirect.searchParams.get('state'), authorizationUrl.searchParams.get('state'));
  return redirect.searchParams.get('code') ?? '';
}

/** The whole dance, as a desktop client does it: connect, get sent to authorize, come back with a code, connect again. */
async function connectWithOAuth(cookie: string): Promise<{ client: Client; provider: TestProvider }> {
  const provider = new TestProvider();
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  await assert.rejects(first.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider })), /Unauthorized/);
  assert.ok(provider.authorizationUrl, 'the client was sent to authorize');
  assert.equal(provider.authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  const code = await approve(provider.authorizationUrl, cookie);
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await transport.finishAuth(code);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return { client, provider };
}

describe('MCP over OAuth', () => {
  before(async () => {
    agent = await startTestAgent('oauth', {
      accounts: { adminPassword: ADMIN_PASSWORD },
    });
  });
  after(() => agent.close());

  it('runs discovery, registration, authorization code + PKCE and a token exchange, then serves MCP as the approving user', async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const unauthenticated = await fetch(mcpUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(unauthenticated.status, 401);
    assert.match(unauthenticated.headers.get('www-authenticate') ?? '', /resource_metadata=".*\/\.well-known\/oauth-protected-resource\/api\/agent\/mcp"/);

    const { client, provider } = await connectWithOAuth(admin);
    const saved = provider.saved;
    assert.ok(saved);
    assert.equal(saved.token_type, 'Bearer');
    assert.equal(saved.expires_in, 3600, 'one hour');
    const health = await client.callTool({ name: 'get_health', arguments: { namespace: 'shop' } });
    assert.notEqual(health.isError, true);
    await client.close();

    const bearer = { authorization: `Bearer ${saved.access_token}` };
    assert.equal((await fetch(`${agent.url}/api/agent/mcp/tools`, { headers: bearer })).status, 200, 'the REST pair too');
    assert.equal((await fetch(`${agent.url}/api/agent/namespaces`, { headers: bearer })).status, 403, 'nothing but MCP');
    assert.equal((await fetch(`${agent.url}/api/agent/me/api-keys`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"name":"x","scopes":["mcp:read"]}' })).status, 403, 'read-only: no writes');

    // Bound to this resource: the same agent reached under another name is another resource.
    const otherOrigin = agent.url.replace('127.0.0.1', 'localhost');
    const elsewhere = await fetch(`${otherOrigin}/api/agent/mcp/tools`, { headers: bearer });
    assert.equal(elsewhere.status, 401, 'a token for another resource is refused');
    assert.match(((await elsewhere.json()) as { message: string }).message, /issued for/);
    // An error goes back to the client only for a signed-in user; anyone else gets Capstan's own answer, not a redirect.
    const wrongTargetUrl = `${agent.url}/api/agent/oauth/authorize?${new URLSearchParams({ ...Object.fromEntries(provider.authorizationUrl?.searchParams ?? []), resource: 'https://other.example.com/mcp' }).toString()}`;
    const wrongTarget = await fetch(wrongTargetUrl, { redirect: 'manual', headers: { cookie: admin } });
    assert.equal(new URL(wrongTarget.headers.get('location') ?? 'http://x/').searchParams.get('error'), 'invalid_target');
    const anonymousWrongTarget = await fetch(wrongTargetUrl, { redirect: 'manual' });
    assert.deepEqual([anonymousWrongTarget.status, anonymousWrongTarget.headers.get('location'), ((await anonymousWrongTarget.json()) as { error: string }).error], [400, null, 'invalid_target']);

    // A code is single use, and a verifier must match.
    const reuse = await fetch(`${agent.url}/api/agent/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: REDIRECT, client_id: String(provider.info?.client_id), code_verifier: 'x'.repeat(43) }).toString(),
    });
    assert.deepEqual([reuse.status, ((await reuse.json()) as { error: string }).error], [400, 'invalid_grant']);
  });

  it('acts as the user right now: demotion applies, deactivation and revocation end it', async () => {
    const admin = await signIn('admin', ADMIN_PASSWORD);
    const created = await fetch(`${agent.url}/api/agent/admin/users`, { method: 'POST', headers: { cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'carol', password: 'carol-password-1', role: 'admin' }) });
    assert.equal(created.status, 200);
    const carol = await signIn('carol', 'carol-password-1');
    const { client, provider } = await connectWithOAuth(carol);
    const bearer = { authorization: `Bearer ${provider.saved?.access_token ?? ''}` };
    await client.close();

    const grants = (await (await fetch(`${agent.url}/api/agent/me/oauth/grants`, { headers: { cookie: carol } })).json()) as { grants: { id: string; client_name: string }[] };
    assert.deepEqual(grants.grants.map((g) => g.client_name), ['Desktop Assistant (test)'], 'Account → Connected apps lists it');

    const patch = (body: object) => fetch(`${agent.url}/api/agent/admin/users/carol`, { method: 'PATCH', headers: { cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await patch({ role: 'viewer' })).status, 200);
    const events = await fetch(`${agent.url}/api/agent/mcp/tools/call`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'list_namespaces' }) });
    assert.equal(events.status, 200, 'a viewer still reads');

    const revoked = await fetch(`${agent.url}/api/agent/me/oauth/grants/${grants.grants[0]?.id ?? ''}`, { method: 'DELETE', headers: { cookie: carol } });
    assert.equal(revoked.status, 200);
    const after = await fetch(`${agent.url}/api/agent/mcp/tools`, { headers: bearer });
    assert.equal(after.status, 401, 'revoked from Connected apps: refused at once');
    assert.equal(((await after.json()) as { message: string }).message, 'access token was revoked');

    // A second connection, then deactivation: the token dies with the account, for good.
    const second = await connectWithOAuth(carol);
    const secondBearer = { authorization: `Bearer ${second.provider.saved?.access_token ?? ''}` };
    await second.client.close();
    assert.equal((await fetch(`${agent.url}/api/agent/mcp/tools`, { headers: secondBearer })).status, 200);
    assert.equal((await patch({ active: false })).status, 200);
    assert.equal((await fetch(`${agent.url}/api/agent/mcp/tools`, { headers: secondBearer })).status, 401, 'deactivated: the token dies with the account');
    assert.equal((await patch({ active: true })).status, 200);
    const reactivated = await fetch(`${agent.url}/api/agent/mcp/tools`, { headers: secondBearer });
    assert.equal(reactivated.status, 401, 'reactivating the account does not revive the token');
    assert.equal(((await reactivated.json()) as { message: string }).message, 'access token was revoked');
    const carolAgain = await signIn('carol', 'carol-password-1');
    const left = (await (await fetch(`${agent.url}/api/agent/me/oauth/grants`, { headers: { cookie: carolAgain } })).json()) as { grants: unknown[] };
    assert.deepEqual(left.grants, [], 'no connected apps left');
  });
});
