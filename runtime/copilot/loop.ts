// The copilot's one tool loop (chat, Diagnose and reports all run through it): a model from
// the Vercel AI SDK, the read-only MCP tool table as its tools (same code, same deny list, same
// visibility as the MCP surface), every tool result redacted before it reaches the provider,
// bounded steps and output tokens, and the answer's citations checked against every node id
// the run showed the model. Streams what happens as events; returns the outcome.
import { jsonSchema, stepCountIs, streamText, tool, type JSONSchema7, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { checkCitations, collectNodeIds } from '../../domain/copilot/citations.ts';
import type { AssembledContext } from '../../domain/copilot/context.ts';
import { fenceContext, neutraliseData } from '../../domain/copilot/fence.ts';
import type { DocumentHit } from '../../domain/copilot/search.ts';
import { redactText, redactValue } from '../../domain/redaction/redact.ts';
import type { HandlerContext } from '../../handlers/context.ts';
import { TOOL_LIST } from '../../handlers/mcp/rest.ts';
import { callTool, type McpTool } from '../../handlers/mcp/tools.ts';
import type { CopilotEvent } from '../../schema/copilot.ts';
import type { RunResult } from '../../handlers/copilot/service.ts';

export interface LoopLimits {
  /** Model calls per run (each tool round is one). */
  maxSteps: number;
  /** Output tokens per model call. */
  maxOutputTokens: number;
  /** A tool result longer than this (JSON characters) is cut, and the model is told so. */
  maxToolResultChars: number;
}

export const DEFAULT_LIMITS: LoopLimits = { maxSteps: 6, maxOutputTokens: 2000, maxToolResultChars: 24_000 };

/** What a run returns: the answer and its checked citations, usage, and how it ended. */
export type LoopOutcome = RunResult;

export interface LoopInput {
  model: LanguageModel;
  system: string;
  context: AssembledContext;
  /** Earlier turns of the conversation, oldest first. */
  history: ModelMessage[];
  question: string;
  /** The MCP tools this run may call (the deny list already applied). */
  tools: readonly McpTool[];
  /** AI Context search, offered as the `search_context` tool; null: no documents, no tool. */
  searchContext: ((query: string) => Promise<DocumentHit[]>) | null;
  /** The caller's context: its scoped cluster is what every tool reads. */
  ctx: HandlerContext;
  /** AI Guardrails' redaction: on by default, with extra literals beside the standard pass. */
  redaction: { enabled: boolean; literals: readonly string[] };
  limits: LoopLimits;
  signal?: AbortSignal;
  emit: (event: CopilotEvent) => void;
}

/** The node ids a cut tool result still shows: those whose id or name survives in the text. */
function idsStillShown(ids: Iterable<string>, text: string): string[] {
  return [...ids].filter((id) => text.includes(id) || text.includes(`"${id.slice(Math.max(id.lastIndexOf('/'), id.indexOf(':')) + 1)}"`));
}

const TOOL_SCHEMAS: ReadonlyMap<string, Record<string, unknown>> = new Map(TOOL_LIST.map((t) => [t.name, t.input_schema]));

function toolSet(input: LoopInput, given: Set<string>, counter: { calls: number }): ToolSet {
  const set: ToolSet = {};
  for (const t of input.tools) {
    // The JSON Schema the MCP surface lists, converted once at start, not per run.
    const schema = (TOOL_SCHEMAS.get(t.name) ?? { type: 'object' }) as JSONSchema7;
    set[t.name] = tool({
      description: t.description,
      // Validation is callTool's (the same valibot schema as the MCP surface), so an invalid call comes back as a tool error the model can read.
      inputSchema: jsonSchema(schema),
      execute: async (args: unknown) => {
        counter.calls++;
        const result = await callTool(t.name, args, input.ctx);
        const shownValue = result.ok ? result.value : { error: result.error.code, message: result.error.message };
        const value = input.redaction.enabled ? redactValue(shownValue, input.redaction.literals) : shownValue;
        // A tool that answered nothing (undefined) is sent as null. Cluster text, so data: nothing in it may pass for a delimiter.
        let text = value === undefined ? 'null' : neutraliseData(JSON.stringify(value));
        const shown = new Set<string>();
        collectNodeIds(value, shown);
        if (text.length > input.limits.maxToolResultChars) {
          text = `${text.slice(0, input.limits.maxToolResultChars)}… [cut at ${input.limits.maxToolResultChars} characters; narrow the question or the namespace]`;
          for (const id of idsStillShown(shown, text)) given.add(id);
        } else {
          for (const id of shown) given.add(id);
        }
        return text;
      },
    });
  }
  const search = input.searchContext;
  if (search !== null) {
    set[SEARCH_CONTEXT_TOOL] = tool({
      description: "Search your administrators' AI Context documents (runbooks, conventions, known issues) by keywords; returns the best matches with excerpts.",
      inputSchema: jsonSchema<{ query: string }>({ type: 'object', properties: { query: { type: 'string', minLength: 1, maxLength: 500 } }, required: ['query'], additionalProperties: false }),
      execute: async ({ query }: { query: string }) => {
        counter.calls++;
        const hits = await search(query.slice(0, 500));
        const value = input.redaction.enabled ? redactValue(hits, input.redaction.literals) : hits;
        return neutraliseData(JSON.stringify(hits.length === 0 ? { matches: [], note: 'no document matches these words' } : { matches: value }));
      },
    });
  }
  return set;
}

/** The copilot's own tool beside the MCP table: AI Context is not part of the MCP surface. */
export const SEARCH_CONTEXT_TOOL = 'search_context';

const message = (err: unknown) => redactText(err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err));

