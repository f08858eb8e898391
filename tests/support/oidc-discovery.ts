// The smallest issuer OIDC's configure and start accept: a discovery document naming itself,
// on loopback for one test file (the sign-in flow itself is proved against dex in
// tests/integration/sso-oidc.test.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

/** Starts before the file's tests and closes after them; `issuer()` is its URL once started. */
export function discoveryIssuerForFile(): { issuer: () => string } {
  let server: Server | undefined;
  let issuer = '';
  before(async () => {
    const listening = createServer((req, res) => {
      if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/keys` }));
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return { issuer: () => issuer };
}
