// The copilot grounding benchmark's results (`npm run bench:copilot`): one JSON document and one
// markdown table, the markdown a function of the JSON alone.
import type { Grounding } from '../../domain/copilot/grounding.ts';

/** The run's own budget (CONTEXT_BUDGET_TOKENS) and half of it. */
export const BUDGETS = [4000, 8000] as const;

export const DEFINITION =
  'A scenario is grounded at a budget when the context a run sends for "why is <focus> unhealthy?" (`runContext` in handlers/copilot/run.ts, as redacted before it leaves) holds the expected root cause\'s object and its evidence. ' +
  'The root cause is the finding of the diagnosis the context was built from that matches the scenario\'s expected code and object. ' +
  'Object: its node id appears as a whole id (not as part of a longer id, a problem id, or an id cut off). ' +
  'Evidence: every evidence item\'s `fact` of that finding appears verbatim (as written or JSON-escaped). ' +
  'The focus is the first effect the scenario lists (resolved to a real object: one the root cause names as an effect first, else one in the cluster model); a scenario with no effect asks about the culprit itself. ' +
  'History-only scenarios have no root cause: not applicable, not counted. A scenario whose root cause the diagnosis did not hold when measured counts as a miss.';

export interface AtBudget {
  budget: number;
  /** What the assembler counted (characters / 4, a line each). */
  tokens: number;
  grounding: Grounding;
  dropped: { documents: number; root_causes: number; nodes: number };
}

export interface CopilotScenarioResult {
  name: string;
  code: string;
  status: 'measured' | 'not_applicable' | 'not_diagnosed' | 'error';
  /** The diagnosis benchmark's verdict on the same run: the top root cause was right. */
  diagnosed: boolean | null;
  focus: string | null;
  /** `effect`, or `culprit` (the scenario lists no effect, or the listed one could not be found). */
  focus_is: 'effect' | 'culprit' | null;
  focus_note: string | null;
  question: string | null;
  root_cause: string | null;
  budgets: AtBudget[];
  /** Why nothing was measured, or what went wrong. */
  note: string | null;
}

export interface BudgetTotals {
  budget: number;
  grounded: number;
  object: number;
  evidence: number;
  recall: number;
  median_tokens: number | null;
  max_tokens: number | null;
}

export interface CopilotBenchReport {
  generated_at: string;
  machine: string;
  definition: string;
  /** What every run's context was assembled with. */
  setup: { standing_documents: number; redaction: boolean; ai_namespace_scope: string[] };
  totals: { scenarios: number; applicable: number; not_applicable: number; measured: number; budgets: BudgetTotals[] };
  scenarios: CopilotScenarioResult[];
}

const rate = (n: number, d: number) => (d === 0 ? 1 : Math.round((n / d) * 1000) / 1000);
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] ?? null);
};

