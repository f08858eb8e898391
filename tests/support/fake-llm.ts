// A fake LLM provider for tests: plain node:http speaking the two wire protocols the copilot's
// providers use, so the real provider clients (the Vercel AI SDK's OpenAI, OpenAI-compatible,
// Azure and Anthropic packages) are what the tests exercise. It is a FAKE: no model runs here;
// each request is answered with the next scripted turn, and every request is recorded so a test
// can assert exactly what left the agent.
//
// - OpenAI Chat Completions: POST <base>/chat/completions (and Azure's
//   /openai/deployments/<name>/chat/completions). Streamed as SSE chunks of
//   `chat.completion.chunk`: `delta.role`, `delta.content` pieces, `delta.tool_calls` with the
//   id and name first and the arguments in pieces, a finish chunk, the usage chunk (when the
//   client asked `stream_options.include_usage`), then `data: [DONE]`. Non-streamed: one
//   `chat.completion`.
// - Anthropic Messages: POST <base>/messages. Streamed as named SSE events: `message_start`,
//   `content_block_start` / `content_block_delta` (`text_delta`, `input_json_delta`) /
//   `content_block_stop` per block, a `ping`, `message_delta` with the stop reason and usage,
//   `message_stop`. Non-streamed: one `message`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** One answer of the fake model: text (streamed in the given pieces) and/or tool calls. */
export interface ScriptedTurn {
  text?: string | string[];
  toolCalls?: ScriptedToolCall[];
  usage?: { input: number; output: number };
  /** Answer with this HTTP status and an error body in the protocol's shape instead. */
  failWith?: number;
  /** Wait this long before the first byte (a slow provider; a stop button's test). */
  delayMs?: number;
  /** Stream the first text piece, then wait this long before the rest (a slow model: a test sees a partial answer, or stops it mid-answer). */
  pauseAfterFirstPieceMs?: number;
}

// Unref'd: a long scripted pause must not keep a finished test process alive.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** Streams `parts` through `write`, pausing after the first one when the turn asks; false when the client left during the pause. */
async function streamPieces(res: ServerResponse, parts: string[], pauseMs: number | undefined, write: (part: string) => void): Promise<boolean> {
  for (const [i, part] of parts.entries()) {
    write(part);
    if (i === 0 && pauseMs !== undefined) {
      await sleep(pauseMs);
      if (res.destroyed || res.writableEnded) return false;
    }
  }
  return true;
}

