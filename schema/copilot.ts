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

/** The providers AI Settings offers, each through the Vercel AI SDK (docs/copilot.md). */
export const PROVIDERS = ['openai', 'anthropic', 'azure', 'openai_compatible', 'ollama'] as const;
export const ProviderName = v.picklist(PROVIDERS);
export type ProviderName = v.InferOutput<typeof ProviderName>;

const HttpUrl = v.pipe(v.string(), v.maxLength(2048), v.url('must be a URL'), v.regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//, 'must be an http or https URL'));
const ModelName = v.pipe(v.string(), v.minLength(1, 'model must not be empty'), v.maxLength(200));

/** AI Settings as an admin writes them. `api_key`: absent or `••••` keeps the stored key, null removes it, text replaces it. */
export const AiSettingsInput = v.object({
  provider: v.nullable(ProviderName),
  model: v.optional(ModelName, 'default'),
  base_url: v.optional(v.nullable(HttpUrl), null),
  api_key: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4096)))),
});

/** AI Settings as every answer shows them: the key never, only whether one is stored (`••••`). */
export const AiSettingsView = v.object({
  provider: v.nullable(ProviderName),
  model: v.string(),
  base_url: v.nullable(v.string()),
  api_key: v.nullable(v.literal('••••')),
  /** Whether a run would reach a model now; false: chat and Diagnose answer from the diagnosis without one. */
  model_ready: v.boolean(),
  /** Why not, when not: no provider, AI switched off, the residency rule or the egress allowlist. */
  reason: v.nullable(v.string()),
});

const NamespaceName = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name'), v.maxLength(63));
const Host = v.pipe(v.string(), v.regex(/^(\*\.)?[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?$/, 'must be a host name, optionally *.domain'), v.maxLength(253));
const Count = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max));

/** AI Guardrails (spec §1): what every AI run may do, send and spend. */
export const AiGuardrails = v.object({
  /** The master switch: off, every AI-backed call answers 403; MCP read tools keep working. */
  enabled: v.boolean(),
  /** local_only: only a local provider (no key, a private endpoint) may be used. */
  residency: v.picklist(['any', 'local_only']),
  /** Namespaces AI runs may read; empty: every namespace the caller may see. */
  namespace_scope: v.pipe(v.array(NamespaceName), v.maxLength(500)),
  redaction: v.object({
    enabled: v.boolean(),
    /** Extra literals (never patterns) hidden in everything sent to a provider, case-insensitive. */
    extra_literals: v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))), v.maxLength(50)),
  }),
  /** MCP tools removed from the MCP list and the copilot, and refused if called. */
  denied_tools: v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.maxLength(100)),
  /** Provider hosts a prompt may go to; empty: any. */
  egress_allowlist: v.pipe(v.array(Host), v.maxLength(50)),
  prompt_audit: v.object({ enabled: v.boolean(), retention_days: v.pipe(Count(365), v.minValue(1)) }),
  cost_caps: v.object({
    /** Tokens (input + output) per actor per day; 0: unlimited. */
    daily_tokens_per_actor: Count(1_000_000_000),
    /** Tokens per day for the whole install; 0: unlimited. */
    daily_tokens_install: Count(1_000_000_000),
    /** AI runs per viewer per day (admins not counted); 0: unlimited. */
    viewer_ai_daily_limit: Count(100_000),
  }),
});
export type AiGuardrails = v.InferOutput<typeof AiGuardrails>;

export const DEFAULT_GUARDRAILS: AiGuardrails = {
  enabled: true,
  residency: 'any',
  namespace_scope: [],
  redaction: { enabled: true, extra_literals: [] },
  denied_tools: [],
  egress_allowlist: [],
  prompt_audit: { enabled: true, retention_days: 30 },
  cost_caps: { daily_tokens_per_actor: 0, daily_tokens_install: 0, viewer_ai_daily_limit: 50 },
};

const NodeIdText = v.pipe(v.string(), v.maxLength(600), v.regex(/^[a-z]+:\S+$/, 'must be a node id such as pod:shop/checkout-1'));

/** A chat prompt. `provider_key`: a key for this request only, never stored, logged or audited. */
export const ChatInput = v.object({
  question: v.pipe(v.string(), v.trim(), v.minLength(1, 'question must not be empty'), v.maxLength(4000)),
  /** What the question is about: a node id, or a namespace as `namespace:<name>`. */
  focus: v.optional(v.nullable(NodeIdText), null),
  /** Continue this conversation (one of yours); absent: a new one. */
  conversation_id: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a conversation id'))),
  provider_key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
});
export type ChatInput = v.InferOutput<typeof ChatInput>;

