// AI Context (spec §1): admin-curated markdown the copilot searches on demand (`search_context`)
// and, for documents marked include-in-AI, attaches to every run as standing instructions.
// Anyone signed in may read them (they shape every answer); only an admin's session may write.
// Suppression a document asks for is an instruction to the model, not a filter: the answer
// must name what it left out, and nothing new or critical may be left out (docs/copilot.md).
import type { Out } from '../../schema/common.ts';
import { DOCUMENTS_SHARE, estimateTokens } from '../../domain/copilot/context.ts';
import { AI_CONTEXT_LIMITS, type AiContextDoc, type AiContextDocDeleted, type AiContextDocIdInput, type AiContextDocInput, type AiContextDocList, type AiContextDocUpdateInput } from '../../schema/copilot.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { CONTEXT_BUDGET_TOKENS } from './run.ts';

export const SUPPRESSION_NOTE =
  'Documents marked include-in-AI are sent with every AI run as standing instructions. If one asks the model to ignore or play something down, that is an instruction to the model, not a filter Capstan enforces: the model is told to name anything it leaves out because of a document, and never to leave out something that looks new or critical.';

export async function listDocuments(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AiContextDocList>>> {
  const items = await ctx.copilot.documents.list();
  const standing = await ctx.copilot.store.standingDocuments();
  return ok({
    items,
    limits: { ...AI_CONTEXT_LIMITS },
    standing: { documents: standing.length, tokens: standing.reduce((n, d) => n + estimateTokens(`### ${d.title}\n${d.body}`) + 1, 0), budget_tokens: Math.floor(CONTEXT_BUDGET_TOKENS * DOCUMENTS_SHARE) },
    note: SUPPRESSION_NOTE,
  });
}

export async function getDocument(input: Out<typeof AiContextDocIdInput>, ctx: HandlerContext): Promise<Result<AiContextDoc>> {
  const doc = await ctx.copilot.documents.get(input.id);
  return doc === null ? fail({ code: 'not_found', message: `no AI Context document ${input.id}` }) : ok(doc);
}

export async function createDocument(input: AiContextDocInput, ctx: AuthedContext): Promise<Result<AiContextDoc>> {
  if ((await ctx.copilot.documents.count()) >= AI_CONTEXT_LIMITS.max_documents) {
    return fail({ code: 'invalid_input', field: 'title', message: `AI Context holds at most ${AI_CONTEXT_LIMITS.max_documents} documents; delete one first` });
  }
  const created = await ctx.copilot.documents.create(input, ctx.principal.username);
  if (!created.ok) return created;
  const doc = created.value;
  ctx.request.noteAudit({ document: String(doc.id), title: doc.title, include_in_ai: String(doc.include_in_ai) });
  return ok(doc);
}

export async function updateDocument(input: Out<typeof AiContextDocUpdateInput>, ctx: AuthedContext): Promise<Result<AiContextDoc>> {
  const { id, ...doc } = input;
  const updated = await ctx.copilot.documents.update(id, doc, ctx.principal.username);
  if (updated.ok) ctx.request.noteAudit({ document: String(id), title: updated.value.title, include_in_ai: String(updated.value.include_in_ai) });
  return updated;
}

export async function deleteDocument(input: Out<typeof AiContextDocIdInput>, ctx: AuthedContext): Promise<Result<Out<typeof AiContextDocDeleted>>> {
  if (!(await ctx.copilot.documents.remove(input.id))) return fail({ code: 'not_found', message: `no AI Context document ${input.id}` });
  ctx.request.noteAudit({ document: String(input.id) });
  return ok({ deleted: input.id });
}
