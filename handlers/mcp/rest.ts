// The MCP REST pair (`GET /mcp/tools`, `POST /mcp/tools/call`) and the admin kill switch.
import { toJsonSchema } from '@valibot/to-json-schema';
import type { Out } from '../../schema/common.ts';
import type { McpCallInput, McpCallResult, McpSwitch, McpToolList } from '../../schema/mcp.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { MCP_TOOLS, callTool, deniedTools } from './tools.ts';

/** Each tool's arguments as JSON Schema, from the same valibot schema that validates them. */
export const TOOL_LIST: Out<typeof McpToolList>['tools'] = MCP_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  input_schema: toJsonSchema(t.input, { target: 'draft-07', errorMode: 'ignore', typeMode: 'input' }) as Record<string, unknown>,
}));

/** An MCP tool result from a handler's value: JSON text for any client, and the object itself. */
export function toolResult(value: unknown): Out<typeof McpCallResult> {
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured, isError: false };
}

export async function listMcpTools(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof McpToolList>>> {
  const denied = await deniedTools(ctx);
  return ok({ tools: denied.size === 0 ? TOOL_LIST : TOOL_LIST.filter((t) => !denied.has(t.name)) });
}

/** Errors keep their HTTP meaning here (403 out of scope, 404, 400 naming the argument); the protocol endpoint returns them as tool errors instead. */
export async function callMcpTool(input: Out<typeof McpCallInput>, ctx: HandlerContext): Promise<Result<Out<typeof McpCallResult>>> {
  ctx.request.noteAudit({ tool: input.name });
  const result = await callTool(input.name, input.arguments, ctx);
  return result.ok ? ok(toolResult(result.value)) : fail(result.error);
}

export async function getMcpSwitch(_input: unknown, ctx: HandlerContext): Promise<Result<Out<typeof McpSwitch>>> {
  return ok(await ctx.runtimeSettings.get('mcp'));
}

/** Opening and closing are both audited (this route's row, with the new state noted). */
export async function setMcpSwitch(input: Out<typeof McpSwitch>, ctx: HandlerContext): Promise<Result<Out<typeof McpSwitch>>> {
  await ctx.runtimeSettings.set('mcp', { enabled: input.enabled });
  ctx.request.noteAudit({ mcp: input.enabled ? 'opened' : 'closed' });
  return ok({ enabled: input.enabled });
}
