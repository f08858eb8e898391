// A copilot chat prompt: one AI run (./run.ts) with the conversation's earlier turns, kept as
// an agent session transcript (180 days).
import type { ChatInput, CopilotAnswer, CopilotEvent, CopilotStreamEvent } from '../../schema/copilot.ts';
import type { AuthedContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { StreamAnswer } from '../route.ts';
import { streamOf } from '../stream.ts';
import { answerRun, prepareRun, type PreparedRun } from './run.ts';
import type { Turn } from './service.ts';

/** Earlier turns of a conversation sent again with a new prompt. */
const HISTORY_TURNS = 10;

export interface PreparedChat {
  run: PreparedRun;
  userId: number;
  conversationId: string | null;
}

export async function prepareChat(input: ChatInput, ctx: AuthedContext): Promise<Result<PreparedChat>> {
  let history: Turn[] = [];
  if (input.conversation_id !== undefined) {
    const turns = await ctx.copilot.store.conversation(input.conversation_id, ctx.principal.userId);
    if (turns === null) return fail({ code: 'not_found', message: `no conversation ${input.conversation_id} of yours` });
    history = turns.slice(-HISTORY_TURNS);
  }
  const prepared = await prepareRun(
    { kind: 'chat', actor: ctx.principal.username, role: ctx.principal.role, question: input.question, focus: input.focus ?? null, history, requestKey: input.provider_key ?? null },
    ctx,
  );
  if (!prepared.ok) return prepared;
  return ok({ run: prepared.value, userId: ctx.principal.userId, conversationId: input.conversation_id ?? null });
}

export async function runChat(p: PreparedChat, emit: (event: CopilotEvent) => void, signal?: AbortSignal): Promise<CopilotAnswer> {
  const answer = await answerRun(p.run, emit, signal);
  const conversationId = await p.run.services.store.appendExchange(p.conversationId, p.userId, p.run.question, { text: answer.answer, citations: answer.citations, source: answer.source });
  return { conversation_id: conversationId, ...answer };
}

/**
 * POST /copilot/chat: tool steps and text as they come, then `done` with the answer and its
 * checked citations (or `error` with what failed); one JSON answer for a client that does
 * not accept text/event-stream. The run stops at its next step when the signal fires.
 */
export async function chat(input: ChatInput, ctx: AuthedContext): Promise<Result<StreamAnswer<CopilotStreamEvent, CopilotAnswer>>> {
  // The key a request carries is never written anywhere: the audit row notes only that there was one.
  ctx.request.noteAudit({ focus: input.focus ?? '(none)', request_key: input.provider_key === undefined ? 'no' : 'yes' });
  const prepared = await prepareChat(input, ctx);
  if (!prepared.ok) return prepared;
  const p = prepared.value;
  return ok({
    json: (signal) => runChat(p, () => undefined, signal),
    events: streamOf<CopilotStreamEvent>(async (emit, signal) => {
      try {
        const answer = await runChat(p, emit, signal);
        emit({ type: 'done', ...answer });
      } catch (err) {
        emit({ type: 'error', error: 'internal', message: err instanceof Error ? err.message : String(err) });
      }
    }),
  });
}
