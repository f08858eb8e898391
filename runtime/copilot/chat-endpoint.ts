// POST /copilot/chat: the copilot's answer as Server-Sent Events (or one JSON answer). Its policy
// is the declared route (handlers/copilot/routes.ts), applied by the runtime's chain before this
// runs; the body is parsed here because the answer streams.
import * as v from 'valibot';
import { prepareChat, runChat } from '../../handlers/copilot/chat.ts';
import { copilotChatRoute } from '../../handlers/copilot/routes.ts';
import type { AuthedContext, HandlerContext } from '../../handlers/context.ts';
import type { AppError } from '../../handlers/result.ts';
import { ChatInput, type CopilotEvent, type CopilotStreamEvent } from '../../schema/copilot.ts';
import type { RawEndpoint } from '../http/app.ts';
import { errorBody, STATUS_OF } from '../http/status.ts';

function errorAnswer(error: AppError): Response {
  return new Response(JSON.stringify(errorBody(error)), { status: STATUS_OF[error.code], headers: { 'content-type': 'application/json' } });
}

/** One SSE message; its `event:` name is the event's type, so a client may read either. */
const sse = (event: CopilotStreamEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

async function handleChat(request: Request, ctx: HandlerContext): Promise<Response> {
  const principal = ctx.principal;
  if (principal === null) return errorAnswer({ code: 'unauthenticated', message: 'sign in first' });
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return errorAnswer({ code: 'invalid_input', field: 'body', message: 'the body must be a JSON object' });
  }
  const parsed = v.safeParse(ChatInput, body);
  if (!parsed.success) {
    const field = v.getDotPath(parsed.issues[0]) ?? 'body';
    return errorAnswer({ code: 'invalid_input', field, message: `${field}: ${parsed.issues[0].message}` });
  }
  const authed: AuthedContext = { ...ctx, principal };
  // The key a request carries is never written anywhere: the audit row notes only that there was one.
  ctx.request.noteAudit({ focus: parsed.output.focus ?? '(none)', request_key: parsed.output.provider_key === undefined ? 'no' : 'yes' });
  const prepared = await prepareChat(parsed.output, authed);
  if (!prepared.ok) return errorAnswer(prepared.error);
  if (!(request.headers.get('accept') ?? '').includes('text/event-stream')) {
    const answer = await runChat(prepared.value, () => undefined, request.signal);
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  }
  const encoder = new TextEncoder();
  const abort = new AbortController();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: CopilotStreamEvent) => {
        if (!abort.signal.aborted) controller.enqueue(encoder.encode(sse(event)));
      };
      try {
        const answer = await runChat(prepared.value, (e: CopilotEvent) => send(e), abort.signal);
        send({ type: 'done', ...answer });
      } catch (err) {
        send({ type: 'error', ...errorBody({ code: 'internal', message: err instanceof Error ? err.message : String(err) }) });
      } finally {
        if (!abort.signal.aborted) controller.close();
      }
    },
    // The client went away (the dock's stop button): the run stops at its next step.
    cancel() {
      abort.abort();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

export const copilotChatEndpoint: RawEndpoint = { route: copilotChatRoute, methods: ['POST'], paths: ['/copilot/chat'], handle: handleChat, documented: true };
