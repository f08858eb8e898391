// The MCP protocol endpoint (`/mcp`, `/mcp/`): Streamable HTTP through the official SDK, in
// stateless mode (no session to keep; each request carries its own credential), serving the
// same tool table as the REST pair. A failing tool answers a tool error result; nothing a
// tool does can take the endpoint down. The kill switch is the route's (`killSwitch: 'mcp'`):
// a closed surface never reaches this code.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HandlerContext } from '../../handlers/context.ts';
import { TOOL_LIST, toolResult } from '../../handlers/mcp/rest.ts';
import { callTool, deniedTools } from '../../handlers/mcp/tools.ts';
import { errorBody } from '../http/status.ts';
import { CAPSTAN_VERSION } from '../version.ts';

/** Every tool only reads the cluster as it is: MCP clients may call them without asking the user. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * One JSON Schema validator for every request's server: the SDK builds a fresh Ajv instance
 * per Server unless given one, and that construction was most of an MCP call's cost (issue 13).
 */
const sharedValidator = new AjvJsonSchemaValidator();

// The low-level Server, because McpServer.registerTool takes zod schemas only and ours are
// valibot (the single source of types): tools are listed and dispatched from our own table.
// eslint-disable-next-line @typescript-eslint/no-deprecated
function mcpServer(ctx: HandlerContext): Server {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server({ name: 'capstan', version: CAPSTAN_VERSION }, { capabilities: { tools: {} }, jsonSchemaValidator: sharedValidator });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const denied = await deniedTools(ctx);
    return { tools: TOOL_LIST.filter((t) => !denied.has(t.name)).map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.input_schema, type: 'object' as const }, annotations: READ_ONLY })) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    ctx.request.noteAudit({ tool: request.params.name });
    const result = await callTool(request.params.name, request.params.arguments ?? {}, ctx);
    if (result.ok) return toolResult(result.value);
    return { content: [{ type: 'text', text: JSON.stringify(errorBody(result.error)) }], isError: true };
  });
  return server;
}

export async function handleMcpRequest(request: Request, ctx: HandlerContext): Promise<Response> {
  const server = mcpServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    if (request.method !== 'POST') return await transport.handleRequest(request);
    // The body is read here, already bounded by the route's limit, and handed over parsed: the
    // transport reading it itself makes the server build a whole stream-backed Request per call.
    // What does not parse goes to the transport as it came, for the protocol's own error.
    const text = await request.text();
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return await transport.handleRequest(new Request(request.url, { method: 'POST', headers: request.headers, body: text }));
    }
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
