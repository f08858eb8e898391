// The diagnosis scenario harness's pure parts: scoring an answer, merging node root causes,
// when a status patch holds, the order objects are applied in, relative times, and the
// scenario files themselves.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Diagnosis, DiagnosisDetail, Finding, RootCause } from '../../schema/diagnosis.ts';
import type { Incident } from '../../schema/incidents.ts';
import { disagreements } from '../diagnosis/agreement.ts';
import { applyStages, holds, quotaCounting, unmanagedNodeManifest, unmanagedNodeStatus, UNMANAGED_TAINT, type ScenarioResult } from '../diagnosis/harness.ts';
import { buildReport, markdownTable } from '../diagnosis/report.ts';
import { loadScenarioFile, loadScenarios, resolveTimes, type ScenarioSpec } from '../diagnosis/scenario.ts';
import { scenarioRoots, scoreAnswer } from '../diagnosis/score.ts';

function finding(code: string, object: string, severity: Finding['severity'] = 'critical', attributes: Finding['attributes'] = {}): Finding {
  return { id: `${object}#${code}`, code, severity, object, namespace: null, summary: code, evidence: [], since: null, caused_by: null, attributes };
}

function root(f: Finding, effects: Finding[] = [], also: string[] = []): RootCause {
  return { finding: f, effects, also };
}

function expect(e: Partial<ScenarioSpec['expect']>): ScenarioSpec['expect'] {
  return { effects: [], quiet: [], notes: [], ...e };
}

const crash = finding('CrashLoopBackOff', 'pod:dq-a/api-7d9f-x2');
const deploymentDown = finding('ReplicasUnavailable', 'deployment:dq-a/api');
const webDown = finding('ReplicasUnavailable', 'deployment:dq-a/web', 'warning');