export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const given = new Set<string>(input.context.nodeIds);
  const counter = { calls: 0 };
  let text = '';
  let steps = 0;
  let finish: LoopOutcome['finish'] = 'stop';
  let error: string | null = null;
  const usage = { input_tokens: 0, output_tokens: 0 };
  // Everything that leaves is redacted when redaction is on: the context (event messages and
  // evidence facts quote the cluster), earlier turns and the question, not only tool results.
  const scrub = (text: string) => (input.redaction.enabled ? String(redactValue(text, input.redaction.literals)) : text);
  const history = input.history.map((m): ModelMessage => (m.role === 'user' ? { role: 'user', content: typeof m.content === 'string' ? scrub(m.content) : m.content } : m.role === 'assistant' && typeof m.content === 'string' ? { role: 'assistant', content: scrub(m.content) } : m));
  // The system message is the rules and the administrators' standing instructions, nothing the
  // cluster wrote; the cluster facts go in the person's message as one fenced block of data.
  const standing = input.context.standing === '' ? '' : `\n\n${scrub(input.context.standing)}`;
  const result = streamText({
    model: input.model,
    system: `${input.system}${standing}`,
    messages: [...history, { role: 'user', content: fenceContext(scrub(input.context.data), scrub(input.question)) }],
    tools: toolSet(input, given, counter),
    stopWhen: stepCountIs(input.limits.maxSteps),
    maxOutputTokens: input.limits.maxOutputTokens,
    maxRetries: 1,
    ...(input.signal ? { abortSignal: input.signal } : {}),
  });
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          input.emit({ type: 'text', delta: part.text });
          break;
        case 'tool-call':
          input.emit({ type: 'tool-call', id: part.toolCallId, name: part.toolName, args: part.input });
          break;
        case 'tool-result':
          input.emit({ type: 'tool-result', id: part.toolCallId, name: part.toolName, ok: true, chars: typeof part.output === 'string' ? part.output.length : 0 });
          break;
        case 'tool-error':
          input.emit({ type: 'tool-result', id: part.toolCallId, name: part.toolName, ok: false, chars: 0 });
          break;
        case 'finish-step':
          steps++;
          usage.input_tokens += part.usage.inputTokens ?? 0;
          usage.output_tokens += part.usage.outputTokens ?? 0;
          input.emit({ type: 'step', n: steps, input_tokens: part.usage.inputTokens ?? 0, output_tokens: part.usage.outputTokens ?? 0 });
          if (part.finishReason === 'length') finish = 'length';
          else if (part.finishReason === 'tool-calls' && steps >= input.limits.maxSteps) finish = 'max_steps';
          break;
        case 'abort':
          finish = 'aborted';
          break;
        case 'error':
          finish = 'error';
          error = message(part.error);
          break;
        default:
          break;
      }
    }
  } catch (err) {
    finish = input.signal?.aborted === true ? 'aborted' : 'error';
    error = finish === 'error' ? message(err) : null;
  }
  return { answer: text, citations: checkCitations(text, given), usage, steps, tool_calls: counter.calls, finish, error };
}
