// The MCP protocol endpoint in-process, through the full middleware chain: a tools/call, the
// body the agent reads and hands the SDK parsed (issue 13), and a body that is not JSON,
// which must still get the protocol's own parse error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyCluster } from '../support/services.ts';
import { testApp } from '../support/app.ts';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

async function harness() {
  const h = await testApp({ cluster: { ...emptyCluster, namespaces: () => [{ name: 'shop', phase: 'Active', labels: {}, createdAt: null }] } });
  const admin = await h.signIn();
  const minted = await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: 'mcp', scopes: ['mcp:read'] } });
  return { h, key: String(minted.body.key) };
}

describe('MCP protocol endpoint', () => {
  it('answers a tools/call with the tool result, and audits it by tool name', async () => {
    const { h, key } = await harness();
    const res = await h.call('POST', '/mcp', { key, headers: MCP_HEADERS, body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_pods', arguments: { namespace: 'shop' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, 7);
    const result = res.body.result as { content: { type: string; text: string }[]; isError?: boolean };
    assert.notEqual(result.isError, true, res.text);
    assert.deepEqual(JSON.parse(result.content[0]?.text ?? '{}'), { namespace: 'shop', pods: [], total: 0 });
    const audited = await h.services.db.selectFrom('audit_log').select(['action', 'detail']).where('action', '=', 'POST /mcp').execute();
    assert.equal(audited.length, 1);
    assert.equal((JSON.parse(audited[0]?.detail ?? '{}') as { tool?: string }).tool, 'list_pods');
  });

  it('a body that is not JSON, or not a JSON-RPC message, gets the protocol parse error (-32700), as the SDK answers it', async () => {
    const { h, key } = await harness();
    const cases: { body: string; want: number }[] = [
      { body: '{"jsonrpc": "2.0", "id": 1,', want: -32700 },
      { body: '', want: -32700 },
      { body: 'null', want: -32700 },
      { body: '{"hello": "world"}', want: -32700 },
    ];
    for (const c of cases) {
      const res = await h.app.request('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, 'content-type': 'application/json', 'x-api-key': key }, body: c.body }, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
      assert.equal(res.status, 400, c.body);
      const answer = (await res.json()) as { error?: { code?: number } };
      assert.equal(answer.error?.code, c.want, c.body);
    }
  });
});