describe('scoreAnswer', () => {
  const cases: { name: string; expect: ScenarioSpec['expect']; roots: RootCause[]; notes?: Finding[]; want: { top1: boolean; effects: string; alarms: string[]; pass: boolean } }[] = [
    {
      name: 'the expected root first, its effect under it: a pass',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, effects: ['deployment:dq-a/api'] }),
      roots: [root(crash, [deploymentDown])],
      want: { top1: true, effects: '1/1', alarms: [], pass: true },
    },
    {
      name: 'an effect named only in also counts',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, effects: ['pod:dq-a/api-other'] }),
      roots: [root(crash, [], ['pod:dq-a/api-other'])],
      want: { top1: true, effects: '1/1', alarms: [], pass: true },
    },
    {
      name: 'the expected root second: not top-1, its effects still measured, the first is a false alarm',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, effects: ['deployment:dq-a/api'] }),
      roots: [root(finding('NodeUnreachable', 'node:n1'), [], []), root(crash, [deploymentDown])],
      want: { top1: false, effects: '1/1', alarms: ['unexpected_root NodeUnreachable node:n1'], pass: false },
    },
    {
      name: 'the right object with another code is not top-1',
      expect: expect({ rootCause: { code: 'OOMKilled', object: 'pod:dq-a/api-*' } }),
      roots: [root(crash)],
      want: { top1: false, effects: '0/0', alarms: ['unexpected_root CrashLoopBackOff pod:dq-a/api-7d9f-x2'], pass: false },
    },
    {
      name: 'a prefix pattern does not match a longer unrelated name without the star',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api' } }),
      roots: [root(crash)],
      want: { top1: false, effects: '0/0', alarms: ['unexpected_root CrashLoopBackOff pod:dq-a/api-7d9f-x2'], pass: false },
    },
    {
      name: 'a missing effect fails the scenario but not top-1',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, effects: ['deployment:dq-a/api'] }),
      roots: [root(crash)],
      want: { top1: true, effects: '0/1', alarms: [], pass: false },
    },
    {
      name: 'a warning effect on a quiet object is a false alarm',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, quiet: ['deployment:dq-a/web'] }),
      roots: [root(crash, [webDown])],
      want: { top1: true, effects: '0/0', alarms: ['quiet ReplicasUnavailable deployment:dq-a/web'], pass: false },
    },
    {
      name: 'an info finding on a quiet object is not',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, quiet: ['deployment:dq-a/web'] }),
      roots: [root(crash, [finding('ScaledToZero', 'deployment:dq-a/web', 'info')])],
      want: { top1: true, effects: '0/0', alarms: [], pass: true },
    },
    {
      name: 'a quiet object that is itself an unexpected root is one false alarm, not two',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, quiet: ['deployment:dq-a/web'] }),
      roots: [root(crash), root(webDown)],
      want: { top1: true, effects: '0/0', alarms: ['unexpected_root ReplicasUnavailable deployment:dq-a/web'], pass: false },
    },
    {
      name: 'several roots matching the expected pattern (every crashing replica) are not false alarms',
      expect: expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' } }),
      roots: [root(crash), root(finding('CrashLoopBackOff', 'pod:dq-a/api-7d9f-y3'))],
      want: { top1: true, effects: '0/0', alarms: [], pass: true },
    },
    {
      name: 'attributes must match when given',
      expect: expect({ rootCause: { code: 'Unschedulable', object: 'pod:dq-a/t-*', attributes: { cause: 'insufficient_cpu' } } }),
      roots: [root(finding('Unschedulable', 'pod:dq-a/t-1', 'warning', { cause: 'taint' }))],
      want: { top1: false, effects: '0/0', alarms: ['unexpected_root Unschedulable pod:dq-a/t-1'], pass: false },
    },
    {
      name: 'attributes that match',
      expect: expect({ rootCause: { code: 'Unschedulable', object: 'pod:dq-a/t-*', attributes: { cause: 'insufficient_cpu' } } }),
      roots: [root(finding('Unschedulable', 'pod:dq-a/t-1', 'warning', { cause: 'insufficient_cpu', requested: '48' }))],
      want: { top1: true, effects: '0/0', alarms: [], pass: true },
    },
    {
      name: 'history only: no root cause and the note present is a pass',
      expect: expect({ notes: [{ code: 'RestartedPreviously', object: 'pod:dq-a/api-*' }], quiet: ['pod:dq-a/api-*'] }),
      roots: [],
      notes: [finding('RestartedPreviously', 'pod:dq-a/api-1', 'info')],
      want: { top1: true, effects: '0/0', alarms: [], pass: true },
    },
    {
      name: 'history only: the note missing fails, though top-1 (no root) holds',
      expect: expect({ notes: [{ code: 'RestartedPreviously', object: 'pod:dq-a/api-*' }] }),
      roots: [],
      notes: [],
      want: { top1: true, effects: '0/0', alarms: [], pass: false },
    },
    {
      name: 'history only: any root cause is a false alarm and not top-1',
      expect: expect({ notes: [{ code: 'RestartedPreviously', object: 'pod:dq-a/api-*' }], quiet: ['pod:dq-a/api-*'] }),
      roots: [root(finding('HighRestartRate', 'pod:dq-a/api-1', 'warning'))],
      notes: [finding('RestartedPreviously', 'pod:dq-a/api-1', 'info')],
      want: { top1: false, effects: '0/0', alarms: ['unexpected_root HighRestartRate pod:dq-a/api-1'], pass: false },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = scoreAnswer(c.expect, c.roots, c.notes ?? []);
      assert.equal(s.top1, c.want.top1, 'top1');
      assert.equal(`${s.effects.found}/${s.effects.expected}`, c.want.effects, 'effects');
      assert.deepEqual(s.falseAlarms.map((a) => `${a.why} ${a.code} ${a.object}`), c.want.alarms, 'false alarms');
      assert.equal(s.pass, c.want.pass, 'pass');
    });
  }
});

