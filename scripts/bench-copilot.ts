// `npm run bench:copilot`: grounding recall, measured without a model. Every scenario of
// tests/diagnosis/ runs as `npm run bench:diagnosis` runs them (the same harness, one local
// control plane, an in-process agent); as each one is done, the context a copilot run would send
// for "why is <the culprit's effect> unhealthy?" is built by the run's own `runContext` at 4k and
// 8k tokens, redacted as the run's guardrails say, and checked for the root cause's object and
// evidence (`domain/copilot/grounding.ts`). Writes tests/bench/results/copilot.json and
// copilot.md. Reported, not asserted.
//
//   --dir D        use (or start, and keep) the cluster in D instead of a throwaway one
//   --only a,b     only these scenarios (by metadata.name)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { scopeAnswers } from '../domain/scoped.ts';
import { groundingOf } from '../domain/copilot/grounding.ts';
import type { ClusterDiagnosis } from '../domain/diagnosis/engine.ts';
import { redactValue } from '../domain/redaction/redact.ts';
import type { HandlerContext } from '../handlers/context.ts';
import { runContext } from '../handlers/copilot/run.ts';
import { narrowToAiScope } from '../handlers/copilot/scope.ts';
import type { RunningAgent } from '../runtime/agent.ts';
import { down, up } from '../dev/localcluster/cluster.ts';
import type { RootCause } from '../schema/diagnosis.ts';
import { agentDiagnose, diagnosisApiKey, startBenchAgent } from '../tests/diagnosis/agent.ts';
import { removeLeftovers, runScenarios, type ScenarioResult } from '../tests/diagnosis/harness.ts';
import { createKube } from '../tests/diagnosis/kube.ts';
import { idMatches, loadScenarios, type Scenario } from '../tests/diagnosis/scenario.ts';
import { BUDGETS, buildReport, k, markdownReport, type AtBudget, type CopilotBenchReport, type CopilotScenarioResult } from '../tests/diagnosis/copilot-report.ts';
import { findingMatches, type Score } from '../tests/diagnosis/score.ts';

const PASSWORD = 'bench-copilot-admin-password';
const RESULTS = join('tests', 'bench', 'results');

const { values } = parseArgs({ options: { dir: { type: 'string' }, only: { type: 'string' } } });
const only = values.only?.split(',').map((s) => s.trim());
const scenarios = loadScenarios(undefined, only ? (name) => only.includes(name) : undefined);
if (scenarios.length === 0) throw new Error(`no scenario matches --only ${values.only ?? ''}`);
const say = (line: string) => process.stderr.write(`bench:copilot: ${line}\n`);

/** The focus a person would ask about: the first listed effect as a real object, else the culprit. */
function focusFor(scenario: Scenario, root: RootCause, truth: ClusterDiagnosis): Pick<CopilotScenarioResult, 'focus' | 'focus_is' | 'focus_note'> {
  const pattern = scenario.spec.expect.effects[0];
  if (pattern === undefined) return { focus: root.finding.object, focus_is: 'culprit', focus_note: 'the scenario lists no effect' };
  // As the diagnosis benchmark scores effects: the root's effects, then the replicas folded into it.
  const named = [...root.effects.map((e) => e.object), ...root.also].find((id) => idMatches(pattern, id));
  if (named !== undefined) return { focus: named, focus_is: 'effect', focus_note: null };
  const existing = [...truth.objects].sort().find((id) => idMatches(pattern, id));
  if (existing !== undefined) return { focus: existing, focus_is: 'effect', focus_note: 'an effect the root cause does not name' };
  return { focus: root.finding.object, focus_is: 'culprit', focus_note: `its effect ${pattern} is not in the cluster model` };
}

interface Measurer {
  measure(scenario: Scenario, score: Score | null): CopilotScenarioResult;
  setup: CopilotBenchReport['setup'];
}

