import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkEgress, isPrivateHost, type EgressQuestion } from '../../domain/copilot/egress.ts';
import { REDACTED, redactValue } from '../../domain/redaction/redact.ts';

describe('where a prompt may go', () => {
  const base: EgressQuestion = { provider: 'openai', baseUrl: null, withKey: true, residency: 'any', allowlist: [] };
  const cases: [string, Partial<EgressQuestion>, string][] = [
    ['a hosted provider at its default endpoint', {}, 'allowed https://api.openai.com/v1'],
    ['azure needs its resource endpoint', { provider: 'azure' }, 'no_endpoint'],
    ['a base URL that is not one', { baseUrl: 'not a url' }, 'no_endpoint'],
    ['residency refuses a hosted provider', { residency: 'local_only' }, 'residency'],
    ['residency refuses a local provider sent a key', { residency: 'local_only', provider: 'ollama', withKey: true }, 'residency'],
    ['residency allows Ollama on loopback with no key', { residency: 'local_only', provider: 'ollama', withKey: false }, 'allowed http://localhost:11434/v1'],
    ['residency allows an in-cluster compatible endpoint', { residency: 'local_only', provider: 'openai_compatible', withKey: false, baseUrl: 'http://vllm.ai.svc.cluster.local:8000/v1' }, 'allowed http://vllm.ai.svc.cluster.local:8000/v1'],
    ['residency refuses a public compatible endpoint', { residency: 'local_only', provider: 'openai_compatible', withKey: false, baseUrl: 'https://llm.example.com/v1' }, 'residency'],
    ['the allowlist admits a listed host', { allowlist: ['api.openai.com'] }, 'allowed https://api.openai.com/v1'],
    ['the allowlist refuses another', { allowlist: ['api.anthropic.com'] }, 'egress_allowlist'],
    ['a wildcard admits subdomains only', { provider: 'azure', baseUrl: 'https://acme.openai.azure.com/openai', allowlist: ['*.openai.azure.com'] }, 'allowed https://acme.openai.azure.com/openai'],
  ];
  for (const [name, q, want] of cases) {
    it(name, () => {
      const v = checkEgress({ ...base, ...q });
      assert.equal(v.allowed ? `allowed ${v.url}` : v.rule, want);
    });
  }

  const hosts: [string, boolean][] = [
    ['localhost', true], ['127.0.0.1', true], ['10.2.3.4', true], ['172.16.0.1', true], ['172.32.0.1', false], ['192.168.1.1', true],
    ['169.254.1.1', true], ['100.64.0.1', true], ['8.8.8.8', false], ['[::1]', true], ['fd00::1', true], ['2001:db8::1', false],
    ['ollama', true], ['ollama.ai.svc', true], ['api.openai.com', false],
  ];
  for (const [host, want] of hosts) it(`private host ${host}: ${String(want)}`, () => assert.equal(isPrivateHost(host), want));
});

describe('a value redacted before it reaches a provider', () => {
  it('hides secrets in strings and under secret-looking keys, and an admin literal anywhere, case-insensitive', () => {
    const value = { pods: [{ name: 'web-1', env: { DB_PASSWORD: 'plain', api_key_id: '42' } }], log: 'password=hunter2 and Project-Falcon rolls out', note: 'PROJECT-FALCON' };
    const out = redactValue(value, ['project-falcon', '']) as typeof value;
    assert.equal(out.pods[0]?.name, 'web-1');
    assert.equal(out.pods[0].env.DB_PASSWORD, REDACTED);
    assert.equal(out.pods[0].env.api_key_id, '42');
    assert.ok(!out.log.includes('hunter2'));
    assert.ok(!out.log.toLowerCase().includes('falcon') && !out.note.toLowerCase().includes('falcon'));
  });
  it('treats an admin pattern as a literal, never a regular expression', () => {
    assert.equal(redactValue('a.b and axb', ['a.b']), `${REDACTED} and axb`);
    assert.equal(redactValue('(((x', ['((']), `${REDACTED}(x`);
  });
});
