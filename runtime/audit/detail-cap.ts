// A chained audit row is kept for a year, and part of its detail comes from the request (the
// path, the query). Capping what is stored keeps one request from writing megabytes that
// nobody can purge short of breaking the chain's anchor.

/** Characters kept of one detail value. */
export const MAX_DETAIL_VALUE_CHARS = 1024;
/** Characters kept of all values together; fields past it are dropped and counted. */
export const MAX_DETAIL_CHARS = 8192;

function truncated(value: string, keep: number): string {
  if (value.length <= keep) return value;
  // Room for the marker is reserved first; the count it names never has more digits than the length.
  const kept = Math.max(0, keep - `…[truncated ${value.length} chars]`.length);
  return `${value.slice(0, kept)}…[truncated ${value.length - kept} chars]`;
}

/** Each value at most MAX_DETAIL_VALUE_CHARS, all of them at most MAX_DETAIL_CHARS, saying what was cut. */
export function capDetail(detail: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  let budget = MAX_DETAIL_CHARS;
  let dropped = 0;
  for (const [key, value] of Object.entries(detail)) {
    const room = Math.min(MAX_DETAIL_VALUE_CHARS, budget);
    if (room < 64 && value.length > room) {
      dropped++;
      continue;
    }
    const kept = truncated(value, room);
    out[key] = kept;
    budget -= kept.length + key.length;
  }
  if (dropped > 0) out.truncated = `${dropped} fields dropped: the detail is capped at ${MAX_DETAIL_CHARS} characters`;
  return out;
}
