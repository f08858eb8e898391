// Pulling a chart from an OCI registry that speaks the distribution token protocol (the Bearer
// challenge most hosted registries answer with; the htpasswd registry of the integration test
// answers Basic): a registry on loopback, the real outbound client, every refusal named.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createOutboundClient } from '../../runtime/outbound/client.ts';
import { HELM_CHART_LAYER, parseChallenge, pullOciChart } from '../../runtime/helm/oci-pull.ts';

const CHART = Buffer.from('a chart package, as bytes');
const DIGEST = `sha256:${createHash('sha256').update(CHART).digest('hex')}`;
const BASIC = `Basic ${Buffer.from('puller:s3cret').toString('base64')}`;

let server: Server;
let base = '';
/** What each test makes the registry do. */
let behaviour: { realm: () => string; blob: Buffer; redirectBlob: string | null } = { realm: () => `${base}/token`, blob: CHART, redirectBlob: null };
const tokenRequests: string[] = [];
/** The authorization header each request to the storage a blob is redirected to carried ('' for none). */
const storageAuthorizations: string[] = [];

function handle(req: IncomingMessage): { status: number; headers?: Record<string, string>; body?: string | Buffer } {
  const url = new URL(req.url ?? '/', base);
  // The registry's storage, where a hosted registry redirects a blob (a signed URL: no registry credential).
  if (url.pathname === '/storage/blob') {
    storageAuthorizations.push(req.headers.authorization ?? '');
    return { status: 200, body: behaviour.blob };
  }
  if (url.pathname === '/storage/loop') return { status: 302, headers: { location: '/storage/loop' } };
  if (url.pathname === '/token') {
    tokenRequests.push(url.search);
    return req.headers.authorization === BASIC ? { status: 200, body: JSON.stringify({ token: 'pull-token' }) } : { status: 401 };
  }
  if (req.headers.authorization !== 'Bearer pull-token') return { status: 401, headers: { 'www-authenticate': `Bearer realm="${behaviour.realm()}",service="test-registry",scope="repository:charts/hello:pull"` } };
  if (url.pathname === '/v2/charts/hello/manifests/1.0.0_build.1') return { status: 200, body: JSON.stringify({ schemaVersion: 2, layers: [{ mediaType: HELM_CHART_LAYER, digest: DIGEST, size: CHART.length }] }) };
  if (url.pathname === `/v2/charts/hello/blobs/${DIGEST}`) return behaviour.redirectBlob !== null ? { status: 307, headers: { location: behaviour.redirectBlob } } : { status: 200, body: behaviour.blob };
  return { status: 404 };
}

const outbound = createOutboundClient({ policy: { allowLoopback: true, kubernetesApiHosts: [] } });
const ref = () => ({ url: `oci://${new URL(base).host}/charts`, name: 'hello', version: '1.0.0+build.1', plainHttp: true, username: 'puller', password: 's3cret' });

describe('pullOciChart against a token-protocol registry', () => {
  before(async () => {
    server = createServer((req, res) => {
      const answer = handle(req);
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
  });
  after(async () => {
    await outbound.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it("answers the Bearer challenge at the realm with the credentials, then pulls the layer (a version's + as _)", async () => {
    behaviour = { realm: () => `${base}/token`, blob: CHART, redirectBlob: null };
    const pulled = await pullOciChart(outbound, ref());
    assert.ok(pulled.ok, pulled.ok ? '' : pulled.message);
    assert.deepEqual(pulled.bytes, CHART);
    assert.deepEqual(tokenRequests.at(-1), '?service=test-registry&scope=repository%3Acharts%2Fhello%3Apull');
  });

  it("follows a blob's redirect to its storage, checked, without the registry's credentials", async () => {
    behaviour = { realm: () => `${base}/token`, blob: CHART, redirectBlob: '/storage/blob' };
    storageAuthorizations.length = 0;
    const pulled = await pullOciChart(outbound, ref());
    assert.ok(pulled.ok, pulled.ok ? '' : pulled.message);
    assert.deepEqual(pulled.bytes, CHART);
    assert.deepEqual(storageAuthorizations, [''], 'the storage got no token and no password');
  });

  const REFUSALS: { name: string; change: () => void; ref?: Partial<ReturnType<typeof ref>>; message: RegExp }[] = [
    { name: 'wrong credentials: the token service refuses', change: () => undefined, ref: { password: 'nope' }, message: /token service answered 401/ },
    { name: 'a realm at the metadata address: refused before anything is sent', change: () => (behaviour.realm = () => 'http://169.254.169.254/token'), message: /token service http:\/\/169\.254\.169\.254\/token: must not point at/ },
    { name: 'a layer that does not match its digest', change: () => (behaviour.blob = Buffer.from('tampered')), message: /does not match its digest/ },
    { name: 'a blob redirected to the metadata address: refused before anything is sent', change: () => (behaviour.redirectBlob = 'http://169.254.169.254/blob'), message: /redirected the chart layer to http:\/\/169\.254\.169\.254: must not point at/ },
    { name: 'a blob redirected round and round: given up after two', change: () => (behaviour.redirectBlob = '/storage/loop'), message: /redirected more than 2 times/ },
    { name: 'a redirected blob that does not match its digest', change: () => ((behaviour.redirectBlob = '/storage/blob'), (behaviour.blob = Buffer.from('tampered'))), message: /does not match its digest/ },
    { name: 'an unknown version', change: () => undefined, ref: { version: '9.9.9' }, message: /has no .*hello:9\.9\.9/ },
  ];
  for (const row of REFUSALS) {
    it(row.name, async () => {
      behaviour = { realm: () => `${base}/token`, blob: CHART, redirectBlob: null };
      row.change();
      const pulled = await pullOciChart(outbound, { ...ref(), ...row.ref });
      assert.ok(!pulled.ok);
      assert.match(pulled.message, row.message);
      assert.doesNotMatch(pulled.message, /s3cret|nope/, 'no credential in the message');
    });
  }
});

describe('parseChallenge', () => {
  const TABLE: [string | null, ReturnType<typeof parseChallenge>][] = [
    ['Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"', { scheme: 'bearer', params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull' } }],
    ['Basic realm="capstan-test"', { scheme: 'basic', params: { realm: 'capstan-test' } }],
    ['Negotiate abc', null],
    [null, null],
  ];
  for (const [header, want] of TABLE) it(String(header), () => assert.deepEqual(parseChallenge(header), want));
});
