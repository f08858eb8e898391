import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCitations, citedIds, collectNodeIds } from '../../domain/copilot/citations.ts';
import { assembleContext, estimateTokens } from '../../domain/copilot/context.ts';
import { explainDiagnosis, explainObject, WITHOUT_MODEL_LABEL } from '../../domain/copilot/explain.ts';
import type { Diagnosis, DiagnosisDetail, Finding } from '../../schema/diagnosis.ts';

describe('citations: which bracketed ids an answer cites', () => {
  const cases: [string, string, string[]][] = [
    ['one pod', 'Pod [pod:shop/web-1] crashes.', ['pod:shop/web-1']],
    ['cluster-scoped kinds', 'Node [node:kwok-node-3] and volume [pv:data-7].', ['node:kwok-node-3', 'pv:data-7']],
    ['a problem id with its #code', 'See [problem:pod:shop/web-1#CrashLoopBackOff].', ['problem:pod:shop/web-1#CrashLoopBackOff']],
    ['an image with a tag', 'Runs [image:ghcr.io/acme/app:1.2].', ['image:ghcr.io/acme/app:1.2']],
    ['repeats once, in order of first appearance', '[pod:a/x] then [svc-less] [pod:b/y] and [pod:a/x] again', ['pod:a/x', 'pod:b/y']],
    ['markdown link text counts', 'open [pod:shop/web-1](/namespaces/shop/pods/web-1)', ['pod:shop/web-1']],
    ['unknown kind is not a citation', '[note:this] [foo:bar/baz]', []],
    ['a space after the colon is prose', '[hypothesis: the node is full]', []],
    ['namespaced kind without a namespace is not an id', '[pod:web-1]', []],
    ['nested brackets', '[[pod:shop/web-1]]', ['pod:shop/web-1']],
    ['no brackets', 'pod:shop/web-1 is mentioned bare', []],
    ['empty', '', []],
  ];
  for (const [name, text, want] of cases) it(name, () => assert.deepEqual(citedIds(text), want));
});

describe('citations: verified only when the run gave the model that node', () => {
  it('an invented id comes back unverified and unlinked; a given one verified with its deep link', () => {
    const given = new Set(['pod:shop/web-1', 'deployment:shop/web']);
    assert.deepEqual(checkCitations('[pod:shop/web-1] is owned by [deployment:shop/web]; [pod:shop/web-9] too.', given), [
      { id: 'pod:shop/web-1', verified: true, link: '/namespaces/shop/pods/web-1' },
      { id: 'deployment:shop/web', verified: true, link: '/graph/deployment%3Ashop%2Fweb' },
      { id: 'pod:shop/web-9', verified: false, link: null },
    ]);
  });
});

describe('citations: the node ids a tool result shows the model', () => {
  const cases: [string, unknown, string[]][] = [
    ['graph nodes by id', { nodes: [{ id: 'pod:shop/a', kind: 'Pod', name: 'a', namespace: 'shop' }] }, ['pod:shop/a']],
    ['list_pods items take the result namespace', { namespace: 'shop', pods: [{ name: 'a', containers: [{ name: 'app' }] }, { name: 'b' }] }, ['pod:shop/a', 'pod:shop/b']],
    ['workloads name their kind', { namespace: 'shop', workloads: [{ kind: 'Deployment', name: 'web' }, { kind: 'CronJob', name: 'sync' }] }, ['deployment:shop/web', 'cronjob:shop/sync']],
    ['nodes and namespaces are cluster-scoped', { nodes: [{ name: 'n1' }], namespaces: [{ name: 'shop' }] }, ['node:n1', 'namespace:shop']],
    ['findings and evidence strings', { root_causes: [{ finding: { object: 'pvc:shop/data', evidence: [{ node_id: 'storageclass:fast' }] } }] }, ['pvc:shop/data', 'storageclass:fast']],
    ['a log names its pod, an event its object', { namespace: 'shop', pod: 'web-1', events: [{ object: 'Pod/web-2' }, { object: 'Node/n1' }, { object: 'Widget/w' }] }, ['pod:shop/web-1', 'pod:shop/web-2', 'node:n1']],
    ['a record of an unknown kind names nothing', { kind: 'Widget', name: 'w', namespace: 'shop' }, []],
    ['prose is not an id', { message: 'pod:shop/a is crashing' }, []],
  ];
  for (const [name, value, want] of cases) {
    it(name, () => {
      const into = new Set<string>();
      collectNodeIds(value, into);
      assert.deepEqual([...into].sort(), [...want].sort());
    });
  }
});

const finding = (object: string, code: string, severity: Finding['severity'], evidenceOn: string[], causedBy: string | null = null): Finding => ({
  id: `${object}#${code}`,
  code,
  severity,
  object,
  namespace: object.split(':')[1]?.split('/')[0] ?? null,
  summary: `${code} on ${object}`,
  evidence: evidenceOn.map((node_id) => ({ node_id, fact: `fact about ${node_id}`, source: 'status' as const, link: null })),
  since: null,
  caused_by: causedBy,
  attributes: {},
});

