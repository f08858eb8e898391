// Grounding recall (`npm run bench:copilot`): is a root cause inside the context a run sends, so a
// model could name it and its evidence without calling a tool? Measured on the text, not on the
// node ids collected while assembling, because the text is what the model reads. The definition
// (docs/copilot.md, "Grounding recall"):
// - the object is inside when its node id appears as a whole id: neither side touches a character
//   an id may continue with, so `pod:shop/api-1` is not found in `pod:shop/api-10`, nor inside a
//   problem id (`problem:pod:shop/api-1#Code`), nor in a line cut off mid-id;
// - the evidence is inside when every evidence item's fact appears verbatim, as written or as a
//   JSON string escapes it (the context's facts are JSON lines). A finding without evidence has
//   none to miss.
import type { Finding } from '../../schema/diagnosis.ts';

export interface Grounding {
  object: boolean;
  evidence: { total: number; present: number; missing: string[] };
  /** The object and every evidence fact are inside. */
  grounded: boolean;
}

/** Characters a node id may contain (kinds, DNS names, image references, the problem-id `#`). */
const ID_CHAR = /[A-Za-z0-9._\-/:@#]/;

/** `id` occurs in `text` as a whole id at least once. */
export function containsId(text: string, id: string): boolean {
  if (id === '') return false;
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    const before = at === 0 ? '' : (text[at - 1] ?? '');
    const after = text[at + id.length] ?? '';
    if (!ID_CHAR.test(before) && !ID_CHAR.test(after)) return true;
  }
  return false;
}

/** `fact` occurs verbatim in `text`, as written or JSON-escaped (quotes, backslashes, newlines). */
export function containsFact(text: string, fact: string): boolean {
  return text.includes(fact) || text.includes(JSON.stringify(fact).slice(1, -1));
}

export function groundingOf(text: string, root: Finding): Grounding {
  const object = containsId(text, root.object);
  const missing = root.evidence.map((e) => e.fact).filter((fact) => !containsFact(text, fact));
  const total = root.evidence.length;
  return { object, evidence: { total, present: total - missing.length, missing }, grounded: object && missing.length === 0 };
}