export const Usage = v.object({ input_tokens: v.number(), output_tokens: v.number() });

export const RunFinish = v.picklist(['stop', 'length', 'max_steps', 'aborted', 'error']);

/** What a run streams while it works (Server-Sent Events, one event per item, `event:` its type). */
export const CopilotEvent = v.variant('type', [
  v.object({ type: v.literal('tool-call'), id: v.string(), name: v.string(), args: v.unknown() }),
  v.object({ type: v.literal('tool-result'), id: v.string(), name: v.string(), ok: v.boolean(), chars: v.number() }),
  v.object({ type: v.literal('text'), delta: v.string() }),
  v.object({ type: v.literal('step'), n: v.number(), input_tokens: v.number(), output_tokens: v.number() }),
]);
export type CopilotEvent = v.InferOutput<typeof CopilotEvent>;

/** A finished answer: the last event of a stream (`done`), or the whole JSON answer. */
export const CopilotAnswer = v.object({
  conversation_id: v.nullable(v.string()),
  answer: v.string(),
  citations: v.array(Citation),
  source: AnswerSource,
  /** The provider and model that answered; null without a model. */
  model: v.nullable(v.string()),
  usage: Usage,
  steps: v.number(),
  tool_calls: v.number(),
  finish: RunFinish,
  /** The provider's error, redacted, when the run failed after it started. */
  error: v.nullable(v.string()),
});
export type CopilotAnswer = v.InferOutput<typeof CopilotAnswer>;

/**
 * Every Server-Sent Event of a streamed chat, by its `type` (also its SSE `event:` name): the
 * run's events as they happen, then exactly one `done` (the finished answer) or `error` (the
 * run failed after the stream started; a refusal before it is an ordinary error answer).
 */
export const CopilotStreamEvent = v.variant('type', [
  ...CopilotEvent.options,
  v.object({ type: v.literal('done'), ...CopilotAnswer.entries }),
  v.object({ type: v.literal('error'), error: v.string(), message: v.string() }),
]);
export type CopilotStreamEvent = v.InferOutput<typeof CopilotStreamEvent>;

const NamespaceParam = v.pipe(v.string(), v.regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name'), v.maxLength(63));

/** Diagnose a namespace: the copilot's account of what is wrong in it, stored to be read again. */
export const DiagnoseInput = v.object({
  namespace: NamespaceParam,
  /** A key for this request only, never stored, logged or audited. */
  provider_key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
});
export type DiagnoseInput = v.InferOutput<typeof DiagnoseInput>;

/** What a stored answer answered: a namespace's Diagnose or a scheduled SRE report. */
export const StoredAnswerKind = v.picklist(['diagnose', 'report']);
export type StoredAnswerKind = v.InferOutput<typeof StoredAnswerKind>;

/** A Diagnose result or an SRE report, as stored (kept until deleted: user-requested content). */
export const StoredAnswer = v.object({
  id: v.string(),
  kind: StoredAnswerKind,
  /** The namespace a Diagnose was about; `*` for a report over every namespace in scope. */
  scope: v.string(),
  actor: v.string(),
  created_at: v.string(),
  ...v.omit(CopilotAnswer, ['conversation_id']).entries,
});
export type StoredAnswer = v.InferOutput<typeof StoredAnswer>;

export const StoredAnswerSummary = v.object({
  ...v.pick(StoredAnswer, ['id', 'kind', 'scope', 'actor', 'created_at', 'source']).entries,
  /** The answer's first line, cut to 200 characters. */
  headline: v.string(),
});
export type StoredAnswerSummary = v.InferOutput<typeof StoredAnswerSummary>;

/** A query's `limit`: 1–100, `fallback` when absent. */
const PageLimit = (fallback: string) => v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, 'limit must be 1–100'), v.transform(Number), v.minValue(1, 'limit must be 1–100'), v.maxValue(100, 'limit must be 1–100')), fallback);

export const StoredAnswersInput = v.object({
  kind: v.optional(StoredAnswerKind),
  scope: v.optional(v.pipe(v.string(), v.maxLength(63))),
  limit: PageLimit('50'),
});
export const StoredAnswerList = v.object({ items: v.array(StoredAnswerSummary) });
export const StoredAnswerIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be an answer id')) });

/** AI Context caps (docs/copilot.md): documents in all, characters of a title and of a body. */
export const AI_CONTEXT_LIMITS = { max_documents: 100, max_title_chars: 120, max_body_chars: 20_000 } as const;

