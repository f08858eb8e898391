// The copilot's admin surfaces: AI Settings and AI Guardrails. Reading needs an admin (a key
// needs policy:read); writing needs an admin's session, never a key (spec §5: the AI kill
// switch and redaction settings are among the controls no scope reaches). Both writes are
// audited with what changed, never the provider key.
import { getAiSettings, getGuardrails, testConnection, updateAiSettings, updateGuardrails } from './settings.ts';
import { getConversation, listConversations, readPromptLog } from './transcripts.ts';
import { getReportSchedule, runReportNow, updateReportSchedule } from './reports.ts';
import { chat } from './chat.ts';
import { NoInput } from '../../schema/common.ts';
import { diagnoseNamespace, getAnswer, listAnswers } from './answers.ts';
import { createDocument, deleteDocument, getDocument, listDocuments, updateDocument } from './documents.ts';
import { ReportRun, ReportSchedule, ConnectionTest, Conversation, ConversationIdInput, ConversationList, PromptLog, PromptLogInput, AiContextDoc, AiContextDocDeleted, AiContextDocIdInput, AiContextDocInput, AiContextDocList, AiContextDocUpdateInput, AiGuardrails, AiSettingsInput, AiSettingsView, ChatInput, CopilotAnswer, CopilotStreamEvent, DiagnoseInput, StoredAnswer, StoredAnswerIdInput, StoredAnswerList, StoredAnswersInput } from '../../schema/copilot.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

const policyRead = { access: { auth: 'credential', role: 'admin', scope: 'policy:read' }, feature: null, audit: 'http', rateLimit: 'read' } as const;
const adminWrite = { ...noApiKeys('admin'), audit: 'auth', rateLimit: 'write' } as const;
/** AI Context writes: an admin's session (spec §5), audited as writes. */
const contextWrite = { ...noApiKeys('admin'), audit: 'write', rateLimit: 'write' } as const;
/** Starting an AI run: any signed-in role, `ai:invoke` for keys, the `ai` rate class, every run audited. */
const aiRun = { access: { auth: 'credential', role: 'viewer', scope: 'ai:invoke' }, feature: null, audit: 'http', rateLimit: 'ai' } as const;
const aiRead = { access: { auth: 'credential', role: 'viewer', scope: 'ai:invoke' }, feature: null, audit: 'access', rateLimit: 'read' } as const;

/** The chat: a streamed route (`ai:invoke` for keys, the `ai` rate class: security.aiRateLimitPerMin per session). */
const copilotChatRoute = defineRoute({
  method: 'POST',
  path: '/copilot/chat',
  summary: 'Ask the copilot: {question, focus?, conversation_id?, provider_key?}; answered as Server-Sent Events (tool steps, text, then `done` with the checked citations) when the client accepts text/event-stream, else as one JSON answer',
  ...aiRun,
  input: ChatInput,
  output: CopilotAnswer,
  stream: { event: CopilotStreamEvent },
  handler: chat,
});

