// A provider key carried by a request is used for that request and lands nowhere: the real
// agent process (its own logs captured whole) answers chat, streamed chat, Diagnose and a
// provider error with the key, then stops; neither its stdout, its stderr nor any file under
// its data dir (the database, its WAL, keys) holds the key, while the fake provider saw it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { spawnAgent } from '../support/agent-process.ts';
import { testCluster } from '../support/cluster.ts';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.ts';

const PASSWORD = 'request-key-admin-password';
const REQUEST_KEY = 'sk-only-for-this-request-5e4d3c2b1a09f8e7';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

function filesUnder(dir: string): string {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .map((path) => (statSync(path).isDirectory() ? filesUnder(path) : readFileSync(path).toString('latin1')))
    .join('\n');
}

it('a per-request provider key never lands in the database, its files or the agent logs', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-request-key-'));
  const agent = await spawnAgent({ kubeconfig: testCluster().kubeconfig, dataDir, env: { ...process.env, CAPSTAN_ADMIN_PASSWORD: PASSWORD, CAPSTAN_RATE_LIMITS: 'ai=1000', CAPSTAN_OUTBOUND_ALLOW_LOOPBACK: '1' } });
  const { url } = agent;
  try {
    const call = async (method: string, path: string, body: unknown, cookie: string, accept = 'application/json') => {
      const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', accept, cookie }, body: JSON.stringify(body) });
      return { status: res.status, text: await res.text(), cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
    };
    const cookie = (await call('POST', '/api/agent/auth/login', { username: 'admin', password: PASSWORD }, '')).cookie;
    // A provider and endpoint, but no stored key: only the request's key can reach it.
    assert.equal((await call('PUT', '/api/agent/admin/ai/settings', { provider: 'openai', model: 'fake', base_url: `${llm.url}/v1` }, cookie)).status, 200);
    llm.requests.length = 0;
    llm.script({ toolCalls: [{ name: 'list_namespaces', args: {} }] }, { text: 'Fine [namespace:demo].' }, { text: 'Streamed.' }, { text: 'Diagnosed.' }, { failWith: 401 });
    const plain = await call('POST', '/api/agent/copilot/chat', { question: 'how is it?', provider_key: REQUEST_KEY }, cookie);
    assert.equal(plain.status, 200, plain.text);
    const streamed = await call('POST', '/api/agent/copilot/chat', { question: 'and now?', provider_key: REQUEST_KEY }, cookie, 'text/event-stream');
    assert.match(streamed.text, /event: done/);
    const diagnosed = await call('POST', '/api/agent/namespaces/shop/diagnose', { provider_key: REQUEST_KEY }, cookie);
    assert.equal(diagnosed.status, 200, diagnosed.text);
    const refused = await call('POST', '/api/agent/copilot/chat', { question: 'again', provider_key: REQUEST_KEY }, cookie);
    assert.match(refused.text, /"finish":"error"/, 'the provider refused this one');
    assert.equal(llm.requests.length, 5);
    assert.ok(llm.requests.every((r) => r.headers.authorization === `Bearer ${REQUEST_KEY}`), 'every provider call carried the request key');
    for (const answer of [plain.text, streamed.text, diagnosed.text, refused.text]) assert.ok(!answer.includes(REQUEST_KEY), 'no answer repeats it');
  } finally {
    await agent.stop();
  }
  assert.ok(agent.stderr().includes('agent listening'), 'the logs were captured');
  assert.ok(!agent.stdout().includes(REQUEST_KEY), 'not in stdout');
  assert.ok(!agent.stderr().includes(REQUEST_KEY), 'not in stderr');
  const stored = filesUnder(dataDir);
  assert.ok(stored.length > 0);
  assert.ok(!stored.includes(REQUEST_KEY), 'not in any file under the data dir');
  // The CLI agent never gets the tests' cheap hasher: its seeded admin is stored at BCRYPT_COST (12).
  assert.match(stored, /\$2[aby]\$12\$[./A-Za-z0-9]{53}/, 'the admin password hash has cost 12');
});