describe('scenarioRoots', () => {
  const answer = (roots: RootCause[]): Diagnosis => ({ namespace: null, root_causes: roots, notes: [], hidden_causes: [], silent: [], total_findings: roots.length, generated_at: '2026-01-01T00:00:00Z' });
  const cordoned = root(finding('NodeCordoned', 'node:dq-c-n1', 'warning'));
  const otherNode = root(finding('NodeNotReady', 'node:elsewhere'));

  it('adds the root causes on the scenario own nodes from the cluster answer, in the documented order', () => {
    const ns = answer([root(finding('ProbeFailing', 'pod:dq-c/x', 'warning'), [finding('ServiceEndpointsNotReady', 'service:dq-c/x', 'warning')])]);
    const merged = scenarioRoots(ns, answer([otherNode, cordoned]), ['node:dq-c-n1']);
    assert.deepEqual(merged.map((r) => r.finding.id), ['pod:dq-c/x#ProbeFailing', 'node:dq-c-n1#NodeCordoned']);
    const critical = root(finding('NodeUnreachable', 'node:dq-c-n1'));
    assert.equal(scenarioRoots(ns, answer([critical]), ['node:dq-c-n1'])[0]?.finding.code, 'NodeUnreachable', 'critical before warning');
  });

  it('never adds the same root twice, nor another scenario node', () => {
    const ns = answer([cordoned]);
    assert.deepEqual(scenarioRoots(ns, answer([cordoned, otherNode]), ['node:dq-c-n1']).map((r) => r.finding.id), ['node:dq-c-n1#NodeCordoned']);
    assert.equal(scenarioRoots(answer([]), answer([otherNode]), ['node:dq-c-n1']).length, 0);
  });
});

describe('holds', () => {
  const cases: [string, unknown, unknown, boolean][] = [
    ['every patched field present', { phase: 'Running', a: { b: 1 } }, { phase: 'Running', a: { b: 1, c: 2 }, extra: true }, true],
    ['a differing leaf', { phase: 'Running' }, { phase: 'Pending' }, false],
    ['a missing object', { a: { b: 1 } }, {}, false],
    ['arrays element by element, extra server fields allowed', [{ type: 'Ready', status: 'True' }], [{ type: 'Ready', status: 'True', lastProbeTime: null }], true],
    ['arrays of another length', [{ type: 'Ready' }], [{ type: 'Ready' }, { type: 'Initialized' }], false],
    ['nothing at all', { phase: 'Running' }, undefined, false],
  ];
  for (const [name, patch, actual, want] of cases) it(name, () => assert.equal(holds(patch, actual), want));
});

describe('resolveTimes', () => {
  const now = Date.parse('2026-05-01T12:00:00.600Z');
  it('replaces exact placeholders, to the second, and nothing else', () => {
    const out = resolveTimes({ a: '${now}', b: ['${now-90s}', '${now-2h}', '${now+1d}'], c: 'at ${now}', d: 3, e: '${now-5m}' }, now);
    assert.deepEqual(out, { a: '2026-05-01T12:00:00Z', b: ['2026-05-01T11:58:30Z', '2026-05-01T10:00:00Z', '2026-05-02T12:00:00Z'], c: 'at ${now}', d: 3, e: '2026-05-01T11:55:00Z' });
  });
});

describe('unmanaged nodes', () => {
  const node = { name: 'dq-x-n1', heartbeat: true, capacity: { cpu: '4', memory: '8Gi', pods: '20' }, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' as const }], unschedulable: true, conditions: [{ type: 'Ready', status: 'False' as const, reason: 'KubeletNotReady' }], labels: { pool: 'gpu' } };
  it('carry no KWOK annotation, the harness taint and label, and the scenario own taints', () => {
    const m = unmanagedNodeManifest('s', node) as { metadata: { annotations?: unknown; labels: Record<string, string> }; spec: { taints: { key: string }[]; unschedulable: boolean } };
    assert.equal(m.metadata.annotations, undefined);
    assert.deepEqual(m.spec.taints.map((t) => t.key), [UNMANAGED_TAINT, 'dedicated']);
    assert.equal(m.metadata.labels.pool, 'gpu');
    assert.equal(m.spec.unschedulable, true);
  });
  it('a scenario condition replaces the default of its type', () => {
    const s = unmanagedNodeStatus(node, '2026-01-01T00:00:00Z') as { conditions: { type: string; status: string }[] };
    assert.deepEqual(s.conditions.filter((c) => c.type === 'Ready').map((c) => c.status), ['False']);
    assert.equal(s.conditions.length, 4);
  });
});

describe('scenario files', () => {
  it('every file in tests/diagnosis loads, with unique names, namespaces and nodes', () => {
    const all = loadScenarios();
    assert.ok(all.length >= 20, `${all.length} scenarios`);
    for (const s of all) assert.ok(s.objects.every((o) => o.metadata.namespace === undefined || o.metadata.namespace === s.spec.namespace), s.name);
  });

  const dir = mkdtempSync(join(tmpdir(), 'diagnosis-scenarios-'));
  const header = (spec: string) => `apiVersion: capstan.dev/v1alpha1\nkind: DiagnosisScenario\nmetadata: {name: t}\nspec:\n  description: a test scenario here\n  namespace: dq-t\n${spec}`;
  const refusals: [string, string, RegExp][] = [
    ['an object in another namespace', header('  expect: {rootCause: {code: X, object: "pod:dq-t/a"}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: other}\n'), /namespace other/],
    ['no expectation', header('  expect: {quiet: ["pod:dq-t/a"]}\n'), /rootCause, or notes/],
    ['a namespace without the prefix', header('  expect: {rootCause: {code: X, object: "pod:dq-t/a"}}\n').replace('dq-t\n', 'shop\n'), /must start with dq-/],
    ['a status patch of an unknown kind', header('  statusPatches: [{kind: Widget, name: w, status: {}}]\n  expect: {rootCause: {code: X, object: "pod:dq-t/a"}}\n'), /Widget/],
    ['an expected object that is not a node id', header('  expect: {rootCause: {code: X, object: "dq-t/a"}}\n'), /node id/],
  ];
  for (const [name, text, error] of refusals) {
    it(`refuses ${name}`, () => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, text);
      assert.throws(() => loadScenarioFile(file), error);
    });
  }
});

