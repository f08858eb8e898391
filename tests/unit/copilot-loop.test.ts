// The copilot's tool loop through the real provider clients against the fake provider, for both
// wire protocols: a streamed multi-step tool conversation, citations checked against what the
// run showed the model, secrets in logs and events redacted before they leave, hidden
// namespaces never in a request, a denied tool never offered.
import assert from 'node:assert/strict';
import { noPodLogs } from '../../runtime/kube/logs.ts';
import { after, before, describe, it } from 'node:test';
import type { ClusterView, EventObject, NamespaceObject, PodObject } from '../../domain/cluster/model.ts';
import { scopeAnswers } from '../../domain/scoped.ts';
import { assembleContext } from '../../domain/copilot/context.ts';
import type { HandlerContext } from '../../handlers/context.ts';
import { MCP_TOOLS } from '../../handlers/mcp/tools.ts';
import { DEFAULT_LIMITS, runLoop } from '../../runtime/copilot/loop.ts';
import type { CopilotEvent } from '../../schema/copilot.ts';
import { languageModel } from '../../runtime/copilot/provider.ts';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.ts';
import { emptyCluster, testServices, type TestServices } from '../support/services.ts';
import { eventDefaults, podDefaults } from '../support/objects.ts';

const LOG_SECRET = 'hunter2-log-password-value';
const EVENT_TOKEN = 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD';

const ns = (name: string): NamespaceObject => ({ name, phase: 'Active', createdAt: null, labels: {} });
const pod = (namespace: string, name: string): PodObject => ({
  ...podDefaults,
  namespace,
  name,
  phase: 'Running',
  createdAt: null,
  startedAt: null,
  nodeName: 'node-1',
  labels: { app: 'web' },
  workload: { kind: 'Deployment', name: 'web' },
  owner: { kind: 'ReplicaSet', name: 'web-1' },
  refs: { configMaps: [], secrets: [], pvcs: [] },
  ready: false,
  readySince: null,
  unschedulable: null,
  containers: [{ name: 'app', image: 'ghcr.io/acme/web:1', resources: { requests: {}, limits: {} } as never, ports: [] }],
  statuses: [],
});
const event = (namespace: string, name: string, message: string): EventObject => ({ ...eventDefaults, namespace, involvedKind: 'Pod', involvedNamespace: namespace, involvedName: name, type: 'Warning', reason: 'BackOff', message, count: 3, firstSeen: null, lastSeen: '2026-11-23T10:00:00Z' });

const cluster: ClusterView = {
  ...emptyCluster,
  namespaces: () => [ns('shop'), ns('secret-team')],
  pods: () => [pod('shop', 'web-1'), pod('secret-team', 'vault-0')],
  events: () => [event('shop', 'web-1', `pulling with token ${EVENT_TOKEN} failed`), event('secret-team', 'vault-0', 'hidden-namespace-event')],
};

let llm: FakeLlm;
let services: TestServices;
before(async () => {
  llm = await startFakeLlm();
  services = await testServices({ cluster, tenantNamespaces: ['shop'] });
});
after(async () => {
  services.stop();
  await llm.close();
});

function context(): HandlerContext {
  return {
    ...services,
    ...scopeAnswers({ ...services, cluster }, ['shop']),
    logs: { ...noPodLogs, tail: () => Promise.resolve({ ok: true, text: `starting\nconnecting with password=${LOG_SECRET}\nready` }) },
    request: { ip: '127.0.0.1', origin: 'http://capstan.test', noteAudit: () => undefined },
    principal: { userId: 1, username: 'admin', role: 'admin', via: 'session', sessionId: 's' },
  };
}

const protocols = [
  ['OpenAI Chat Completions', 'openai'],
  ['Anthropic Messages', 'anthropic'],
] as const;

describe('copilot tool loop', () => {
  for (const [name, provider] of protocols) {
    it(`${name}: tools run, secrets never leave, hidden namespaces never appear, invented citations are unverified`, async () => {
      llm.requests.length = 0;
      llm.script(
        { toolCalls: [{ name: 'get_logs', args: { namespace: 'shop', pod: 'web-1' } }, { name: 'get_events', args: { namespace: 'shop' } }] },
        { toolCalls: [{ name: 'list_pods', args: { namespace: 'secret-team' } }] },
        { text: 'The pod [pod:shop/web-1] cannot reach its database; [pod:shop/web-9] is unrelated. Hypothesis: the password rotated.' },
      );
      const events: CopilotEvent[] = [];
      const ctx = context();
      const outcome = await runLoop({
        model: languageModel({ provider, model: 'fake', url: `${llm.url}/v1`, apiKey: 'provider-key-123', fetch: services.outboundClient.fetcher() }),
        system: 'Cite node ids in brackets.',
        context: assembleContext({ focus: 'namespace:shop', diagnosis: { namespace: 'shop', root_causes: [], notes: [], hidden_causes: [], silent: [], total_findings: 0, generated_at: '2026-11-23T10:00:00Z' }, detail: null, subgraph: null, documents: [], budgetTokens: 4000 }),
        history: [],
        question: 'Why is web-1 not ready?',
        tools: MCP_TOOLS.filter((t) => t.name !== 'get_findings'),
        searchContext: null,
        ctx,
        redaction: { enabled: true, literals: [] },
        limits: DEFAULT_LIMITS,
        emit: (e) => events.push(e),
      });
      assert.equal(outcome.error, null);
      assert.equal(outcome.finish, 'stop');
      assert.equal(outcome.steps, 3);
      assert.equal(outcome.tool_calls, 3);
      assert.deepEqual(
        events.flatMap((e) => (e.type === 'tool-call' ? [e.name] : [])),
        ['get_logs', 'get_events', 'list_pods'],
      );
      assert.ok(events.some((e) => e.type === 'text'), 'the answer streamed');
      assert.deepEqual(outcome.citations, [
        { id: 'pod:shop/web-1', verified: true, link: '/namespaces/shop/pods/web-1' },
        { id: 'pod:shop/web-9', verified: false, link: null },
      ]);
      assert.equal(llm.requests.length, 3);
      const sent = llm.requests.map((r) => r.raw).join('\n');
      assert.ok(!sent.includes(LOG_SECRET), 'the log line secret never reached the provider');
      assert.ok(!sent.includes(EVENT_TOKEN), 'the event token never reached the provider');
      assert.match(sent, /REDACTED/);
      assert.ok(!sent.includes('vault-0') && !sent.includes('hidden-namespace-event'), 'nothing of the hidden namespace');
      // The refusal of the hidden namespace is what the model got back instead.
      assert.match(llm.requests[2]?.raw ?? '', /forbidden|namespace/);
      assert.ok(!sent.includes('"get_findings"'), 'a denied tool is never offered');
    });
  }
});