export interface RecordedRequest {
  protocol: 'openai' | 'anthropic';
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The body exactly as it arrived. */
  raw: string;
  /** True once the client hung up before the answer was complete (a stopped run). */
  abandoned: boolean;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`; the OpenAI base URL is `${url}/v1`, Anthropic's `${url}/v1` too. */
  url: string;
  requests: RecordedRequest[];
  /** Adds turns to the end of the script. */
  script(...turns: ScriptedTurn[]): void;
  /** Turns not yet used. */
  pending(): number;
  close(): Promise<void>;
}

/** The answer when the script has run out: a plain text turn, so a test sees it rather than a hang. */
const SCRIPT_EXHAUSTED: ScriptedTurn = { text: 'fake-llm: no scripted turn left' };

function pieces(text: string | string[] | undefined): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  // Word by word, so a client sees a real stream of several deltas.
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sse(res: ServerResponse): (data: unknown, event?: string) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (data, event) => {
    res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
}

/** Splits a JSON string in a few pieces, as providers stream tool arguments. */
function jsonPieces(args: Record<string, unknown>): string[] {
  const whole = JSON.stringify(args);
  const size = Math.max(1, Math.ceil(whole.length / 3));
  const out: string[] = [];
  for (let i = 0; i < whole.length; i += size) out.push(whole.slice(i, i + size));
  return out.length === 0 ? ['{}'] : out;
}

async function answerOpenAi(res: ServerResponse, body: Record<string, unknown>, turn: ScriptedTurn, n: number): Promise<void> {
  const id = `chatcmpl-fake-${n}`;
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const created = 1_700_000_000 + n;
  const usage = { prompt_tokens: turn.usage?.input ?? 100, completion_tokens: turn.usage?.output ?? 20, total_tokens: (turn.usage?.input ?? 100) + (turn.usage?.output ?? 20) };
  const calls = (turn.toolCalls ?? []).map((c, i) => ({ ...c, id: `call_fake_${n}_${i}` }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: pieces(turn.text).join('') || null, ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) } : {}) },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
    return;
  }
  const send = sse(res);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  chunk({ role: 'assistant', content: '' });
  if (!(await streamPieces(res, pieces(turn.text), turn.pauseAfterFirstPieceMs, (p) => chunk({ content: p })))) return;
  calls.forEach((c, index) => {
    chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    for (const p of jsonPieces(c.args)) chunk({ tool_calls: [{ index, function: { arguments: p } }] });
  });
  chunk({}, finish);
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage === true) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  send('[DONE]');
  res.end();
}

async function answerAnthropic(res: ServerResponse, body: Record<string, unknown>, turn: ScriptedTurn, n: number): Promise<void> {
  const id = `msg_fake_${n}`;
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const input = turn.usage?.input ?? 100;
  const output = turn.usage?.output ?? 20;
  const text = pieces(turn.text);
  const calls = (turn.toolCalls ?? []).map((c, i) => ({ ...c, id: `toolu_fake_${n}_${i}` }));
  const stop = calls.length > 0 ? 'tool_use' : 'end_turn';
  if (body.stream !== true) {
    const content = [...(text.length > 0 ? [{ type: 'text', text: text.join('') }] : []), ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: input, output_tokens: output } }));
    return;
  }
  const send = sse(res);
  const event = (type: string, data: Record<string, unknown>) => send({ type, ...data }, type);
  event('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 } } });
  let index = 0;
  if (text.length > 0) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('ping', {});
    if (!(await streamPieces(res, text, turn.pauseAfterFirstPieceMs, (p) => event('content_block_delta', { index, delta: { type: 'text_delta', text: p } })))) return;
    event('content_block_stop', { index });
    index++;
  }
  for (const c of calls) {
    event('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
    for (const p of jsonPieces(c.args)) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } });
    event('content_block_stop', { index });
    index++;
  }
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } });
  event('message_stop', {});
  res.end();
}

function protocolOf(path: string): RecordedRequest['protocol'] | null {
  if (/\/chat\/completions$/.test(path)) return 'openai';
  if (/\/messages$/.test(path)) return 'anthropic';
  return null;
}

export async function startFakeLlm(turns: ScriptedTurn[] = []): Promise<FakeLlm> {
  const queue = [...turns];
  const requests: RecordedRequest[] = [];
  let served = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const raw = await readBody(req);
      const protocol = req.method === 'POST' ? protocolOf(path) : null;
      if (protocol === null) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake-llm: no route ${req.method ?? ''} ${path}`, type: 'not_found' } }));
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'fake-llm: body is not JSON', type: 'invalid_request_error' } }));
        return;
      }
      const recorded: RecordedRequest = { protocol, path, headers: { ...req.headers }, body, raw, abandoned: false };
      requests.push(recorded);
      res.on('close', () => {
        if (!res.writableEnded) recorded.abandoned = true;
      });
      const turn = queue.shift() ?? SCRIPT_EXHAUSTED;
      const n = ++served;
      if (turn.delayMs !== undefined) await sleep(turn.delayMs);
      if (turn.failWith !== undefined) {
        res.writeHead(turn.failWith, { 'content-type': 'application/json' });
        res.end(JSON.stringify(protocol === 'openai' ? { error: { message: `fake-llm: scripted ${turn.failWith}`, type: 'server_error', code: null } } : { type: 'error', error: { type: 'api_error', message: `fake-llm: scripted ${turn.failWith}` } }));
        return;
      }
      if (protocol === 'openai') await answerOpenAi(res, body, turn, n);
      else await answerAnthropic(res, body, turn, n);
    })().catch((err: unknown) => {
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...more) => void queue.push(...more),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fake provider for a whole test file: started in its `before`, closed in its `after`; usable in every test between. */
export function fakeLlmForFile(): FakeLlm {
  let server: FakeLlm | null = null;
  const started = (): FakeLlm => {
    if (server === null) throw new Error('the fake provider starts in before(): use it inside a test');
    return server;
  };
  before(async () => {
    server = await startFakeLlm();
  });
  after(async () => {
    await server?.close();
  });
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    script: (...turns: ScriptedTurn[]) => started().script(...turns),
    pending: () => started().pending(),
    close: () => started().close(),
  };
}
