// The cluster model and the MCP server of a real agent on the demo scenario, through the
// official MCP SDK client over Streamable HTTP, the REST pair and the /graph routes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningAgent } from '../../runtime/agent.ts';
import { waitFor, startTestAgent } from '../support/cluster.ts';

const PASSWORD = 'mcp-admin-password';
let agent: RunningAgent;
let cookie = '';
let key = '';

async function call(method: string, path: string, init: { body?: unknown; key?: string } = {}): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.key ? { 'x-api-key': init.key } : { cookie }) };
  const res = await fetch(`${agent.url}/api/agent${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, text };
}

async function mcpClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'capstan-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${agent.url}/api/agent/mcp`), { requestInit: { headers: { 'X-API-Key': apiKey } } }));
  return client;
}

const parse = (result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> => {
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first?.text ?? '{}') as Record<string, unknown>;
};

interface Node {
  id: string;
  kind: string;
  namespace: string | null;
  problem?: { reason: string };
  distance: number;
}

describe('cluster model and MCP server on the demo scenario', () => {
  before(async () => {
    agent = await startTestAgent('mcp', {
      accounts: { adminPassword: PASSWORD },
    });
    const res = await fetch(`${agent.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    key = String((await call('POST', '/me/api-keys', { body: { name: 'mcp', scopes: ['mcp:read'] } })).body.key);
    await waitFor('the crash-loop incident', async () => JSON.stringify((await call('GET', '/incidents?namespace=shop')).body).includes('CrashLoopBackOff'), 120_000, 2000);
  });
  after(() => agent.close());

  it('lists read-only tools and answers get_health, get_subgraph and get_logs over the MCP protocol', async () => {
    const client = await mcpClient(key);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['list_namespaces', 'list_pods', 'list_workloads', 'list_services', 'list_nodes', 'get_object', 'search_entities', 'get_entity', 'get_neighbors', 'get_subgraph', 'get_findings', 'get_events', 'get_logs', 'get_health', 'diagnose']) {
      assert.ok(names.includes(name), name);
    }
    assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true && t.annotations.destructiveHint === false), 'every tool is read-only');
    assert.ok(!names.some((n) => /exec|delete|apply|scale|patch|create|update/.test(n)), 'no write or exec tool');
    assert.equal(tools.find((t) => t.name === 'get_health')?.inputSchema.type, 'object');

    const health = parse(await client.callTool({ name: 'get_health', arguments: { namespace: 'shop' } }));
    assert.equal((health.health as { health_score: string }).health_score, 'critical');
    assert.ok((health.incidents as { reason: string }[]).some((i) => i.reason === 'CrashLoopBackOff'));

    const sub = parse(await client.callTool({ name: 'get_subgraph', arguments: { focus: 'namespace:shop', hops: 2, budget: 4000 } }));
    assert.ok((sub.tokens_used as number) <= 4000);
    assert.ok((sub.nodes as Node[]).some((n) => n.problem?.reason === 'CrashLoopBackOff'), 'the crash-looping pods are in');

    const pods = parse(await client.callTool({ name: 'list_pods', arguments: { namespace: 'shop' } })).pods as { name: string; workload_name: string }[];
    const checkout = pods.find((p) => p.workload_name === 'checkout');
    assert.ok(checkout);
    const logs = parse(await client.callTool({ name: 'get_logs', arguments: { namespace: 'shop', pod: checkout.name, previous: true } }));
    assert.match(String(logs.log), /checkout starting/);
    assert.doesNotMatch(String(logs.log), /sk_live_51Hx9fakeToken/, 'redacted');

    const refused = await client.callTool({ name: 'list_pods', arguments: { namespace: 'kube-system' } });
    assert.equal(refused.isError, true, 'an out-of-scope namespace is a tool error, never data');
    assert.equal(parse(refused).error, 'forbidden');
    const bad = await client.callTool({ name: 'get_logs', arguments: { namespace: 'shop' } });
    assert.equal(bad.isError, true);
    assert.equal(parse(bad).field, 'arguments.pod');
    await client.close();
  });

  it('answers get_findings with the built-in checks\' real findings, and get_entity links the workload to its critical ones', async () => {
    type Listed = { kind: string; id: string; workload: string; check_id?: string; severity: string };
    let found: Record<string, unknown> = {};
    // The posture is evaluated from the informers at most every 5 s after they sync.
    await waitFor('the node-debugger findings over MCP', async () => {
      const res = await call('POST', '/mcp/tools/call', { key, body: { name: 'get_findings', arguments: { namespace: 'platform', severity: 'CRITICAL' } } });
      found = (res.body.structuredContent ?? {}) as Record<string, unknown>;
      return (found.findings as Listed[] | undefined)?.some((f) => f.workload === 'node-debugger') === true;
    }, 60_000, 500);
    const listed = found.findings as Listed[];
    assert.ok(listed.some((f) => f.kind === 'misconfig' && f.check_id === 'pss-baseline-privileged' && f.workload === 'node-debugger'), JSON.stringify(listed));
    assert.ok(listed.every((f) => f.severity === 'CRITICAL' && f.id.startsWith('platform/')));
    const route = (await call('GET', '/security/findings?namespace=platform&severity=CRITICAL')).body as { vulns: unknown[]; misconfigs: { id: string }[] };
    assert.equal(found.total, route.vulns.length + route.misconfigs.length, 'the same findings as GET /security/findings');
    assert.ok((found.posture as { workloads_covered: number }).workloads_covered > 0);

    const client = await mcpClient(key);
    const entity = parse(await client.callTool({ name: 'get_entity', arguments: { id: 'deployment:platform/node-debugger' } }));
    const security = (entity.node as { security?: { critical: number; high: number; top: string[] } }).security;
    // Exactly the CRITICAL and HIGH findings GET /security/findings lists for it (trivy's CVEs too, when reports exist).
    const own = (await call('GET', '/security/findings?namespace=platform&search=node-debugger')).body as { vulns: { workload: string; severity: string; cve: string }[]; misconfigs: { workload: string; workload_kind: string; severity: string; check_id: string }[] };
    const worst = [...own.vulns.filter((f) => f.workload === 'node-debugger').map((f) => ({ severity: f.severity, ref: f.cve })), ...own.misconfigs.filter((f) => f.workload === 'node-debugger' && f.workload_kind === 'Deployment').map((f) => ({ severity: f.severity, ref: f.check_id }))];
    assert.ok(security, JSON.stringify(entity.node));
    assert.deepEqual([security.critical, security.high], [worst.filter((f) => f.severity === 'CRITICAL').length, worst.filter((f) => f.severity === 'HIGH').length]);
    assert.ok(security.critical >= 1 && security.top.length > 0 && security.top.every((ref) => worst.some((f) => f.ref === ref)), JSON.stringify(security));
    const refused = await client.callTool({ name: 'get_findings', arguments: { namespace: 'kube-system' } });
    assert.equal(refused.isError, true);
    await client.close();
  });

  it('serves the same tools over the REST pair, audited by tool name', async () => {
    const list = await call('GET', '/mcp/tools', { key });
    assert.equal(list.status, 200);
    const tools = list.body.tools as { name: string; input_schema: { properties?: Record<string, unknown> } }[];
    assert.ok(tools.find((t) => t.name === 'get_health')?.input_schema.properties?.namespace);
    const health = await call('POST', '/mcp/tools/call', { key, body: { name: 'get_health', arguments: { namespace: 'payments' } } });
    assert.equal(health.status, 200, health.text);
    assert.equal(((health.body.structuredContent as { health: { health_score: string } }).health).health_score, 'critical');
    assert.equal((await call('POST', '/mcp/tools/call', { key, body: { name: 'get_health', arguments: { namespace: 'kube-system' } } })).status, 403);
    assert.equal((await call('POST', '/mcp/tools/call', { key, body: { name: 'no_such_tool' } })).status, 404);
    const events = (await call('GET', '/admin/audit/events?q=get_health')).body.events as { detail: Record<string, string> }[];
    assert.ok(events.some((e) => e.detail.tool === 'get_health'), JSON.stringify(events.slice(0, 3)));
    const wrongScope = String((await call('POST', '/me/api-keys', { body: { name: 'reader', scopes: ['workloads:read'] } })).body.key);
    assert.equal((await call('GET', '/mcp/tools', { key: wrongScope })).status, 403);
  });

  it('closes protocol and REST pair alike with the kill switch, which API keys cannot touch', async () => {
    const adminKey = String((await call('POST', '/me/api-keys', { body: { name: 'all', scopes: ['mcp:read', 'workloads:read'] } })).body.key);
    assert.equal((await call('PUT', '/admin/mcp', { key: adminKey, body: { enabled: false } })).status, 403, 'an admin session only');
    assert.equal((await call('PUT', '/admin/mcp', { body: { enabled: false } })).status, 200);
    try {
      const rest = await call('GET', '/mcp/tools', { key });
      assert.deepEqual([rest.status, rest.body.error], [403, 'mcp_disabled']);
      assert.equal((await call('POST', '/mcp/tools/call', { key, body: { name: 'list_namespaces' } })).body.error, 'mcp_disabled');
      await assert.rejects(mcpClient(key), /403|mcp_disabled/);
    } finally {
      assert.equal((await call('PUT', '/admin/mcp', { body: { enabled: true } })).status, 200);
    }
    const client = await mcpClient(key);
    assert.ok((await client.listTools()).tools.length > 0, 'open again');
    await client.close();
    const switches = (await call('GET', '/admin/audit/events?action=PUT%20/admin/mcp')).body.events as { detail: Record<string, string> }[];
    assert.deepEqual(new Set(switches.map((e) => e.detail.mcp).filter(Boolean)), new Set(['closed', 'opened']), 'both directions audited');
  });

  it('tells one story on every surface: the crash-looping checkout replicas are the root cause of its Service, Deployment and Ingress trouble', async () => {
    type Root = { finding: { id: string; code: string; object: string }; effects: { id: string; object: string }[]; also: string[] };
    let roots: Root[] = [];
    await waitFor('the checkout crash loop as a root cause', async () => {
      roots = (await call('GET', '/diagnosis?namespace=shop')).body.root_causes as Root[];
      return roots.some((r) => r.finding.code === 'CrashLoopBackOff' && r.finding.object.startsWith('pod:shop/checkout-') && r.effects.length > 0);
    }, 120_000, 2000).catch((err: unknown) => assert.fail(`${String(err)}\n${JSON.stringify(roots.map((r) => [r.finding.id, r.effects.map((e) => e.id)]))}`));
    const checkout = roots.find((r) => r.finding.code === 'CrashLoopBackOff' && r.finding.object.startsWith('pod:shop/checkout-'));
    assert.ok(checkout);
    assert.ok(checkout.effects.some((e) => e.object === 'service:shop/checkout' || e.object === 'deployment:shop/checkout'), JSON.stringify(checkout.effects.map((e) => e.id)));
    const all = await call('GET', '/diagnosis');
    assert.ok(!all.text.includes('kube-system') && !all.text.includes('"monitoring'), 'nothing of a hidden namespace');
    assert.equal((await call('GET', '/diagnosis?namespace=kube-system')).status, 403);

    // The effect explains itself up to the root, with deep links.
    const effect = checkout.effects[0];
    assert.ok(effect);
    const detail = await call('GET', `/diagnosis/${encodeURIComponent(effect.object)}`);
    assert.equal(detail.status, 200, detail.text);
    // The chain ends at the replica the effect suspects: the folded root's representative or one of its `also`.
    assert.ok([checkout.finding.object, ...checkout.also].includes((detail.body.root_cause as { object: string }).object), detail.text);
    assert.equal((await call('GET', `/diagnosis/${encodeURIComponent('pod:kube-system/nope')}`)).status, 403);
    assert.equal((await call('GET', `/diagnosis/${encodeURIComponent('pod:shop/nope')}`)).status, 404);

    // The subgraph around the Deployment carries the cause even at one hop and a small budget.
    const sub = await call('GET', `/graph/subgraph?focus=${encodeURIComponent('deployment:shop/checkout')}&hops=1&budget=1500`);
    const ids = (sub.body.nodes as Node[]).map((n) => n.id);
    assert.ok(ids.some((id) => id.startsWith('problem:pod:shop/checkout-') && id.endsWith('#CrashLoopBackOff')), ids.join(' '));

    // Incidents say what causes them (the crash-looping pod is its own root, named), and MCP answers the same.
    const incidents = (await call('GET', '/incidents?namespace=shop')).body.incidents as { pod: string; workload_name: string; reason: string; root_cause: { code: string; node_id: string } | null }[];
    assert.ok(incidents.every((i) => 'root_cause' in i));
    const crashing = incidents.find((i) => i.workload_name === 'checkout');
    assert.deepEqual([crashing?.reason, crashing?.root_cause?.code, crashing?.root_cause?.node_id], ['CrashLoopBackOff', 'CrashLoopBackOff', `pod:shop/${crashing?.pod ?? ''}`]);
    const client = await mcpClient(key);
    const diagnosed = parse(await client.callTool({ name: 'diagnose', arguments: { namespace: 'shop' } }));
    assert.ok((diagnosed.root_causes as Root[]).some((r) => r.finding.id === checkout.finding.id || r.also.includes(checkout.finding.object)));
    const health = parse(await client.callTool({ name: 'get_health', arguments: { namespace: 'shop' } }));
    assert.ok((health.health as { reasons: string[] }).reasons.length > 0);
    await client.close();
  });

  it('cuts a subgraph to its hops and budget, problems first, without hidden namespaces or secret data', async () => {
    const get = async (query: string) => (await call('GET', `/graph/subgraph?${query}`)).body as { nodes: Node[]; edges: unknown[]; tokens_used: number; truncated: boolean; dropped: { nodes: number } };
    const zero = await get('focus=namespace:shop&hops=0');
    assert.deepEqual(zero.nodes.map((n) => n.id), ['namespace:shop']);
    const one = await get('focus=namespace:shop&hops=1&budget=100000');
    assert.ok(one.nodes.every((n) => n.distance <= 1));
    assert.ok(one.nodes.some((n) => n.id === 'deployment:shop/checkout'));
    for (const budget of [200, 500, 1000, 4000]) {
      const cut = await get(`focus=namespace:shop&hops=3&budget=${budget}`);
      assert.ok(cut.tokens_used <= budget, `${budget}: ${cut.tokens_used}`);
      assert.ok(Math.ceil(JSON.stringify({ nodes: cut.nodes, edges: cut.edges }).length / 4) <= budget, 'the estimate is what it says');
      assert.equal(cut.truncated, cut.dropped.nodes > 0);
    }
    // Small budget: what is kept after the focus starts with the problems.
    const small = await get('focus=namespace:shop&hops=3&budget=1500');
    assert.ok(small.truncated);
    const afterFocus = small.nodes.slice(1);
    const firstHealthy = afterFocus.findIndex((n) => n.kind !== 'Problem' && !n.problem);
    const lastProblem = afterFocus.map((n) => n.kind === 'Problem' || n.problem !== undefined).lastIndexOf(true);
    assert.ok(lastProblem >= 0 && (firstHealthy === -1 || lastProblem < firstHealthy), JSON.stringify(afterFocus.map((n) => n.id)));

    const wide = await call('GET', '/graph/subgraph?focus=node:kwok-node-1&hops=2&budget=100000');
    assert.ok(!wide.text.includes('kube-system') && !wide.text.includes('"monitoring'), 'blocklisted namespaces absent');
    assert.equal((await call('GET', `/graph/entity/${encodeURIComponent('namespace:kube-system')}`)).status, 403);
    assert.equal((await call('GET', '/graph/subgraph?focus=namespace:kube-system')).status, 403);
    assert.equal((await call('GET', '/graph/subgraph?focus=namespace:shop&hops=9')).body.field, 'hops');

    const secret = await call('GET', `/graph/entity/${encodeURIComponent('secret:shop/checkout-keys')}`);
    assert.equal(secret.status, 200, secret.text);
    assert.deepEqual(Object.keys(secret.body.node as object).sort(), ['id', 'kind', 'link', 'name', 'namespace', 'status']);
    assert.ok((secret.body.neighbors as { node: { kind: string } }[]).some((n) => n.node.kind === 'Pod'), 'the pods that use it');
    const everything = (await call('GET', '/graph/subgraph?focus=namespace:payments&hops=3&budget=100000')).text + (await call('GET', '/graph/subgraph?focus=namespace:shop&hops=3&budget=100000')).text;
    assert.doesNotMatch(everything, /sk_live_51Hx9fakeToken|not-a-real-password/, 'no secret data anywhere');

    const pod = await call('GET', `/graph/entity/${encodeURIComponent('deployment:shop/checkout')}`);
    assert.equal(pod.status, 200);
    assert.ok((pod.body.neighbors as { edge: { type: string } }[]).some((n) => n.edge.type === 'owns'));
    const search = (await call('GET', '/graph/search?q=checkout&kind=Pod&namespace=shop')).body as { results: Node[] };
    assert.ok(search.results.length >= 1 && search.results.every((n) => n.kind === 'Pod' && n.problem !== undefined));
  });
});
