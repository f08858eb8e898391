// OIDC's client secret belongs to the issuer it was entered for (review defect 4), as the AI
// provider key and the audit webhook token belong to theirs: `••••` keeps the stored secret only
// while the issuer stays the same. A new issuer with `••••` is 400 on client_secret and nothing
// is saved, so an admin session (or a stolen one) cannot point OIDC at a host of its choosing
// and receive the real secret at that host's token endpoint on the next sign-in.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LicensedFeature } from '../../schema/access.ts';
import { MASKED_SECRET } from '../../schema/sso.ts';
import { testApp } from '../support/app.ts';

/** An issuer that answers discovery and records what reaches its token endpoint. */
interface FakeIssuer {
  url: string;
  tokenRequests: string[];
  server: Server;
}

async function fakeIssuer(): Promise<FakeIssuer> {
  const issuer: FakeIssuer = { url: '', tokenRequests: [], server: createServer() };
  issuer.server.on('request', (req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      const url = issuer.url;
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: url, authorization_endpoint: `${url}/auth`, token_endpoint: `${url}/token`, jwks_uri: `${url}/keys` }));
    }
    if (req.method === 'POST' && req.url === '/token') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        issuer.tokenRequests.push(`${req.headers.authorization ?? ''} ${body}`);
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => issuer.server.listen(0, '127.0.0.1', resolve));
  issuer.url = `http://127.0.0.1:${(issuer.server.address() as AddressInfo).port}`;
  return issuer;
}

let real: FakeIssuer;
let other: FakeIssuer;
before(async () => {
  real = await fakeIssuer();
  other = await fakeIssuer();
});
after(async () => {
  for (const i of [real, other]) await new Promise<void>((resolve) => i.server.close(() => resolve()));
});

const enterprise = { tier: 'enterprise', has: (_f: LicensedFeature) => true };
const SECRET = 'the real client secret';
const PUBLIC_URL = 'https://capstan.example.com';

async function configured() {
  const h = await testApp({ licensing: enterprise });
  const admin = await h.signIn('admin');
  const put = (body: Record<string, unknown>) => h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: admin, body: { client_id: 'capstan', public_url: PUBLIC_URL, ...body } });
  const first = await put({ issuer: real.url, client_secret: SECRET });
  assert.equal(first.status, 200, first.text);
  return { h, put };
}

/** Runs a sign-in up to the token request: start, then the callback with the state the start issued. */
async function signInReachingTokenEndpoint(h: Awaited<ReturnType<typeof testApp>>) {
  const start = await h.call('GET', '/api/agent/auth/oidc/login');
  assert.equal(start.status, 302, start.text);
  const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
  const flow = /capstan_oidc=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return h.call('GET', `/api/agent/auth/oidc/callback?code=c0de&state=${encodeURIComponent(state)}`, { headers: { cookie: `capstan_oidc=${flow}` } });
}

describe('PUT /admin/sso/oidc with the masked secret', () => {
  it('refuses a new issuer with •••• (400 on client_secret), saves nothing, and the secret never reaches the new issuer', async () => {
    const { h, put } = await configured();
    const moved = await put({ issuer: other.url, client_secret: MASKED_SECRET });
    assert.equal(moved.status, 400, moved.text);
    assert.equal(moved.body.field, 'client_secret');

    const stored = await h.services.oidc.stored();
    assert.deepEqual([stored?.config.issuer, stored?.config.client_secret], [real.url, SECRET], 'the issuer and secret are unchanged');
    const [realBefore, otherBefore] = [real.tokenRequests.length, other.tokenRequests.length];
    await signInReachingTokenEndpoint(h);
    assert.equal(other.tokenRequests.length, otherBefore, 'nothing was sent to the other issuer');
    assert.equal(real.tokenRequests.length, realBefore + 1, 'the sign-in still goes to the issuer the secret was entered for');
    assert.ok(!other.tokenRequests.some((r) => r.includes(Buffer.from(`capstan:${SECRET}`).toString('base64'))));
  });

  it('keeps the stored secret with •••• while the issuer stays (another field edited)', async () => {
    const { h, put } = await configured();
    const edited = await put({ issuer: real.url, client_secret: MASKED_SECRET, groups_claim: 'roles' });
    assert.equal(edited.status, 200, edited.text);
    const stored = await h.services.oidc.stored();
    assert.deepEqual([stored?.config.client_secret, stored?.config.groups_claim], [SECRET, 'roles']);
  });

  it('accepts a new issuer with its own secret typed again', async () => {
    const { h, put } = await configured();
    const moved = await put({ issuer: other.url, client_secret: 'the other issuer\'s secret' });
    assert.equal(moved.status, 200, moved.text);
    const stored = await h.services.oidc.stored();
    assert.deepEqual([stored?.config.issuer, stored?.config.client_secret], [other.url, 'the other issuer\'s secret']);
  });

  it('refuses •••• when no secret is stored yet', async () => {
    const h = await testApp({ licensing: enterprise });
    const res = await h.call('PUT', '/api/agent/admin/sso/oidc', { cookie: await h.signIn('admin'), body: { issuer: real.url, client_id: 'capstan', client_secret: MASKED_SECRET, public_url: PUBLIC_URL } });
    assert.deepEqual([res.status, res.body.field], [400, 'client_secret']);
  });
});
