import * as v from 'valibot';

export const McpToolList = v.object({
  tools: v.array(v.object({ name: v.string(), description: v.string(), input_schema: v.record(v.string(), v.unknown()) })),
});

export const McpCallInput = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  arguments: v.optional(v.record(v.string(), v.unknown()), {}),
});

/** The MCP CallToolResult: the value as JSON text (for any client) and as structured content. */
export const McpCallResult = v.object({
  content: v.array(v.object({ type: v.literal('text'), text: v.string() })),
  structuredContent: v.record(v.string(), v.unknown()),
  isError: v.literal(false),
});

export const McpSwitch = v.object({ enabled: v.boolean() });
