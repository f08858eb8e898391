// An answer's text as the dashboard renders it: lines as paragraphs or list items, and within
// a line bracketed node-id citations, **bold**, `code` and _emphasis_ (the little markdown the
// copilot's answers use). Tokens, not HTML: the view builds elements from them, so nothing a
// model writes is ever interpreted as markup.

export interface CitationRef {
  id: string;
  verified: boolean;
  link: string | null;
}

export type Inline =
  | { kind: 'text' | 'bold' | 'code' | 'em'; text: string }
  /** A citation; `citation` is null while the answer streams (not yet checked) or when the server did not list it. */
  | { kind: 'cite'; id: string; citation: CitationRef | null };

export interface Block {
  kind: 'paragraph' | 'item';
  /** List nesting: 0 for a top-level item, 1 for one indented under it. */
  depth: number;
  /** The item's own number for `1.` lists; null for bullets and paragraphs. */
  number: number | null;
  inline: Inline[];
}

// A node id as the server recognises one in brackets (domain/copilot/citations.ts): kind, a colon, no spaces.
const TOKEN = /\[([a-z]+:[^\s[\]]+)\]|\*\*([^*]+)\*\*|`([^`]+)`|(?<![\w])_([^_]+)_(?![\w])/g;

export function inlineTokens(line: string, citations: ReadonlyMap<string, CitationRef> | null): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of line.matchAll(TOKEN)) {
    const at = m.index;
    if (at > last) out.push({ kind: 'text', text: line.slice(last, at) });
    if (m[1] !== undefined) out.push({ kind: 'cite', id: m[1], citation: citations?.get(m[1]) ?? null });
    else if (m[2] !== undefined) out.push({ kind: 'bold', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'code', text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: 'em', text: m[4] });
    last = at + m[0].length;
  }
  if (last < line.length) out.push({ kind: 'text', text: line.slice(last) });
  return out;
}

export function answerBlocks(text: string, citations: readonly CitationRef[] | null): Block[] {
  const byId = citations === null ? null : new Map(citations.map((c) => [c.id, c]));
  const blocks: Block[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const item = /^(\s*)(?:([-*])|(\d+)\.)\s+(.*)$/.exec(raw);
    if (item) {
      const indent = item[1]?.length ?? 0;
      blocks.push({ kind: 'item', depth: indent >= 2 ? 1 : 0, number: item[3] === undefined ? null : Number(item[3]), inline: inlineTokens(item[4] ?? '', byId) });
    } else {
      blocks.push({ kind: 'paragraph', depth: 0, number: null, inline: inlineTokens(raw.trim(), byId) });
    }
  }
  return blocks;
}
