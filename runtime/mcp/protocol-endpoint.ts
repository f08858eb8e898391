// The MCP protocol endpoint (Streamable HTTP): its policy is the declared route
// (handlers/mcp/routes.ts), applied by the runtime's chain before the SDK sees the request.
import { mcpProtocolRoute } from '../../handlers/mcp/routes.ts';
import type { RawEndpoint } from '../http/app.ts';

export const mcpProtocolEndpoint: RawEndpoint = {
  route: mcpProtocolRoute,
  methods: ['GET', 'POST', 'DELETE'],
  paths: ['/mcp', '/mcp/'],
  // The MCP SDK (and the zod it brings) loads with the first protocol request, not at start:
  // an agent nobody speaks MCP to does not hold it (tests/bench/results/memory.md).
  handle: async (request, ctx) => (await import('./protocol.ts')).handleMcpRequest(request, ctx),
  // Where an OAuth-speaking client learns how to get a token (MCP authorization, RFC 9728).
  challenge: (origin) => `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/agent/mcp"`,
};
