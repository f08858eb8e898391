// Small builders the analyzers share: an evidence line, and a finding whose severity comes
// from the analyzer's own code list.
import type { Evidence } from '../../schema/diagnosis.ts';
import type { CodeSpec } from './codes.ts';
import type { DraftFinding } from './input.ts';

/** One fact about `node_id`; the engine fills the deep link. */
export const fact = (node_id: string, text: string, source: Evidence['source']): Evidence => ({ node_id, fact: text, source, link: null });

export type FindingExtra = Partial<Pick<DraftFinding, 'since' | 'attributes' | 'suspects'>>;

/** A `finding(object, namespace, code, summary, evidence, extra)` builder over one family's codes. */
export function findingBuilder(codes: readonly CodeSpec[]): (object: string, namespace: string | null, code: string, summary: string, evidence: Evidence[], extra?: FindingExtra) => DraftFinding {
  return (object, namespace, code, summary, evidence, extra = {}) => ({
    id: `${object}#${code}`,
    code,
    severity: codes.find((c) => c.code === code)?.severity ?? 'warning',
    object,
    namespace,
    summary,
    evidence,
    since: extra.since ?? null,
    attributes: extra.attributes ?? {},
    suspects: extra.suspects ?? [],
  });
}
