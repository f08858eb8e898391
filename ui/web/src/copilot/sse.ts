// Server-Sent Events as the copilot's chat sends them (one JSON `data:` line per message, an
// `event:` name equal to its type): a fetch body read incrementally, since EventSource cannot
// POST. Pure apart from reading the stream, so the framing is unit-tested without a browser.

/** Splits what has arrived so far into complete messages' data and the unfinished rest. */
export function splitMessages(buffer: string): { data: string[]; rest: string } {
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  const data: string[] = [];
  for (const block of blocks) {
    // Per the SSE format, a message's data is its `data:` lines joined by newlines; other fields are ignored.
    const lines = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (lines.length > 0) data.push(lines.join('\n'));
  }
  return { data, rest };
}

/** Every message's data, parsed as JSON, as it arrives; ends with the stream. */
export async function* readMessages(body: ReadableStream<Uint8Array>): AsyncGenerator {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const { data, rest } = splitMessages(done ? `${buffer}\n\n` : buffer);
      buffer = rest;
      for (const d of data) yield JSON.parse(d) as unknown;
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
