// Counting a request body without trusting it: shared by the agent's request-shape stage and
// the dashboard's proxy, so neither ever holds more than a route's limit of someone's bytes.

/**
 * The body's size, and the request to read it from afterwards; null once it exceeds `limit`.
 * With Content-Length (and no Transfer-Encoding) the header decides without reading, since
 * Node's HTTP parser never delivers more than announced. Otherwise the stream is read up to
 * the limit and no further, and the returned request is rebuilt over the bytes read.
 */
export async function boundedBody(request: Request, limit: number): Promise<{ size: number; request: Request } | null> {
  const declared = request.headers.get('content-length');
  // A GET or HEAD with neither length header has no body (RFC 9112 §6.3), and asking for
  // `body` would make the server build a whole Request per read just to learn that.
  if (declared === null && (request.method === 'GET' || request.method === 'HEAD') && !request.headers.has('transfer-encoding')) return { size: 0, request };
  if (request.body === null) return { size: 0, request };
  if (declared !== null && !request.headers.has('transfer-encoding')) {
    const size = Number(declared);
    return Number.isSafeInteger(size) && size >= 0 && size <= limit ? { size, request } : null;
  }
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
