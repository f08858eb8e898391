// CAPSTAN_CORS_ORIGINS (the chart sets the install's public URL): the listed origin gets CORS
// answers with credentials and may write; any other origin gets no CORS header and its writes
// stay refused as cross-site. Parsing refuses anything that is not an origin, naming the variable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCorsOrigins } from '../../runtime/http/cors.ts';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import { testApp } from '../support/app.ts';

const PUBLIC = 'https://capstan.example.com';
const ENV = { incoming: { socket: { remoteAddress: '192.0.2.10' } } };

describe('parseCorsOrigins', () => {
  const good: [string | undefined, string[]][] = [
    [undefined, []],
    ['', []],
    [' https://capstan.example.com ', [PUBLIC]],
    ['https://Capstan.Example.com:443/', [PUBLIC]],
    ['https://a.example, http://localhost:3000,https://a.example', ['https://a.example', 'http://localhost:3000']],
  ];
  for (const [value, want] of good) it(`${JSON.stringify(value)} → ${JSON.stringify(want)}`, () => assert.deepEqual(parseCorsOrigins(value, 'CAPSTAN_CORS_ORIGINS'), want));
  for (const bad of ['capstan.example.com', 'https://a.example/app', 'ftp://a.example', 'https://a.example?x=1', '*', 'null']) {
    it(`refuses ${bad}`, () => assert.throws(() => parseCorsOrigins(bad, 'CAPSTAN_CORS_ORIGINS'), /CAPSTAN_CORS_ORIGINS: .* is not an origin/));
  }
  it('reaches the agent through its environment', () => {
    assert.deepEqual(agentOptionsFromEnv({ CAPSTAN_CORS_ORIGINS: PUBLIC }).corsOrigins, [PUBLIC]);
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_CORS_ORIGINS: 'nope' }), /CAPSTAN_CORS_ORIGINS/);
  });
});

describe('CORS for the public origin', () => {
  it('answers a preflight from the listed origin, with credentials, and none for another origin', async () => {
    const h = await testApp({ corsOrigins: [PUBLIC] });
    const preflight = await h.app.request('/api/agent/admin/users', { method: 'OPTIONS', headers: { origin: PUBLIC, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }, ENV);
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), PUBLIC);
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Content-Type/);
    const other = await h.app.request('/api/agent/admin/users', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }, ENV);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const read = await h.call('GET', '/api/agent/namespaces', { cookie: await h.signIn('viewer'), headers: { origin: PUBLIC } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), PUBLIC);
    assert.match(read.headers.get('vary') ?? '', /Origin/);
  });

  it("takes the listed origin's writes, and still refuses another origin's", async () => {
    const h = await testApp({ corsOrigins: [PUBLIC] });
    const cookie = await h.signIn('admin');
    const write = (origin: string, username: string) =>
      h.call('POST', '/api/agent/admin/users', { cookie, headers: { origin, 'sec-fetch-site': 'cross-site' }, body: { username, password: `${username}-password`, role: 'viewer' } });
    const listed = await write(PUBLIC, 'alice');
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.headers.get('access-control-allow-origin'), PUBLIC);
    const evil = await write('https://evil.example', 'mallory');
    assert.equal(evil.status, 403);
    assert.equal(evil.body.error, 'cross_site_request');
  });

  it('without the option, nothing changes: no CORS header, and the public origin is just another site', async () => {
    const h = await testApp();
    const cookie = await h.signIn('admin');
    const res = await h.call('POST', '/api/agent/admin/users', { cookie, headers: { origin: PUBLIC }, body: { username: 'carol', password: 'carol-password', role: 'viewer' } });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});
