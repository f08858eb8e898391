// What the copilot said and sent, read again: a user's own conversations (agent session
// transcripts, 180 days), and for admins the prompt audit (what each run sent to a provider and
// what came back, redacted, kept `prompt_audit.retention_days`).
import type { Out } from '../../schema/common.ts';
import type { Conversation, ConversationIdInput, ConversationList, PromptLog, PromptLogInput } from '../../schema/copilot.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

/** Conversations listed at once (the most recent). */
const CONVERSATIONS_LISTED = 100;

export async function listConversations(_input: object, ctx: AuthedContext): Promise<Result<Out<typeof ConversationList>>> {
  return ok({ items: await ctx.copilot.store.conversations(ctx.principal.userId, CONVERSATIONS_LISTED) });
}

export async function getConversation(input: Out<typeof ConversationIdInput>, ctx: AuthedContext): Promise<Result<Conversation>> {
  const conversation = await ctx.copilot.store.transcript(input.id, ctx.principal.userId);
  return conversation === null ? fail({ code: 'not_found', message: `no conversation ${input.id} of yours` }) : ok(conversation);
}

export async function readPromptLog(input: Out<typeof PromptLogInput>, ctx: HandlerContext): Promise<Result<Out<typeof PromptLog>>> {
  const items = await ctx.copilot.store.promptLog({ limit: input.limit, ...(input.before !== undefined ? { before: input.before } : {}) });
  return ok({ items, retention_days: (await ctx.runtimeSettings.get('ai_guardrails')).prompt_audit.retention_days });
}
