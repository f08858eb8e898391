// The MCP surface: the protocol endpoint, the REST pair over the same tools, and the admin's
// kill switch. Keys need mcp:read; the licensed feature `mcp` is in every tier, Free included.
import * as v from 'valibot';
import { callMcpTool, getMcpSwitch, listMcpTools, setMcpSwitch } from './rest.ts';
import { ok } from '../result.ts';
import { NoInput } from '../../schema/common.ts';
import { McpCallInput, McpCallResult, McpSwitch, McpToolList } from '../../schema/mcp.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

// Every MCP surface closes with the admin's kill switch (the runtime answers 403 mcp_disabled).
const mcp = { access: { auth: 'credential', role: 'viewer', scope: 'mcp:read' }, feature: 'mcp', rateLimit: 'read', killSwitch: 'mcp' } as const;

export const mcpRoutes: readonly Route[] = [
  defineRoute({ ...mcp, audit: 'access', method: 'GET', path: '/mcp/tools', summary: 'The MCP tools: name, description and JSON Schema of the arguments', input: NoInput, output: McpToolList, handler: listMcpTools }),
  defineRoute({
    ...mcp,
    audit: 'http',
    method: 'POST',
    path: '/mcp/tools/call',
    summary: 'Call one MCP tool: {name, arguments}; audited by tool name; errors keep their HTTP status (403 out of scope, 404, 400 naming the argument)',
    input: McpCallInput,
    output: McpCallResult,
    handler: callMcpTool,
  }),
  defineRoute({ ...noApiKeys('admin'), audit: 'http', rateLimit: 'read', method: 'GET', path: '/admin/mcp', summary: 'Whether the MCP surface is open', input: NoInput, output: McpSwitch, handler: getMcpSwitch }),
  defineRoute({
    ...noApiKeys('admin'),
    audit: 'auth',
    rateLimit: 'write',
    method: 'PUT',
    path: '/admin/mcp',
    summary: 'The MCP kill switch (admin session only): closed, every MCP request answers 403 mcp_disabled; both directions audited',
    input: McpSwitch,
    output: McpSwitch,
    handler: setMcpSwitch,
  }),
];

/** Policy of the protocol endpoint, for the middleware chain; it never runs as a JSON route. */
export const mcpProtocolRoute = defineRoute({ ...mcp, audit: 'http', method: 'POST', path: '/mcp', summary: 'MCP over Streamable HTTP', input: v.unknown(), output: v.unknown(), handler: () => ok(null) });
