// The copilot with no model: "Diagnose" and "what is wrong" answered from the diagnosis engine
// as a templated explanation, every statement cited with the node it was read from, and
// labelled as produced without a model. Deterministic: the same diagnosis, the same text.
import type { Diagnosis, DiagnosisDetail, Finding, RootCause } from '../../schema/diagnosis.ts';

/** The first line of every answer produced without a model, so nobody mistakes it for one. */
export const WITHOUT_MODEL_LABEL = '_Produced without a model: from Capstan\'s diagnosis engine (deterministic rules over the live cluster); no AI provider was used._';

/** Root causes written out in full; the rest are listed by one line each. */
const DETAILED_ROOTS = 5;
/** Evidence lines per finding, and effects named per root. */
const EVIDENCE_LINES = 4;
const EFFECTS_NAMED = 5;

const cite = (id: string) => `[${id}]`;

function evidenceLines(f: Finding): string[] {
  const lines = f.evidence.slice(0, EVIDENCE_LINES).map((e) => `  - ${e.fact} ${cite(e.node_id)} (${e.source})`);
  if (f.evidence.length > EVIDENCE_LINES) lines.push(`  - and ${f.evidence.length - EVIDENCE_LINES} more evidence lines`);
  return lines;
}

function since(f: Finding): string {
  return f.since === null ? '' : ` since ${f.since}`;
}

function rootSection(root: RootCause, n: number): string[] {
  const f = root.finding;
  const lines = [`${n}. **${f.summary}** ${cite(f.object)}: \`${f.code}\`, ${f.severity}${since(f)}.`, ...evidenceLines(f)];
  if (root.also.length > 0) lines.push(`  - The same on ${root.also.length} more: ${root.also.slice(0, EFFECTS_NAMED).map(cite).join(', ')}${root.also.length > EFFECTS_NAMED ? ', …' : ''}.`);
  if (root.effects.length > 0) {
    const named = root.effects.slice(0, EFFECTS_NAMED).map((e) => `${e.summary} ${cite(e.object)}`);
    lines.push(`  - It explains ${root.effects.length} ${root.effects.length === 1 ? 'effect' : 'effects'}: ${named.join('; ')}${root.effects.length > EFFECTS_NAMED ? '; …' : ''}.`);
  }
  return lines;
}

/** What is wrong in `scope` (a namespace, or the whole visible cluster), from a diagnosis already cut to what the caller may see. */
export function explainDiagnosis(d: Diagnosis, scope: string): string {
  const lines = [WITHOUT_MODEL_LABEL, ''];
  if (d.root_causes.length === 0) {
    lines.push(`No root cause found in ${scope}: every object the diagnosis reads is healthy as of ${d.generated_at}.`);
  } else {
    const critical = d.root_causes.filter((r) => r.finding.severity === 'critical').length;
    lines.push(`${d.root_causes.length} root ${d.root_causes.length === 1 ? 'cause' : 'causes'} in ${scope} (${critical} critical), most severe and widest-reaching first, as of ${d.generated_at}:`, '');
    d.root_causes.slice(0, DETAILED_ROOTS).forEach((root, i) => lines.push(...rootSection(root, i + 1)));
    const rest = d.root_causes.slice(DETAILED_ROOTS);
    if (rest.length > 0) lines.push('', `Also: ${rest.map((r) => `${r.finding.summary} ${cite(r.finding.object)}`).join('; ')}.`);
  }
  if (d.hidden_causes.length > 0) lines.push('', `${d.hidden_causes.length} ${d.hidden_causes.length === 1 ? 'problem is' : 'problems are'} caused from a namespace you may not see; the cause is not named.`);
  for (const s of d.silent) lines.push('', `Not checked: ${s.resource} (${s.reason}).`);
  if (d.notes.length > 0) lines.push('', `History (not current problems): ${d.notes.slice(0, EFFECTS_NAMED).map((n) => `${n.summary} ${cite(n.object)}`).join('; ')}.`);
  return lines.join('\n');
}

/** Why one object is unhealthy: its findings, the chain to the root cause, what it causes. */
export function explainObject(d: DiagnosisDetail): string {
  const lines = [WITHOUT_MODEL_LABEL, ''];
  if (d.healthy) {
    lines.push(`${cite(d.object)} has no finding: the diagnosis reads it as healthy as of ${d.generated_at}.`);
    return lines.join('\n');
  }
  lines.push(`${cite(d.object)}:`, '');
  for (const f of d.findings) lines.push(`- **${f.summary}**: \`${f.code}\`, ${f.severity}${since(f)}.`, ...evidenceLines(f));
  const upstream = d.chain.slice(1);
  if (upstream.length > 0) {
    lines.push('', 'Why, step by step:');
    for (const f of upstream) lines.push(`- because ${f.summary} ${cite(f.object)} (\`${f.code}\`)`, ...evidenceLines(f));
  }
  if (d.cause_hidden) lines.push('', 'The cause lies in a namespace you may not see; it is not named.');
  else if (d.root_cause !== null && d.root_cause.object !== d.object) lines.push('', `Root cause: ${d.root_cause.summary} ${cite(d.root_cause.object)}.`);
  else if (d.root_cause !== null) lines.push('', 'This object is itself the root cause.');
  if (d.effects.length > 0) lines.push('', `It causes ${d.effects.length} ${d.effects.length === 1 ? 'problem' : 'problems'} elsewhere: ${d.effects.slice(0, EFFECTS_NAMED).map((e) => `${e.summary} ${cite(e.object)}`).join('; ')}${d.effects.length > EFFECTS_NAMED ? '; …' : ''}.`);
  return lines.join('\n');
}
