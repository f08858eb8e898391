// The scenario benchmark's results: one JSON document and one markdown table.
import type { ScenarioResult } from './harness.ts';

export interface DiagnosisBenchReport {
  generated_at: string;
  machine: string;
  totals: {
    scenarios: number;
    passed: number;
    top1: number;
    top1_rate: number;
    effects_expected: number;
    effects_found: number;
    effects_rate: number;
    false_alarms: number;
    errors: number;
    median_seconds_to_diagnosis: number | null;
    /** Scenarios whose `/incidents` and `/diagnosis` were compared at the end, and how many of them disagreed. */
    incidents_checked: number;
    incidents_disagreed: number;
  };
  scenarios: ScenarioResult[];
}

const rate = (n: number, d: number) => (d === 0 ? 1 : Math.round((n / d) * 1000) / 1000);

export function buildReport(results: readonly ScenarioResult[], machine: string, now = new Date()): DiagnosisBenchReport {
  const seconds = results.flatMap((r) => (r.secondsToDiagnosis === null ? [] : [r.secondsToDiagnosis])).sort((a, b) => a - b);
  const top1 = results.filter((r) => r.score?.top1 === true).length;
  const effectsExpected = results.reduce((n, r) => n + r.effectsExpected, 0);
  const effectsFound = results.reduce((n, r) => n + (r.score?.effects.found ?? 0), 0);
  return {
    generated_at: now.toISOString(),
    machine,
    totals: {
      scenarios: results.length,
      passed: results.filter((r) => r.score?.pass === true && r.error === null).length,
      top1,
      top1_rate: rate(top1, results.length),
      effects_expected: effectsExpected,
      effects_found: effectsFound,
      effects_rate: rate(effectsFound, effectsExpected),
      false_alarms: results.reduce((n, r) => n + (r.score?.falseAlarms.length ?? 0), 0),
      errors: results.filter((r) => r.error !== null).length,
      median_seconds_to_diagnosis: seconds.length === 0 ? null : (seconds[Math.floor((seconds.length - 1) / 2)] ?? null),
      incidents_checked: results.filter((r) => r.incidentDisagreements !== null).length,
      incidents_disagreed: results.filter((r) => (r.incidentDisagreements?.length ?? 0) > 0).length,
    },
    scenarios: [...results],
  };
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** One row per scenario, then what went wrong where something did. */
export function markdownTable(report: DiagnosisBenchReport): string {
  const t = report.totals;
  const lines = [
    '| scenario | code | expected culprit | got | top-1 | effects | false alarms | incidents agree | s to diagnosis |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of report.scenarios) {
    const s = r.score;
    const got = r.error !== null && s === null ? `error` : s?.got ? `${s.got.code} ${s.got.object}` : '(none)';
    lines.push(
      `| ${cell(r.name)} | ${r.code} | ${cell(r.expected ?? '(history only)')} | ${cell(got)} | ${s?.top1 ? 'yes' : '**no**'} | ${s ? `${s.effects.found}/${s.effects.expected}` : `–/${r.effectsExpected}`} | ${s ? (s.falseAlarms.length === 0 ? '0' : `**${s.falseAlarms.length}**`) : '–'} | ${r.incidentDisagreements === null ? '–' : r.incidentDisagreements.length === 0 ? 'yes' : '**no**'} | ${r.secondsToDiagnosis ?? '–'} |`,
    );
  }
  lines.push(
    `| **total** | | | | **${t.top1}/${t.scenarios}** (${Math.round(t.top1_rate * 100)} %) | ${t.effects_found}/${t.effects_expected} | ${t.false_alarms} | ${t.incidents_checked - t.incidents_disagreed}/${t.incidents_checked} | median ${t.median_seconds_to_diagnosis ?? '–'} |`,
  );
  const problems = report.scenarios.flatMap((r) => {
    const out: string[] = [];
    if (r.error !== null) out.push(`- ${r.name}: ${r.error}`);
    for (const line of r.incidentDisagreements ?? []) out.push(`- ${r.name}: incidents disagree: ${line}`);
    const s = r.score;
    if (!s) return out;
    if (!s.top1) out.push(`- ${r.name}: expected ${r.code} on ${r.expected ?? '(no root cause)'}, first root cause ${s.got ? `${s.got.code} on ${s.got.object}` : 'none'}`);
    if (s.effects.missing.length > 0) out.push(`- ${r.name}: effects not attributed: ${s.effects.missing.join(', ')}`);
    if (s.notes.missing.length > 0) out.push(`- ${r.name}: notes missing: ${s.notes.missing.join(', ')}`);
    for (const a of s.falseAlarms) out.push(`- ${r.name}: false alarm (${a.why === 'quiet' ? 'on a quiet object' : 'unexpected root cause'}): ${a.severity} ${a.code} on ${a.object}`);
    return out;
  });
  if (problems.length > 0) lines.push('', ...problems);
  return lines.join('\n') + '\n';
}

export function markdownReport(report: DiagnosisBenchReport): string {
  const t = report.totals;
  return [
    '# Diagnosis scenarios',
    '',
    `\`npm run bench:diagnosis\`: ${t.scenarios} scenarios from \`tests/diagnosis/\`, all at once on one local control plane, ${report.machine}; generated ${report.generated_at}.`,
    'Top-1: the first root cause of the scenario\'s answer (`GET /diagnosis?namespace=`, plus root causes on the nodes, volumes and classes it made) is the expected code on the expected object. Effects: expected effects found under that root. False alarms: critical or warning findings on objects that must stay quiet, and root causes nobody expected. Incidents agree: at the end, every pod incident (`GET /incidents?namespace=`) is that pod\'s own first problem finding in the diagnosis (`GET /diagnosis/{id}`: code, severity and root), and every pod the diagnosis shows a problem on has its incident. Seconds: from the objects being applied to the first answer with the right top root cause.',
    '',
    `**${t.passed}/${t.scenarios} scenarios fully right; top-1 ${Math.round(t.top1_rate * 100)} %, effects attributed ${Math.round(t.effects_rate * 100)} %, ${t.false_alarms} false alarms${t.errors > 0 ? `, ${t.errors} errors` : ''}; incidents agree with the diagnosis in ${t.incidents_checked - t.incidents_disagreed}/${t.incidents_checked}.**`,
    '',
    markdownTable(report),
  ].join('\n');
}
