// What the copilot's handlers need from the runtime: where usage, transcripts and AI Context
// documents are kept, and a runner that takes a prepared run to a model (the AI SDK tool loop,
// runtime/copilot/). Handlers decide; these only store and send.
import type { AssembledContext, StandingDocument } from '../../domain/copilot/context.ts';
import type { AiSettings } from '../../schema/settings.ts';
import type { DocumentHit, SearchableDocument } from '../../domain/copilot/search.ts';
import type { AiContextDoc, AiContextDocInput, AiContextDocSummary, Citation, Conversation, ConversationSummary, CopilotAnswer, PromptLogEntry, CopilotEvent, StoredAnswer, StoredAnswerKind, StoredAnswerSummary } from '../../schema/copilot.ts';
import type { HandlerContext } from '../context.ts';
import type { McpTool } from '../mcp/tools.ts';
import type { RunKind, RunLimits, UsageToday } from './admission.ts';
import type { Result } from '../result.ts';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

export interface CopilotStore {
  /** What `actor` and the whole install used today (UTC). */
  usageToday(actor: string): Promise<UsageToday>;
  /**
   * Checks `limits` and counts the run (a chat prompt too) in one atomic step, so parallel
   * prompts cannot all be judged before any counts. Refused, nothing is counted and the counts
   * that refused it are returned. A counted run is never given back (docs/copilot.md#limits).
   */
  reserveRun(actor: string, kind: RunKind, limits: RunLimits): Promise<{ reserved: true } | { reserved: false; usage: Pick<UsageToday, 'chat_prompts' | 'runs'> }>;
  addTokens(actor: string, usage: { input_tokens: number; output_tokens: number }): Promise<void>;
  /** AI Context documents marked include-in-AI, oldest first. */
  standingDocuments(): Promise<StandingDocument[]>;
  /** The turns of one of `userId`'s conversations, oldest first; null when it is not theirs or does not exist. */
  conversation(id: string, userId: number): Promise<Turn[] | null>;
  /** Appends a question and its answer; starts the conversation when `id` is null. Returns its id. */
  appendExchange(id: string | null, userId: number, question: string, answer: { text: string; citations: Citation[]; source: string }): Promise<string>;
  /** Keeps a Diagnose result or an SRE report; returns it as stored (its id and time assigned). */
  saveAnswer(answer: Omit<StoredAnswer, 'id' | 'created_at'>): Promise<StoredAnswer>;
  /** Newest first; `scopes` keeps only answers whose scope is one of them. */
  answers(q: { kind?: StoredAnswerKind; scopes: (scope: string) => boolean; limit: number }): Promise<StoredAnswerSummary[]>;
  answer(id: string): Promise<StoredAnswer | null>;
  /** `userId`'s conversations, most recent first. */
  conversations(userId: number, limit: number): Promise<ConversationSummary[]>;
  /** One of `userId`'s conversations whole; null when it is not theirs or does not exist. */
  transcript(id: string, userId: number): Promise<Conversation | null>;
  /** The prompt audit, newest first. */
  promptLog(q: { limit: number; before?: number }): Promise<PromptLogEntry[]>;
}

/** AI Context documents (admin-curated markdown). */
export interface AiContextStore {
  list(): Promise<AiContextDocSummary[]>;
  get(id: number): Promise<AiContextDoc | null>;
  /** Every document, for search: at most AI_CONTEXT_LIMITS.max_documents of bounded size. */
  all(): Promise<SearchableDocument[]>;
  count(): Promise<number>;
  /** Refuses `conflict` on `title` when another document has this title (titles are unique, case-insensitive). */
  create(doc: AiContextDocInput, by: string): Promise<Result<AiContextDoc>>;
  /** Refuses `not_found` when there is no such document, `conflict` on `title` when another has this title. */
  update(id: number, doc: AiContextDocInput, by: string): Promise<Result<AiContextDoc>>;
  remove(id: number): Promise<boolean>;
}

export interface RunRequest {
  settings: AiSettings & { provider: NonNullable<AiSettings['provider']> };
  /** The endpoint the egress rules allowed. */
  url: string;
  /** This request's own key, else null (the runner opens the stored one). Never stored or logged. */
  requestKey: string | null;
  system: string;
  context: AssembledContext;
  history: Turn[];
  question: string;
  tools: readonly McpTool[];
  /** AI Context search for the `search_context` tool; null when there are no documents. */
  searchContext: ((query: string) => Promise<DocumentHit[]>) | null;
  ctx: HandlerContext;
  redaction: { enabled: boolean; literals: readonly string[] };
  /** For the prompt audit: who, what kind of run, and whether to keep what was sent. */
  audit: { actor: string; kind: RunKind; keepPrompt: boolean };
  signal?: AbortSignal;
  emit: (event: CopilotEvent) => void;
}

export type RunResult = Omit<CopilotAnswer, 'conversation_id' | 'source' | 'model'>;

export interface ModelRunner {
  run(request: RunRequest): Promise<RunResult>;
  /** One tiny prompt with the stored key (the "test connection" action); never throws. */
  probe(settings: RunRequest['settings'], url: string): Promise<{ ok: boolean; latency_ms: number; error: string | null }>;
}

/** The chat incoming webhook (`alerting.chatWebhookUrl`) reports are posted to. */
export interface ChatWebhook {
  /** Never throws: a failure is logged and answered. */
  post(text: string): Promise<{ ok: boolean; error: string | null }>;
}

export interface CopilotServices {
  store: CopilotStore;
  documents: AiContextStore;
  /** Null when no chat webhook is configured. */
  chatWebhook: ChatWebhook | null;
  runner: ModelRunner;
}
