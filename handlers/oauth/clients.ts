// Admin → Access control → OAuth clients: the MCP clients that registered themselves (anonymously, RFC 7591),
// whether a user ever approved them, and their live tokens; deleting one revokes those tokens.
import type { Out } from '../../schema/common.ts';
import type { OAuthClientDeleted, OAuthClientIdInput, OAuthClientList } from '../../schema/oauth.ts';
import type { SessionContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

export async function listOAuthClients(_input: object, ctx: SessionContext): Promise<Result<Out<typeof OAuthClientList>>> {
  return ok(await ctx.oauth.listClients());
}

export async function deleteOAuthClient(input: Out<typeof OAuthClientIdInput>, ctx: SessionContext): Promise<Result<Out<typeof OAuthClientDeleted>>> {
  const deleted = await ctx.oauth.deleteClient(input.id);
  if (deleted === null) return fail({ code: 'not_found', message: `no OAuth client ${input.id}` });
  ctx.request.noteAudit({ oauth_client: input.id, tokens_revoked: String(deleted.tokensRevoked) });
  return ok({ status: 'deleted' as const, tokens_revoked: deleted.tokensRevoked });
}
