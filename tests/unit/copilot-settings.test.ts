// AI Settings and AI Guardrails over HTTP with the production middleware chain: the key is
// sealed and never shown, logged or audited; who may read and write; the deny list removes a
// tool from MCP and refuses it, over the REST pair.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_GUARDRAILS } from '../../schema/copilot.ts';
import { testApp } from '../support/app.ts';

const PROVIDER_KEY = 'sk-provider-secret-0123456789abcdef';

/** Every byte under the data dir (the database, its WAL, the key files). */
function dataDirBytes(dir: string): string {
  let all = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    all += statSync(path).isDirectory() ? dataDirBytes(path) : readFileSync(path).toString('latin1');
  }
  return all;
}

describe('AI Settings', () => {
  it('starts with no provider: no model, and says why', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    const res = await h.call('GET', '/settings/ai', { cookie: admin });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { provider: null, model: 'default', base_url: null, api_key: null, model_ready: false, reason: 'no AI provider is configured' });
  });

  it('seals the key: masked in every answer, absent from the database files and the audit', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    const set = await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai', model: 'gpt-test', api_key: PROVIDER_KEY } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.api_key, '••••');
    assert.equal(set.body.model_ready, true);
    assert.ok(!set.text.includes(PROVIDER_KEY));
    const read = await h.call('GET', '/settings/ai', { cookie: admin });
    assert.ok(!read.text.includes(PROVIDER_KEY));
    // The masked value keeps the key; the model can change without it.
    const kept = await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai', model: 'gpt-other', api_key: '••••' } });
    assert.equal(kept.body.api_key, '••••');
    assert.equal(((await h.services.runtimeSettings.get('ai')).api_key_sealed ?? '').length > 0, true);
    await h.services.audit.flushAccess();
    const audit = await h.call('GET', '/admin/audit/events?page_size=50', { cookie: admin });
    assert.ok(audit.text.includes('/admin/ai/settings'), 'the change is audited');
    assert.ok(!audit.text.includes(PROVIDER_KEY));
    h.services.stop();
    assert.ok(!dataDirBytes(h.services.dataDir).includes(PROVIDER_KEY), 'no file under the data dir holds the key');
  });

  it('asks for the key again when the provider or endpoint changes, so it is never sent elsewhere', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai', model: 'gpt-test', api_key: PROVIDER_KEY } });
    const moved = await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'openai_compatible', model: 'm', base_url: 'https://attacker.example/v1' } });
    assert.equal(moved.status, 400);
    assert.equal(moved.body.field, 'api_key');
    const off = await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: null } });
    assert.equal(off.status, 200);
    assert.equal(off.body.api_key, null, 'no provider forgets the key');
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['an unknown provider', { provider: 'skynet' }, 'provider'],
    ['a base URL that is not http', { provider: 'ollama', base_url: 'file:///etc/passwd' }, 'base_url'],
    ['an empty model', { provider: 'ollama', model: '' }, 'model'],
    // Outbound calls (docs/security.md): the SDK appends its path, which a query or fragment would swallow.
    ['a base URL with a query', { provider: 'openai_compatible', base_url: 'https://llm.example.com/v1?x=/admin' }, 'base_url'],
    ['a base URL with a fragment', { provider: 'openai_compatible', base_url: 'https://llm.example.com/v1#' }, 'base_url'],
    ['a base URL with credentials', { provider: 'openai_compatible', base_url: 'https://user:pw@llm.example.com/v1' }, 'base_url'],
    ['a base URL at the metadata service', { provider: 'openai_compatible', base_url: 'http://169.254.169.254/latest' }, 'base_url'],
    ['a base URL at the IPv6 metadata service', { provider: 'openai_compatible', base_url: 'http://[fd00:ec2::254]/v1' }, 'base_url'],
    ['a base URL at a mapped metadata address', { provider: 'openai_compatible', base_url: 'http://[::ffff:169.254.169.254]/v1' }, 'base_url'],
    ['a base URL at the Kubernetes API', { provider: 'openai_compatible', base_url: 'https://kubernetes.default.svc/api' }, 'base_url'],
    ['a base URL at a link-local address', { provider: 'openai_compatible', base_url: 'http://[fe80::1]/v1' }, 'base_url'],
  ];
  for (const [name, body, field] of bad) {
    it(`refuses ${name}, naming the field`, async () => {
      const h = await testApp();
      const res = await h.call('PUT', '/admin/ai/settings', { cookie: await h.signIn('admin'), body });
      assert.equal(res.status, 400);
      assert.equal(res.body.field, field);
    });
  }

  it('viewers cannot read or write; a key with policy:read reads but never writes', async () => {
    const h = await testApp();
    const viewer = await h.signIn('viewer');
    assert.equal((await h.call('GET', '/settings/ai', { cookie: viewer })).status, 403);
    assert.equal((await h.call('PUT', '/admin/ai/guardrails', { cookie: viewer, body: DEFAULT_GUARDRAILS })).status, 403);
    const admin = await h.signIn('admin');
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'policy', scopes: ['policy:read'] } })).body.key);
    assert.equal((await h.call('GET', '/admin/ai/guardrails', { key })).status, 200);
    const write = await h.call('PUT', '/admin/ai/guardrails', { key, body: DEFAULT_GUARDRAILS });
    assert.equal(write.status, 403);
    assert.equal(write.body.error, 'api_key_forbidden');
  });

  it('data residency: a hosted provider is not used, and the settings say why', async () => {
    const h = await testApp();
    const admin = await h.signIn('admin');
    await h.call('PUT', '/admin/ai/settings', { cookie: admin, body: { provider: 'anthropic', model: 'claude', api_key: PROVIDER_KEY } });
    await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, residency: 'local_only' } });
    const res = await h.call('GET', '/settings/ai', { cookie: admin });
    assert.equal(res.body.model_ready, false);
    assert.match(String(res.body.reason), /data residency allows only a local provider/);
  });
});

describe('AI Guardrails: the tool deny list', () => {
  it('a denied tool is gone from the MCP list and refused if called; an unknown name is refused, naming the entry', async () => {
    const h = await testApp({ tenantNamespaces: [] });
    const admin = await h.signIn('admin');
    const key = String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'mcp', scopes: ['mcp:read'] } })).body.key);
    const before = (await h.call('GET', '/mcp/tools', { key })).body.tools as { name: string }[];
    assert.ok(before.some((t) => t.name === 'list_nodes'));
    const unknown = await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, denied_tools: ['list_nodes', 'exec_pod'] } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.field, 'denied_tools.1');
    const set = await h.call('PUT', '/admin/ai/guardrails', { cookie: admin, body: { ...DEFAULT_GUARDRAILS, denied_tools: ['list_nodes'] } });
    assert.equal(set.status, 200, set.text);
    const after = (await h.call('GET', '/mcp/tools', { key })).body.tools as { name: string }[];
    assert.ok(!after.some((t) => t.name === 'list_nodes'));
    assert.equal(after.length, before.length - 1);
    const refused = await h.call('POST', '/mcp/tools/call', { key, body: { name: 'list_nodes', arguments: {} } });
    assert.equal(refused.status, 403);
    assert.match(String(refused.body.message), /denied by AI Guardrails/);
    const other = await h.call('POST', '/mcp/tools/call', { key, body: { name: 'list_namespaces', arguments: {} } });
    assert.equal(other.status, 200);
  });
});
