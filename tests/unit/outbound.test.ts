// The one outbound client (runtime/outbound/client.ts) every call to a configured endpoint goes
// through, and its address guard (domain/outbound/address.ts): refused ranges in every spelling,
// a name resolving to one refused before the connection, the connection pinned to the address
// checked, no redirects, a response size cap, a short timeout; and the save-time URL rules.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { configuredUrlProblem, refusedAddress, refusedHost, type OutboundPolicy, type RefusedRange } from '../../domain/outbound/address.ts';
import { agentOptionsFromEnv } from '../../runtime/cli/env-options.ts';
import { createOutboundClient, OutboundError, outboundPolicyFromEnv, type Resolver } from '../../runtime/outbound/client.ts';

const strict: OutboundPolicy = { allowLoopback: false, kubernetesApiHosts: ['10.96.0.1'] };
const dev: OutboundPolicy = { allowLoopback: true, kubernetesApiHosts: ['10.96.0.1'] };

describe('the outbound address guard', () => {
  const rows: [string, RefusedRange | null, RefusedRange | null][] = [
    // address, refused in production, refused with the dev switch
    ['127.0.0.1', 'loopback', null],
    ['127.255.3.4', 'loopback', null],
    ['::1', 'loopback', null],
    ['0:0:0:0:0:0:0:1', 'loopback', null],
    ['::ffff:127.0.0.1', 'loopback', null],
    ['::ffff:7f00:1', 'loopback', null],
    ['169.254.169.254', 'metadata', 'metadata'],
    ['fd00:ec2::254', 'metadata', 'metadata'],
    ['100.100.100.200', 'metadata', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata', 'metadata'],
    ['169.254.1.1', 'link_local', 'link_local'],
    ['fe80::1', 'link_local', 'link_local'],
    ['fe80::1%eth0', 'link_local', 'link_local'],
    ['febf::1', 'link_local', 'link_local'],
    ['::ffff:169.254.0.9', 'link_local', 'link_local'],
    ['0.0.0.0', 'unspecified', 'unspecified'],
    ['::', 'unspecified', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified', 'unspecified'],
    ['10.96.0.1', 'kubernetes_api', 'kubernetes_api'],
    ['::ffff:10.96.0.1', 'kubernetes_api', 'kubernetes_api'],
    // Private ranges stay allowed: in-cluster services are legitimate targets.
    ['10.0.0.5', null, null],
    ['172.16.0.1', null, null],
    ['192.168.1.1', null, null],
    ['100.64.0.1', null, null],
    ['fd00::1', null, null],
    ['fec0::1', null, null],
    ['8.8.8.8', null, null],
    ['2606:4700::1111', null, null],
    ['::ffff:8.8.8.8', null, null],
  ];
  for (const [address, prod, withSwitch] of rows) {
    it(`${address}: ${prod ?? 'allowed'}${withSwitch === prod ? '' : `, with the dev switch ${withSwitch ?? 'allowed'}`}`, () => {
      assert.equal(refusedAddress(address, strict), prod);
      assert.equal(refusedAddress(address, dev), withSwitch);
    });
  }

  const hosts: [string, RefusedRange | null][] = [
    ['kubernetes', 'kubernetes_api'],
    ['kubernetes.default', 'kubernetes_api'],
    ['kubernetes.default.svc', 'kubernetes_api'],
    ['kubernetes.default.svc.cluster.local', 'kubernetes_api'],
    ['KUBERNETES.DEFAULT.SVC.cluster.local.', 'kubernetes_api'],
    ['localhost', 'loopback'],
    ['api.localhost', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:a9fe:a9fe]', 'metadata'],
    ['vllm.ai.svc.cluster.local', null],
    ['kubernetes-dashboard.ops.svc', null],
    ['api.openai.com', null],
  ];
  for (const [host, want] of hosts) it(`host ${host}: ${want ?? 'allowed'}`, () => assert.equal(refusedHost(host, strict), want));
});

describe('a URL configured for outbound calls', () => {
  const rows: [string, RegExp | null][] = [
    ['https://api.openai.com/v1', null],
    ['http://vllm.ai.svc.cluster.local:8000/v1', null],
    ['http://10.1.2.3:11434/v1', null],
    ['https://llm.example.com/v1?', /no query/],
    ['https://llm.example.com/v1?api-version=1', /no query/],
    ['https://llm.example.com/v1#x', /no fragment/],
    ['https://a:b@llm.example.com/v1', /credentials/],
    ['ftp://llm.example.com/', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['not a url', /URL/],
    ['http://169.254.169.254/latest/meta-data', /cloud metadata/],
    ['http://[fd00:ec2::254]/', /cloud metadata/],
    ['http://[::ffff:169.254.169.254]/', /cloud metadata/],
    ['http://127.0.0.1:11434/v1', /loopback/],
    ['http://localhost:11434/v1', /loopback/],
    ['http://0.0.0.0/', /unspecified/],
    ['https://kubernetes.default.svc/api/v1/secrets', /Kubernetes API/],
    ['https://10.96.0.1/api', /Kubernetes API/],
    // The URL parser's other spellings of an IPv4 address are normalized before the check.
    ['http://2852039166/', /cloud metadata/],
    ['http://0xa9.0xfe.0xa9.0xfe/', /cloud metadata/],
  ];
  for (const [url, want] of rows) {
    it(`${url}: ${want === null ? 'saved' : `refused (${want.source})`}`, () => {
      const problem = configuredUrlProblem(url, strict, 'base');
      if (want === null) assert.equal(problem, null);
      else assert.match(problem ?? '(saved)', want);
    });
  }
  // A webhook is posted to as it is: its query (Google Chat's key and token, say) is kept; a
  // fragment is never sent, so it is refused as for a base URL; every other rule holds.
  const endpoints: [string, RegExp | null][] = [
    ['https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t', null],
    ['https://siem.example.com/in?token=x', null],
    ['https://siem.example.com/in#x', /no fragment/],
    ['http://169.254.169.254/hook?x=1', /cloud metadata/],
    ['https://a:b@siem.example.com/in', /credentials/],
  ];
  for (const [url, want] of endpoints) {
    it(`endpoint ${url}: ${want === null ? 'saved' : `refused (${want.source})`}`, () => {
      const problem = configuredUrlProblem(url, strict, 'endpoint');
      if (want === null) assert.equal(problem, null);
      else assert.match(problem ?? '(saved)', want);
    });
  }
  it('loopback is saved with the dev switch, metadata never', () => {
    assert.equal(configuredUrlProblem('http://127.0.0.1:11434/v1', dev, 'base'), null);
    assert.match(configuredUrlProblem('http://169.254.169.254/', dev, 'base') ?? '', /metadata/);
  });
});

describe('the dev switch', () => {
  it('is off unless CAPSTAN_OUTBOUND_ALLOW_LOOPBACK is 1 or true; the Kubernetes API address comes from KUBERNETES_SERVICE_HOST', () => {
    assert.deepEqual(outboundPolicyFromEnv({}), { allowLoopback: false, kubernetesApiHosts: [] });
    assert.deepEqual(outboundPolicyFromEnv({ CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: '1', KUBERNETES_SERVICE_HOST: '10.96.0.1' }), { allowLoopback: true, kubernetesApiHosts: ['10.96.0.1'] });
    assert.equal(outboundPolicyFromEnv({ CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: 'true' }).allowLoopback, true);
    assert.equal(outboundPolicyFromEnv({ CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: '0' }).allowLoopback, false);
    assert.throws(() => outboundPolicyFromEnv({ CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: 'yes please' }), /CAPSTAN_OUTBOUND_ALLOW_LOOPBACK/);
  });

  it('the agent refuses to start with a webhook URL the guard refuses; loopback only with the switch', () => {
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_CHAT_WEBHOOK_URL: 'http://169.254.169.254/hook' }), /CAPSTAN_CHAT_WEBHOOK_URL must not point at a cloud metadata address/);
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_AUDIT_WEBHOOK_URL: 'https://siem.example.com/in#x' }), /CAPSTAN_AUDIT_WEBHOOK_URL must not contain # \(no fragment\)/);
    assert.equal(agentOptionsFromEnv({ CAPSTAN_CHAT_WEBHOOK_URL: 'https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t' }).chatWebhookUrl, 'https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t');
    assert.throws(() => agentOptionsFromEnv({ CAPSTAN_AUDIT_WEBHOOK_URL: 'http://127.0.0.1:9000/in' }), /CAPSTAN_AUDIT_WEBHOOK_URL must not point at a loopback address/);
    const dev = agentOptionsFromEnv({ CAPSTAN_AUDIT_WEBHOOK_URL: 'http://127.0.0.1:9000/in', CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: '1' });
    assert.equal(dev.settingDefaults?.auditWebhookUrl, 'http://127.0.0.1:9000/in');
    assert.equal(dev.outbound?.allowLoopback, true);
  });
});