async function measurer(agent: RunningAgent): Promise<Measurer> {
  const services = agent.services;
  const guardrails = await services.runtimeSettings.get('ai_guardrails');
  // As every request's and the report scheduler's context: the agent's tenant namespaces, then the AI scope.
  const ctx: HandlerContext = narrowToAiScope(
    { ...services, ...scopeAnswers(services, services.settings.tenantNamespaces), request: { ip: 'bench-copilot', origin: '', noteAudit: () => undefined }, principal: null },
    guardrails.namespace_scope,
  );
  const scrub = (text: string) => (guardrails.redaction.enabled ? String(redactValue(text, guardrails.redaction.extra_literals)) : text);
  const documents = await services.copilot.store.standingDocuments();
  return {
    setup: { standing_documents: documents.length, redaction: guardrails.redaction.enabled, ai_namespace_scope: [...guardrails.namespace_scope] },
    measure: (scenario, score) => {
      const expected = scenario.spec.expect.rootCause;
      const base = { name: scenario.name, code: expected?.code ?? 'history', diagnosed: score?.top1 ?? null, focus: null, focus_is: null, focus_note: null, question: null, root_cause: null, budgets: [] };
      if (expected === undefined) return { ...base, status: 'not_applicable', note: 'history only: no root cause to ground' };
      // The diagnosis is cached for 5 s: measure on one snapshot, the one the contexts read.
      for (;;) {
        const truth = services.diagnosis.current();
        const root = truth.roots.find((r) => findingMatches(expected, r.finding));
        if (root === undefined) return { ...base, status: 'not_diagnosed', note: `no ${expected.code} root cause on ${expected.object} in the diagnosis when measured` };
        const focus = focusFor(scenario, root, truth);
        const asked = focus.focus ?? root.finding.object;
        const budgets = BUDGETS.map((budget): AtBudget => {
          const run = runContext(asked, ctx, documents, budget);
          return { budget, tokens: run.context.tokens, grounding: groundingOf(scrub(run.context.text), root.finding), dropped: run.context.dropped };
        });
        if (services.diagnosis.current() !== truth) continue;
        return { ...base, ...focus, status: 'measured', question: `why is ${asked} unhealthy?`, root_cause: root.finding.id, budgets, note: null };
      }
    },
  };
}

const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'capstan-bench-copilot-'));
const throwaway = values.dir === undefined;
try {
  say(`${scenarios.length} scenarios; control plane in ${dir}`);
  const cluster = await up({ dir, progress: (m) => say(m) });
  const leftovers = await removeLeftovers(createKube(cluster.kubeconfig));
  if (leftovers.length > 0) say(`removed a previous run's leftovers: ${leftovers.join(', ')}`);
  const agent = await startBenchAgent(cluster.kubeconfig, dir, PASSWORD);
  try {
    await agent.ready;
    const diagnose = agentDiagnose(agent.url, await diagnosisApiKey(agent.url, PASSWORD));
    const m = await measurer(agent);
    const measured = new Map<string, CopilotScenarioResult>();
    const onDone = (scenario: Scenario, score: Score | null) => {
      const result = m.measure(scenario, score);
      measured.set(scenario.name, result);
      say(`${scenario.name}: ${result.status}${result.budgets.map((b) => ` ${k(b.budget)} ${b.grounding.grounded ? 'grounded' : 'MISS'} (${b.tokens} tokens)`).join('')}`);
      return Promise.resolve();
    };
    const diagnosed = await runScenarios(scenarios, { kubeconfig: cluster.kubeconfig, binDir: cluster.binDir, log: say, diagnose, onDone });
    const byName = new Map<string, ScenarioResult>(diagnosed.map((r) => [r.name, r]));
    const results = scenarios.map((s): CopilotScenarioResult => {
      const got = measured.get(s.name);
      if (got !== undefined) return got;
      // Never done while the harness ran: its setup failed, or measuring it threw (logged above).
      const expected = s.spec.expect.rootCause;
      if (expected === undefined) return { name: s.name, code: 'history', status: 'not_applicable', diagnosed: byName.get(s.name)?.score?.top1 ?? null, focus: null, focus_is: null, focus_note: null, question: null, root_cause: null, budgets: [], note: 'history only: no root cause to ground' };
      return { name: s.name, code: expected.code, status: 'error', diagnosed: byName.get(s.name)?.score?.top1 ?? null, focus: null, focus_is: null, focus_note: null, question: null, root_cause: null, budgets: [], note: byName.get(s.name)?.error ?? 'not measured' };
    });
    const report = buildReport(results, m.setup, `${cpus().length} CPU, node ${process.version}`);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'copilot.json'), JSON.stringify(report, null, 2) + '\n');
    const markdown = markdownReport(report);
    writeFileSync(join(RESULTS, 'copilot.md'), markdown);
    process.stdout.write(markdown);
  } finally {
    await agent.close();
  }
} finally {
  if (throwaway) {
    await down(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