describe('the answer with no model', () => {
  const quota = finding('resourcequota:shop/pods', 'QuotaExhausted', 'critical', ['resourcequota:shop/pods']);
  const rs = finding('replicaset:shop/web-1', 'ReplicaCreateFailed', 'critical', ['replicaset:shop/web-1'], quota.id);
  const deploy = finding('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['deployment:shop/web'], rs.id);
  const d: Diagnosis = { namespace: 'shop', root_causes: [{ finding: quota, effects: [rs, deploy], also: [] }], notes: [], hidden_causes: [], silent: [], total_findings: 3, generated_at: '2026-11-23T10:00:00.000Z' };

  it('is labelled, names every root with its evidence and effects, and cites only nodes of the diagnosis', () => {
    const text = explainDiagnosis(d, 'namespace shop');
    assert.ok(text.startsWith(WITHOUT_MODEL_LABEL));
    assert.match(text, /1 root cause in namespace shop \(1 critical\)/);
    assert.match(text, /QuotaExhausted on resourcequota:shop\/pods\*\* \[resourcequota:shop\/pods\]/);
    assert.match(text, /It explains 2 effects/);
    const given = new Set<string>();
    collectNodeIds(d, given);
    const citations = checkCitations(text, given);
    assert.deepEqual(citations.map((c) => c.id), ['resourcequota:shop/pods', 'replicaset:shop/web-1', 'deployment:shop/web']);
    assert.ok(citations.every((c) => c.verified));
    assert.equal(explainDiagnosis(d, 'namespace shop'), text, 'deterministic');
  });

  it('says plainly when nothing is wrong, and never names a hidden cause', () => {
    const healthy = explainDiagnosis({ ...d, root_causes: [], hidden_causes: [{ effect: deploy, reason: 'cause_outside_visible_namespaces' }] }, 'the cluster');
    assert.match(healthy, /No root cause found in the cluster/);
    assert.match(healthy, /1 problem is caused from a namespace you may not see/);
    assert.equal(citedIds(healthy).length, 0);
  });

  it('walks one object up its chain to the root cause', () => {
    const detail: DiagnosisDetail = { object: 'deployment:shop/web', healthy: false, findings: [deploy], chain: [deploy, rs, quota], root_cause: quota, cause_hidden: false, effects: [], notes: [], generated_at: d.generated_at };
    const text = explainObject(detail);
    assert.match(text, /because ReplicaCreateFailed on replicaset:shop\/web-1 \[replicaset:shop\/web-1\]/);
    assert.match(text, /Root cause: QuotaExhausted on resourcequota:shop\/pods \[resourcequota:shop\/pods\]/);
    assert.match(explainObject({ ...detail, root_cause: null, cause_hidden: true }), /namespace you may not see/);
  });
});

describe('the context a run starts from', () => {
  const quota = finding('resourcequota:shop/pods', 'QuotaExhausted', 'critical', ['resourcequota:shop/pods']);
  const rs = finding('replicaset:shop/web-1', 'ReplicaCreateFailed', 'critical', ['replicaset:shop/web-1', 'event:none'], quota.id);
  const deploy = finding('deployment:shop/web', 'ReplicasUnavailable', 'warning', ['deployment:shop/web'], rs.id);
  const other = (i: number) => finding(`pod:lab/p-${i}`, 'CrashLoopBackOff', 'warning', [`pod:lab/p-${i}`]);
  const diagnosis: Diagnosis = {
    namespace: null,
    // The shop root comes last as the diagnosis orders them; the focus brings it first.
    root_causes: [...Array.from({ length: 40 }, (_, i) => ({ finding: other(i), effects: [], also: [] })), { finding: quota, effects: [rs, deploy], also: [] }],
    notes: [],
    hidden_causes: [],
    silent: [],
    total_findings: 43,
    generated_at: '2026-11-23T10:00:00.000Z',
  };
  const detail: DiagnosisDetail = { object: 'deployment:shop/web', healthy: false, findings: [deploy], chain: [deploy, rs, quota], root_cause: quota, cause_hidden: false, effects: [], notes: [], generated_at: diagnosis.generated_at };
  const nodes = Array.from({ length: 200 }, (_, i) => ({ id: `pod:shop/web-1-${i}`, kind: 'Pod' as const, name: `web-1-${i}`, namespace: 'shop', status: 'Pending', link: '', distance: 2 }));
  const subgraph = { focus: 'deployment:shop/web', hops: 2, budget: 4000, tokens_used: 0, token_estimate: 'json_chars_div_4' as const, nodes, edges: [], truncated: false, dropped: { nodes: 0, edges: 0, by_kind: {} } };

  const cases: [string, number, { rootIn: boolean; nodesDropped: boolean }][] = [
    ['a tight budget keeps the focus chain and its root before the rest', 600, { rootIn: true, nodesDropped: true }],
    ['4k tokens', 4000, { rootIn: true, nodesDropped: true }],
    ['8k tokens', 8000, { rootIn: true, nodesDropped: false }],
  ];
  for (const [name, budgetTokens, want] of cases) {
    it(name, () => {
      const ctx = assembleContext({ focus: 'deployment:shop/web', diagnosis, detail, subgraph, documents: [{ title: 'Known noise', body: 'Ignore lab.' }], budgetTokens });
      assert.ok(ctx.tokens <= budgetTokens, `${ctx.tokens} <= ${budgetTokens}`);
      assert.equal(estimateTokens(ctx.text) <= budgetTokens, true);
      assert.equal(ctx.nodeIds.has('resourcequota:shop/pods'), want.rootIn);
      assert.equal(ctx.dropped.nodes > 0, want.nodesDropped);
      assert.match(ctx.text, /Ignore lab\./);
      for (const id of ctx.nodeIds) assert.ok(ctx.text.includes(id), `${id} is in the text`);
    });
  }

  it('standing instructions take at most a quarter of the budget', () => {
    const long = { title: 'Runbook', body: 'x'.repeat(20_000) };
    const ctx = assembleContext({ focus: null, diagnosis, detail: null, subgraph: null, documents: [long], budgetTokens: 4000 });
    assert.equal(ctx.dropped.documents, 1);
    assert.ok(ctx.nodeIds.has('resourcequota:shop/pods'));
  });
});
