// Diagnose on a namespace, and the stored answers (Diagnose results and SRE reports) read
// again. A Diagnose is one AI run (./run.ts) about the namespace, with or without a model,
// stored so the team can come back to it; anyone who may see the namespace may read it.
import type { CopilotEvent, DiagnoseInput, StoredAnswer, StoredAnswerList, StoredAnswersInput, StoredAnswerIdInput } from '../../schema/copilot.ts';
import type { Out } from '../../schema/common.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { ALL_NAMESPACES, namespaceRefusal } from '../namespaces/scope.ts';
import { fail, ok, type Result } from '../result.ts';
import { answerRun, prepareRun } from './run.ts';

/** What a Diagnose asks, with or without a model. */
export const diagnoseQuestion = (namespace: string) =>
  `Diagnose namespace ${namespace}: what is wrong in it, why (the chain from each root cause to what it breaks), and what a person could do about it.`;

/** A report's scope: every namespace in the AI scope (no namespace can be named `*`); any other scope is a namespace. */
export const CLUSTER_SCOPE = ALL_NAMESPACES;

const ignoreEvents = (_event: CopilotEvent) => undefined;

export async function diagnoseNamespace(input: DiagnoseInput, ctx: AuthedContext): Promise<Result<StoredAnswer>> {
  ctx.request.noteAudit({ namespace: input.namespace, request_key: input.provider_key === undefined ? 'no' : 'yes' });
  // The runtime has already refused a namespace the caller may not see (403, existing or not).
  if (!ctx.cluster.namespaces().some((ns) => ns.name === input.namespace)) return fail({ code: 'not_found', message: `no namespace ${input.namespace}` });
  const prepared = await prepareRun(
    { kind: 'diagnose', actor: ctx.principal.username, role: ctx.principal.role, question: diagnoseQuestion(input.namespace), focus: `namespace:${input.namespace}`, history: [], requestKey: input.provider_key ?? null },
    ctx,
  );
  if (!prepared.ok) return prepared;
  const answer = await answerRun(prepared.value, ignoreEvents);
  return ok(await ctx.copilot.store.saveAnswer({ kind: 'diagnose', scope: input.namespace, actor: ctx.principal.username, ...answer }));
}

/** Whether the caller may read an answer about `scope`: its namespace must be visible; a cluster report (`*`, never refused) is read by everyone. */
const readable = (ctx: HandlerContext) => (scope: string) => namespaceRefusal(ctx.cluster, scope) === null;

export async function listAnswers(input: Out<typeof StoredAnswersInput>, ctx: HandlerContext): Promise<Result<Out<typeof StoredAnswerList>>> {
  const visible = readable(ctx);
  const scopes = input.scope === undefined ? visible : (scope: string) => scope === input.scope && visible(scope);
  return ok({ items: await ctx.copilot.store.answers({ ...(input.kind ? { kind: input.kind } : {}), scopes, limit: input.limit }) });
}

export async function getAnswer(input: Out<typeof StoredAnswerIdInput>, ctx: HandlerContext): Promise<Result<StoredAnswer>> {
  const answer = await ctx.copilot.store.answer(input.id);
  // One outside the caller's namespaces is answered as absent, as any hidden object is.
  if (answer === null || !readable(ctx)(answer.scope)) return fail({ code: 'not_found', message: `no stored answer ${input.id}` });
  return ok(answer);
}
