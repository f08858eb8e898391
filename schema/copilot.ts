// The copilot's answers (docs/copilot.md): text with bracketed node-id citations, each checked
// against the nodes the run actually gave the model.
import * as v from 'valibot';

export const Citation = v.object({
  /** A cluster-model node id as the answer wrote it between brackets (`pod:shop/web-1`). */
  id: v.string(),
  /** True only when this run gave the model that node (a tool result, the context, the diagnosis). */
  verified: v.boolean(),
  /** The dashboard view of a verified node; null for an unverified one, which is never linked. */
  link: v.nullable(v.string()),
});
export type Citation = v.InferOutput<typeof Citation>;

/** How an answer was produced: by a model through the tool loop, or templated from the diagnosis with no model. */
export const AnswerSource = v.picklist(['model', 'diagnosis_without_model']);
export type AnswerSource = v.InferOutput<typeof AnswerSource>;
