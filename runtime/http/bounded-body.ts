// Counting a request body without trusting it: shared by the agent's request-shape stage and
// the dashboard's proxy, so neither ever holds more than a route's limit of someone's bytes.

/**
 * The body's size, and the request to read it from afterwards; null once it exceeds `limit`.
 * With Content-Length (and no Transfer-Encoding) the header decides without reading, since
 * Node's HTTP parser never delivers more than announced. Otherwise the stream is read up to
 * the limit and no further, and the returned request is rebuilt over the bytes read.
 */
export async function boundedBody(request: Request, limit: number): Promise<{ size: number; request: Request } | null> {
  // A Request never carries a GET or HEAD body (fetch drops it), so there is nothing to count;
  // asking for `body` would make the server build a whole Request per call just to learn that.
  if (request.method === 'GET' || request.method === 'HEAD') return { size: 0, request };
  // With Content-Length the header decides, also without touching `body`.
  const declared = request.headers.get('content-length');
  if (declared !== null && !request.headers.has('transfer-encoding')) {
    const size = Number(declared);
    return Number.isSafeInteger(size) && size >= 0 && size <= limit ? { size, request } : null;
  }
  if (request.body === null) return { size: 0, request };
  // Node's typings leave the chunk type open; a request body's chunks are bytes.
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not cancelled: that would destroy the socket before the 413 is written. The server
      // drains or drops the rest once the answer is out.
      reader.releaseLock();
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { size, request: new Request(request, { body }) };
}