export const copilotRoutes: readonly Route[] = [
  defineRoute({ ...policyRead, method: 'GET', path: '/settings/ai', summary: 'AI Settings: provider, model, endpoint, whether a key is stored (never the key), and whether a run would reach a model now', input: NoInput, output: AiSettingsView, handler: getAiSettings }),
  defineRoute({
    ...adminWrite,
    method: 'PUT',
    path: '/admin/ai/settings',
    summary: 'Set the AI provider (admin session): api_key absent or •••• keeps the stored key, null removes it; a new provider or base_url needs the key again. The key is sealed at rest and never returned',
    input: AiSettingsInput,
    output: AiSettingsView,
    handler: updateAiSettings,
  }),
  defineRoute({ ...adminWrite, method: 'POST', path: '/admin/ai/test-connection', summary: 'Test connection (admin session): one tiny prompt to the configured provider with the stored key; says how long it took or what failed', input: NoInput, output: ConnectionTest, handler: testConnection }),
  defineRoute({ ...policyRead, method: 'GET', path: '/admin/ai/prompt-log', summary: 'The prompt audit: what each AI run sent and received, redacted, newest first (limit, before)', input: PromptLogInput, output: PromptLog, handler: readPromptLog }),
  defineRoute({ ...aiRead, method: 'GET', path: '/copilot/conversations', summary: 'Your copilot conversations (agent session transcripts, kept 180 days), most recent first', input: NoInput, output: ConversationList, handler: listConversations }),
  defineRoute({ ...aiRead, method: 'GET', path: '/copilot/conversations/:id', summary: 'One of your conversations, every turn with its citations', input: ConversationIdInput, output: Conversation, handler: getConversation }),
  defineRoute({ ...policyRead, method: 'GET', path: '/admin/ai/reports', summary: 'The SRE report schedule: on or off, and every how many hours', input: NoInput, output: ReportSchedule, handler: getReportSchedule }),
  defineRoute({ ...adminWrite, method: 'PUT', path: '/admin/ai/reports', summary: 'Set the SRE report schedule (admin session); on: the first report within a minute, then every every_hours', input: ReportSchedule, output: ReportSchedule, handler: updateReportSchedule }),
  defineRoute({ ...adminWrite, audit: 'http', rateLimit: 'ai', method: 'POST', path: '/admin/ai/reports/run', summary: 'Run an SRE report now (admin session): stored with the others, posted to the chat webhook when one is configured', input: NoInput, output: ReportRun, handler: runReportNow }),
  defineRoute({ ...policyRead, method: 'GET', path: '/admin/ai/guardrails', summary: 'AI Guardrails: master switch, residency, namespace scope, redaction, denied tools, egress allowlist, prompt audit, cost caps', input: NoInput, output: AiGuardrails, handler: getGuardrails }),
  defineRoute({
    ...adminWrite,
    method: 'PUT',
    path: '/admin/ai/guardrails',
    summary: 'Replace AI Guardrails (admin session); denied_tools must name MCP tools. Off: every AI-backed call answers 403, MCP read tools keep working',
    input: AiGuardrails,
    output: AiGuardrails,
    handler: updateGuardrails,
  }),
  defineRoute({
    ...aiRun,
    method: 'POST',
    path: '/namespaces/:namespace/diagnose',
    summary: "Diagnose a namespace: the copilot's account of what is wrong, why and what to do, through the model or, with none, templated from the diagnosis and labelled so; stored and returned with its checked citations",
    input: DiagnoseInput,
    namespaceParam: 'namespace',
    output: StoredAnswer,
    handler: diagnoseNamespace,
  }),
  defineRoute({ ...aiRead, method: 'GET', path: '/copilot/answers', summary: 'Stored Diagnose results and SRE reports about namespaces you may see, newest first (kind, scope, limit)', input: StoredAnswersInput, output: StoredAnswerList, handler: listAnswers }),
  defineRoute({ ...aiRead, method: 'GET', path: '/ai/context', summary: 'AI Context documents (without bodies), their caps, what the standing ones cost of a run, and how suppression works', input: NoInput, output: AiContextDocList, handler: listDocuments }),
  defineRoute({ ...aiRead, method: 'GET', path: '/ai/context/:id', summary: 'One AI Context document', input: AiContextDocIdInput, output: AiContextDoc, handler: getDocument }),
  defineRoute({ ...contextWrite, method: 'POST', path: '/admin/ai/context', summary: 'Add an AI Context document (admin session): markdown, include_in_ai to attach it to every run; titles unique; capped (docs/copilot.md)', input: AiContextDocInput, output: AiContextDoc, handler: createDocument }),
  defineRoute({ ...contextWrite, method: 'PUT', path: '/admin/ai/context/:id', summary: 'Replace an AI Context document (admin session)', input: AiContextDocUpdateInput, output: AiContextDoc, handler: updateDocument }),
  defineRoute({ ...contextWrite, method: 'DELETE', path: '/admin/ai/context/:id', summary: 'Delete an AI Context document (admin session)', input: AiContextDocIdInput, output: AiContextDocDeleted, handler: deleteDocument }),
  defineRoute({ ...aiRead, method: 'GET', path: '/copilot/answers/:id', summary: 'One stored Diagnose result or SRE report, with its citations', input: StoredAnswerIdInput, output: StoredAnswer, handler: getAnswer }),
  copilotChatRoute,
];