interface Server {
  port: number;
  hits: string[];
  hosts: string[];
}

/** A local server: /ok answers, /redirect points at /target, /big streams 64 KiB, /declared says 64 KiB up front, /hang never answers. */
async function server(t: TestContext): Promise<Server> {
  const hits: string[] = [];
  const hosts: string[] = [];
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(req.url ?? '');
    hosts.push(req.headers.host ?? '');
    if (req.url === '/ok') return void res.end('hello');
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/target' }).end();
    if (req.url === '/target') return void res.end('followed');
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
      return void res.end();
    }
    if (req.url === '/declared') return void res.writeHead(200, { 'content-length': String(64 * 1024) }).end('x'.repeat(64 * 1024));
    // /hang: nothing, until the test ends.
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return { port: (srv.address() as AddressInfo).port, hits, hosts };
}

function resolver(table: Record<string, string>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = (host: string) => {
    calls.push(host);
    const address = table[host];
    return Promise.resolve(address === undefined ? [] : [{ address, family: address.includes(':') ? 6 : 4 }]);
  };
  return Object.assign(fn, { calls });
}

async function refusal(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof OutboundError, `an OutboundError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call was not refused');
}

describe('the outbound client', () => {
  it('refuses a name that resolves to a refused address at connect, before any byte is sent', async (t) => {
    const s = await server(t);
    const resolve = resolver({ 'metadata.test': '169.254.169.254', 'sneaky.test': '127.0.0.1', 'mapped.test': '::ffff:169.254.169.254', 'api.test': '10.96.0.1' });
    const client = createOutboundClient({ policy: strict, resolve });
    const fetch = client.fetcher();
    for (const [host, range] of [['metadata.test', 'metadata'], ['sneaky.test', 'loopback'], ['mapped.test', 'metadata'], ['api.test', 'kubernetes_api']] as const) {
      const err = await refusal(fetch(`http://${host}:${s.port}/ok`));
      assert.equal(err.reason, 'refused_address');
      assert.equal(err.range, range);
      assert.match(err.message, new RegExp(host.replace('.', '\\.')));
    }
    assert.deepEqual(s.hits, []);
    await client.close();
  });

  it('connects to the address it checked: one lookup per connection, no second one', async (t) => {
    const s = await server(t);
    const resolve = resolver({ 'llm.test': '127.0.0.1' });
    const client = createOutboundClient({ policy: dev, resolve });
    const res = await client.fetcher()(`http://llm.test:${s.port}/ok`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'hello');
    assert.deepEqual(resolve.calls, ['llm.test']);
    assert.deepEqual(s.hosts, [`llm.test:${s.port}`]);
    await client.close();
  });

  it('refuses a literal address in a refused range without a lookup; loopback only with the dev switch', async (t) => {
    const s = await server(t);
    const resolve = resolver({});
    const client = createOutboundClient({ policy: strict, resolve });
    const err = await refusal(client.fetcher()(`http://127.0.0.1:${s.port}/ok`));
    assert.equal(err.range, 'loopback');
    assert.equal((await refusal(client.fetcher()('http://[::ffff:a9fe:a9fe]/'))).range, 'metadata');
    assert.equal((await refusal(client.fetcher()('https://kubernetes.default.svc/api'))).range, 'kubernetes_api');
    assert.deepEqual(resolve.calls, []);
    assert.deepEqual(s.hits, []);
    const devClient = createOutboundClient({ policy: dev, resolve });
    assert.equal(await (await devClient.fetcher()(`http://127.0.0.1:${s.port}/ok`)).text(), 'hello');
    await Promise.all([client.close(), devClient.close()]);
  });

  it('refuses a scheme other than http(s)', async () => {
    const client = createOutboundClient({ policy: dev, resolve: resolver({}) });
    assert.equal((await refusal(client.fetcher()('file:///etc/passwd'))).reason, 'invalid_url');
    await client.close();
  });

  it('never follows a redirect: a 3xx is an error', async (t) => {
    const s = await server(t);
    const client = createOutboundClient({ policy: dev, resolve: resolver({}) });
    const err = await refusal(client.fetcher()(`http://127.0.0.1:${s.port}/redirect`, { redirect: 'follow' }));
    assert.equal(err.reason, 'redirect');
    assert.match(err.message, /302/);
    assert.deepEqual(s.hits, ['/redirect'], 'the target was never asked');
    await client.close();
  });

  it('answers a redirect, unfollowed, to a caller that asks for it (answerRedirects)', async (t) => {
    const s = await server(t);
    const client = createOutboundClient({ policy: dev, resolve: resolver({}) });
    const res = await client.fetcher({ answerRedirects: true })(`http://127.0.0.1:${s.port}/redirect`, { redirect: 'follow' });
    assert.deepEqual([res.status, res.headers.get('location'), await res.text()], [302, '/target', '']);
    assert.deepEqual(s.hits, ['/redirect'], 'the target was never asked');
    await client.close();
  });

  it('cuts a body over the size cap with an error, streamed or declared', async (t) => {
    const s = await server(t);
    const client = createOutboundClient({ policy: dev, resolve: resolver({}) });
    const fetch = client.fetcher({ maxResponseBytes: 4096 });
    const res = await fetch(`http://127.0.0.1:${s.port}/big`);
    assert.equal(res.status, 200);
    const cut = await refusal(res.text());
    assert.equal(cut.reason, 'response_too_large');
    assert.equal((await refusal(fetch(`http://127.0.0.1:${s.port}/declared`))).reason, 'response_too_large');
    // Under the cap the body arrives whole.
    assert.equal((await (await client.fetcher({ maxResponseBytes: 128 * 1024 })(`http://127.0.0.1:${s.port}/big`)).text()).length, 64 * 1024);
    await client.close();
  });

  it('gives up after its timeout', async (t) => {
    const s = await server(t);
    const client = createOutboundClient({ policy: dev, resolve: resolver({}) });
    const started = performance.now();
    const err = await refusal(client.fetcher({ timeoutMs: 200 })(`http://127.0.0.1:${s.port}/hang`));
    assert.equal(err.reason, 'timeout');
    assert.ok(performance.now() - started < 5000);
    await client.close();
  });
});