describe('the report', () => {
  const result = (name: string, over: Partial<ScenarioResult>): ScenarioResult => ({ name, description: name, code: 'CrashLoopBackOff', expected: `pod:dq-${name}/api-*`, effectsExpected: 1, score: null, secondsToDiagnosis: null, deadlineSeconds: 120, error: null, incidentDisagreements: null, ...over });
  const passed = scoreAnswer(expect({ rootCause: { code: 'CrashLoopBackOff', object: 'pod:dq-a/api-*' }, effects: ['deployment:dq-a/api'] }), [root(crash, [deploymentDown])], []);
  const wrong = scoreAnswer(expect({ rootCause: { code: 'OOMKilled', object: 'pod:dq-a/api-*' }, effects: ['deployment:dq-a/api'] }), [root(crash)], []);

  it('totals count a scenario with no answer as expecting its effects and not top-1', () => {
    const report = buildReport([result('a', { score: passed, secondsToDiagnosis: 12.5 }), result('b', { score: wrong }), result('c', { error: 'diagnosis: 404' })], 'test');
    assert.deepEqual(
      { ...report.totals },
      { scenarios: 3, passed: 1, top1: 1, top1_rate: 0.333, effects_expected: 3, effects_found: 1, effects_rate: 0.333, false_alarms: 1, errors: 1, median_seconds_to_diagnosis: 12.5, incidents_checked: 0, incidents_disagreed: 0 },
    );
    const table = markdownTable(report);
    assert.match(table, /\| a \| CrashLoopBackOff \| pod:dq-a\/api-\* \| CrashLoopBackOff pod:dq-a\/api-7d9f-x2 \| yes \| 1\/1 \| 0 \| – \| 12\.5 \|/);
    assert.match(table, /- b: expected CrashLoopBackOff on pod:dq-b\/api-\*, first root cause CrashLoopBackOff on pod:dq-a\/api-7d9f-x2/);
    assert.match(table, /- b: false alarm \(unexpected root cause\): critical CrashLoopBackOff/);
    assert.match(table, /- c: diagnosis: 404/);
  });
});

describe('applyStages', () => {
  const quota = { kind: 'ResourceQuota', metadata: { name: 'pod-count' } };
  const pod = { kind: 'Pod', metadata: { name: 'toolbox' } };
  const job = { kind: 'Job', metadata: { name: 'reindex' } };
  const limits = { kind: 'LimitRange', metadata: { name: 'cpu-floor' } };
  const cases: { name: string; objects: { kind: string; metadata: { name: string } }[]; want: string[][] }[] = [
    { name: 'nothing', objects: [], want: [] },
    { name: 'no quota: one stage, in file order', objects: [pod, job], want: [['Pod/toolbox', 'Job/reindex']] },
    // Admission skips a quota until the quota controller has written its status, so a pod created
    // in that window is admitted uncounted: the quota must be counting before anything it limits.
    { name: 'quotas first, the rest once they count', objects: [pod, quota, job], want: [['ResourceQuota/pod-count'], ['Pod/toolbox', 'Job/reindex']] },
    { name: 'only quotas: one stage', objects: [quota], want: [['ResourceQuota/pod-count']] },
    { name: 'a LimitRange needs no status: it stays with the rest', objects: [limits, quota, job], want: [['ResourceQuota/pod-count'], ['LimitRange/cpu-floor', 'Job/reindex']] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyStages(c.objects).map((stage) => stage.map((o) => `${o.kind}/${o.metadata.name}`)), c.want));
  }
});