/** An AI Context document as an admin writes it: markdown, and whether every run gets it as a standing instruction. */
export const AiContextDocInput = v.object({
  title: v.pipe(v.string(), v.trim(), v.minLength(1, 'title must not be empty'), v.maxLength(AI_CONTEXT_LIMITS.max_title_chars, `title must be at most ${AI_CONTEXT_LIMITS.max_title_chars} characters`)),
  body: v.pipe(v.string(), v.maxLength(AI_CONTEXT_LIMITS.max_body_chars, `body must be at most ${AI_CONTEXT_LIMITS.max_body_chars} characters`)),
  include_in_ai: v.optional(v.boolean(), false),
});
export type AiContextDocInput = v.InferOutput<typeof AiContextDocInput>;

export const AiContextDoc = v.object({
  id: v.number(),
  title: v.string(),
  body: v.string(),
  include_in_ai: v.boolean(),
  created_at: v.string(),
  updated_at: v.string(),
  updated_by: v.string(),
});
export type AiContextDoc = v.InferOutput<typeof AiContextDoc>;

export const AiContextDocSummary = v.object({
  ...v.omit(AiContextDoc, ['body']).entries,
  chars: v.number(),
});
export type AiContextDocSummary = v.InferOutput<typeof AiContextDocSummary>;

export const AiContextDocList = v.object({
  items: v.array(AiContextDocSummary),
  limits: v.object({ max_documents: v.number(), max_title_chars: v.number(), max_body_chars: v.number() }),
  /** Standing documents are attached to every run within a quarter of its context budget; what does not fit is left out of that run. */
  standing: v.object({ documents: v.number(), tokens: v.number(), budget_tokens: v.number() }),
  /** Suppression is an instruction to the model, not an enforced filter. */
  note: v.string(),
});

const DocId = v.pipe(v.string(), v.regex(/^[0-9]{1,12}$/, 'id must be a number'), v.transform(Number));
export const AiContextDocIdInput = v.object({ id: DocId });
export const AiContextDocUpdateInput = v.object({ id: DocId, ...AiContextDocInput.entries });
export const AiContextDocDeleted = v.object({ deleted: v.number() });

/** The "test connection" action: one tiny prompt to the configured provider, with the stored key. */
export const ConnectionTest = v.object({
  ok: v.boolean(),
  /** provider/model tried; null when nothing could be tried. */
  model: v.nullable(v.string()),
  latency_ms: v.nullable(v.number()),
  /** Why it failed: the settings (nothing was sent) or the provider's answer, redacted. */
  error: v.nullable(v.string()),
});
export type ConnectionTest = v.InferOutput<typeof ConnectionTest>;

export const ConversationSummary = v.object({ id: v.string(), title: v.string(), created_at: v.string(), updated_at: v.string(), turns: v.number() });
export const ConversationList = v.object({ items: v.array(ConversationSummary) });
export const ConversationIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a conversation id')) });
export const ConversationTurn = v.object({ role: v.picklist(['user', 'assistant']), content: v.string(), citations: v.array(Citation), source: v.string(), created_at: v.string() });
export const Conversation = v.object({ ...ConversationSummary.entries, messages: v.array(ConversationTurn) });
export type Conversation = v.InferOutput<typeof Conversation>;
export type ConversationSummary = v.InferOutput<typeof ConversationSummary>;

/** The prompt audit (admin): what each run sent and received, redacted, kept `prompt_audit.retention_days`. */
export const PromptLogEntry = v.object({
  id: v.number(),
  ts: v.string(),
  actor: v.string(),
  kind: v.string(),
  provider: v.string(),
  model: v.string(),
  sent: v.string(),
  received: v.string(),
  input_tokens: v.number(),
  output_tokens: v.number(),
});
export type PromptLogEntry = v.InferOutput<typeof PromptLogEntry>;
export const PromptLogInput = v.object({
  limit: PageLimit('20'),
  /** Entries older than this id (the previous page's last id). */
  before: v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,12}$/, 'before must be an entry id'), v.transform(Number))),
});
export const PromptLog = v.object({ items: v.array(PromptLogEntry), retention_days: v.number() });

/** Scheduled SRE reports (admin): off by default; every `every_hours` hours, a report over every namespace in the AI scope. */
export const ReportSchedule = v.object({
  enabled: v.boolean(),
  every_hours: v.pipe(v.number(), v.integer('every_hours must be a whole number'), v.minValue(1, 'every_hours must be 1–168'), v.maxValue(168, 'every_hours must be 1–168')),
});
export type ReportSchedule = v.InferOutput<typeof ReportSchedule>;
export const DEFAULT_REPORT_SCHEDULE: ReportSchedule = { enabled: false, every_hours: 24 };

/** A report run on demand: the stored report, and whether the chat webhook took it (null: none configured). */
export const ReportRun = v.object({ ...StoredAnswer.entries, posted: v.nullable(v.boolean()) });