export function buildReport(results: CopilotScenarioResult[], setup: CopilotBenchReport['setup'], machine: string, now = new Date()): CopilotBenchReport {
  const applicable = results.filter((r) => r.status !== 'not_applicable');
  const measured = results.filter((r) => r.status === 'measured');
  const budgets = BUDGETS.map((budget): BudgetTotals => {
    const at = measured.flatMap((r) => r.budgets.filter((b) => b.budget === budget));
    const grounded = at.filter((b) => b.grounding.grounded).length;
    const tokens = at.map((b) => b.tokens);
    return {
      budget,
      grounded,
      object: at.filter((b) => b.grounding.object).length,
      evidence: at.filter((b) => b.grounding.evidence.missing.length === 0).length,
      recall: rate(grounded, applicable.length),
      median_tokens: median(tokens),
      max_tokens: tokens.length === 0 ? null : Math.max(...tokens),
    };
  });
  return {
    generated_at: now.toISOString(),
    machine,
    definition: DEFINITION,
    setup,
    totals: { scenarios: results.length, applicable: applicable.length, not_applicable: results.length - applicable.length, measured: measured.length, budgets },
    scenarios: results,
  };
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const yes = (b: boolean) => (b ? 'yes' : '**no**');
export const k = (budget: number) => `${budget / 1000}k`;

/** The contexts that did not fit whole: where the budget, not the diagnosis, decided what the model sees. */
function cutContexts(report: CopilotBenchReport): string[] {
  return BUDGETS.map((budget) => {
    const cut = report.scenarios.flatMap((r) => {
      const b = r.budgets.find((x) => x.budget === budget);
      const d = b?.dropped;
      if (b === undefined || d === undefined || d.documents + d.root_causes + d.nodes === 0) return [];
      return [`${r.name} (${b.tokens} tokens; dropped ${d.root_causes} root causes, ${d.nodes} model nodes, ${d.documents} documents)`];
    });
    return `Contexts cut to fit at ${k(budget)}: ${cut.length === 0 ? 'none' : `${cut.length}: ${cut.join(', ')}`}.`;
  }).flatMap((line) => [line, '']);
}

export function markdownReport(report: CopilotBenchReport): string {
  const t = report.totals;
  const summary = t.budgets.map((b) => `${k(b.budget)} ${b.grounded}/${t.applicable} (${Math.round(b.recall * 100)} %)`).join(', ');
  const sizes = t.budgets.map((b) => `${b.median_tokens ?? '–'} at ${k(b.budget)}`).join(', ');
  const lines = [
    '# Copilot grounding recall',
    '',
    `\`npm run bench:copilot\`: ${t.scenarios} scenarios from \`tests/diagnosis/\`, all at once on one local control plane, ${report.machine}; generated ${report.generated_at}. No model runs: each context is measured as it would be sent, once the scenario is diagnosed (or its deadline passed), with ${report.setup.standing_documents} standing AI Context documents, redaction ${report.setup.redaction ? 'on' : 'off'}, AI namespace scope ${report.setup.ai_namespace_scope.length === 0 ? 'all namespaces' : report.setup.ai_namespace_scope.join(', ')}.`,
    report.definition,
    '',
    `**Grounded: ${summary} of ${t.applicable} scenarios with a root cause; ${t.not_applicable} history-only scenario${t.not_applicable === 1 ? '' : 's'} not applicable and not counted. Context tokens (median): ${sizes}.**`,
    '',
    ...cutContexts(report),
    '| scenario | focus asked about | root-cause id | at 4k (object / evidence) | at 8k (object / evidence) | tokens at 4k | tokens at 8k |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of report.scenarios) {
    if (r.status !== 'measured') {
      const why = r.status === 'not_applicable' ? 'not applicable (history only)' : `**${r.status === 'error' ? 'error' : 'not diagnosed'}**`;
      lines.push(`| ${cell(r.name)} | – | – | ${why} | ${why} | – | – |`);
      continue;
    }
    const focus = r.focus_is === 'culprit' ? `${r.focus ?? ''} (the culprit itself: ${r.focus_note ?? ''})` : `${r.focus ?? ''}${r.focus_note === null ? '' : ` (${r.focus_note})`}`;
    const at = (budget: number) => r.budgets.find((b) => b.budget === budget);
    const verdict = (budget: number) => {
      const b = at(budget);
      return b === undefined ? '–' : `${yes(b.grounding.object)} / ${b.grounding.evidence.missing.length === 0 ? '' : '**'}${b.grounding.evidence.present}/${b.grounding.evidence.total}${b.grounding.evidence.missing.length === 0 ? '' : '**'}`;
    };
    lines.push(`| ${cell(r.name)} | ${cell(focus)} | ${cell(r.root_cause ?? '')} | ${verdict(4000)} | ${verdict(8000)} | ${at(4000)?.tokens ?? '–'} | ${at(8000)?.tokens ?? '–'} |`);
  }
  const misses = report.scenarios.flatMap((r) => {
    if (r.status === 'not_diagnosed' || r.status === 'error') return [`- ${r.name}: ${r.status === 'error' ? 'error' : 'not diagnosed'}: ${r.note ?? ''}`];
    return r.budgets
      .filter((b) => !b.grounding.grounded)
      .map((b) => {
        const parts = [
          ...(b.grounding.object ? [] : ['the object is not in it']),
          ...(b.grounding.evidence.missing.length === 0 ? [] : [`evidence missing: ${b.grounding.evidence.missing.map((f) => `"${f}"`).join('; ')}`]),
        ];
        const dropped = `dropped for the budget: ${b.dropped.root_causes} root causes, ${b.dropped.nodes} model nodes, ${b.dropped.documents} documents`;
        return `- ${r.name} at ${k(b.budget)} (${b.tokens} tokens): ${parts.join('; ')} (${dropped})`;
      });
  });
  if (misses.length > 0) lines.push('', 'Misses:', '', ...misses);
  return lines.join('\n') + '\n';
}