describe('quotaCounting', () => {
  const cases: { name: string; status: unknown; want: boolean }[] = [
    { name: 'no status yet', status: undefined, want: false },
    { name: 'an empty status', status: {}, want: false },
    { name: 'hard written, used not yet', status: { hard: { pods: '1' } }, want: false },
    { name: 'used lacks a hard resource', status: { hard: { pods: '1', 'requests.cpu': '1' }, used: { pods: '0' } }, want: false },
    { name: 'every hard resource has its usage', status: { hard: { pods: '1' }, used: { pods: '0' } }, want: true },
  ];
  for (const c of cases) it(c.name, () => assert.equal(quotaCounting(c.status), c.want));
});

describe('incidents and the diagnosis agree (tests/diagnosis/agreement.ts)', () => {
  const answer = (roots: RootCause[]): Diagnosis => ({ namespace: 'dq-a', root_causes: roots, notes: [], hidden_causes: [], silent: [], total_findings: 0, generated_at: '2026-11-27T00:00:00.000Z' });
  const detailOf = (own: Finding[], rootCause: Finding | null): DiagnosisDetail => ({ object: own[0]?.object ?? '', healthy: own.length === 0, findings: own, chain: own, root_cause: rootCause, cause_hidden: false, effects: [], notes: [], generated_at: '2026-11-27T00:00:00.000Z' });
  const incident = (pod: string, reason: string, severity: Incident['severity'], root: Incident['root_cause']): Incident => ({
    id: `dq-a/${pod}/${reason}`, namespace: 'dq-a', pod, workload_kind: 'Deployment', workload_name: 'api', container: 'api', reason, detail: reason, severity, phase: 'Running',
    restart_count: 0, restart_rate: 0, first_failure_ts: null, crashing_for_secs: null, last_exit_code: null, age: '1m', root_cause: root,
  });
  const crashRoot = { code: 'CrashLoopBackOff', summary: 'CrashLoopBackOff', node_id: crash.object };
  const rows: { name: string; incidents: Incident[]; details: [string, DiagnosisDetail | null][]; roots: RootCause[]; want: RegExp[] }[] = [
    { name: 'the same code, severity and root: agree', incidents: [incident('api-7d9f-x2', 'CrashLoopBackOff', 'critical', crashRoot)], details: [[crash.object, detailOf([crash], crash)]], roots: [root(crash)], want: [] },
    { name: 'another code', incidents: [incident('api-7d9f-x2', 'StuckPending', 'warning', crashRoot)], details: [[crash.object, detailOf([crash], crash)]], roots: [root(crash)], want: [/says warning StuckPending, \/diagnosis says critical CrashLoopBackOff/] },
    { name: 'another root', incidents: [incident('api-7d9f-x2', 'CrashLoopBackOff', 'critical', null)], details: [[crash.object, detailOf([crash], crash)]], roots: [root(crash)], want: [/names root none, \/diagnosis CrashLoopBackOff/] },
    { name: 'a problem with no incident', incidents: [], details: [[crash.object, detailOf([crash], crash)]], roots: [root(crash)], want: [/shows a problem, \/incidents has no incident/] },
    { name: 'an incident with no problem behind it', incidents: [incident('web-1', 'PodFailed', 'critical', null)], details: [['pod:dq-a/web-1', detailOf([], null)]], roots: [], want: [/no problem on it/] },
    { name: 'OOMRisk is the metrics-only incident', incidents: [incident('web-1', 'OOMRisk', 'warning', null)], details: [], roots: [], want: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const found = disagreements('dq-a', { incidents: row.incidents, diagnosis: answer(row.roots), details: new Map(row.details) });
      assert.equal(found.length, row.want.length, found.join('\n'));
      row.want.forEach((pattern, i) => assert.match(found[i] ?? '', pattern));
    });
  }
});
