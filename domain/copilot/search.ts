// AI Context search, as the copilot's `search_context` tool runs it: the documents whose title
// or body contain the query's words, most matches first (a title match counts three times), each
// with an excerpt around its first match. Plain word matching, no index: there are at most a
// hundred documents of at most 20,000 characters (schema/copilot.ts AI_CONTEXT_LIMITS).

export interface SearchableDocument {
  id: number;
  title: string;
  body: string;
}

export interface DocumentHit {
  id: number;
  title: string;
  score: number;
  excerpt: string;
  /** Whether the excerpt is the whole body. */
  whole: boolean;
}

/** Words of two or more letters or digits, lower-cased, each once. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]+/gu) ?? [])];
}

function occurrences(text: string, word: string): number {
  let n = 0;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + word.length)) n++;
  return n;
}

export function searchDocuments(docs: readonly SearchableDocument[], query: string, opts: { limit: number; excerptChars: number }): DocumentHit[] {
  const words = queryWords(query);
  if (words.length === 0) return [];
  const hits: DocumentHit[] = [];
  for (const doc of docs) {
    const title = doc.title.toLowerCase();
    const body = doc.body.toLowerCase();
    const score = words.reduce((sum, w) => sum + 3 * occurrences(title, w) + occurrences(body, w), 0);
    if (score === 0) continue;
    const whole = doc.body.length <= opts.excerptChars;
    let excerpt = doc.body;
    if (!whole) {
      const first = Math.min(...words.map((w) => body.indexOf(w)).filter((i) => i !== -1), body.length);
      const start = first === body.length ? 0 : Math.max(0, first - Math.floor(opts.excerptChars / 4));
      excerpt = `${start > 0 ? '…' : ''}${doc.body.slice(start, start + opts.excerptChars)}…`;
    }
    hits.push({ id: doc.id, title: doc.title, score, excerpt, whole });
  }
  return hits.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, opts.limit);
}
