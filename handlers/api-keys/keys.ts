import type { Out } from '../../schema/common.ts';
import type { ApiKeyIdInput, ApiKeyList, CreateApiKeyInput, CreatedApiKey, Revoked } from '../../schema/api-keys.ts';
import type { AuthedContext, HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

/** Users mint their own keys; nobody, not even an admin, mints one for someone else. */
export async function createOwnApiKey(input: Out<typeof CreateApiKeyInput>, ctx: AuthedContext): Promise<Result<Out<typeof CreatedApiKey>>> {
  const me = ctx.principal;
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= ctx.clock.now().getTime()) {
    return fail({ code: 'invalid_input', field: 'expires_at', message: 'expires_at: must be in the future' });
  }
  const created = await ctx.auth.createApiKey(me.userId, input.name, input.scopes, expiresAt);
  return ok({ api_key: created.record, key: created.key });
}

export async function listOwnApiKeys(_input: object, ctx: AuthedContext): Promise<Result<Out<typeof ApiKeyList>>> {
  const me = ctx.principal;
  return ok({ api_keys: await ctx.auth.listApiKeys(me.userId) });
}

export async function revokeOwnApiKey(input: Out<typeof ApiKeyIdInput>, ctx: AuthedContext): Promise<Result<Out<typeof Revoked>>> {
  const me = ctx.principal;
  if (!(await ctx.auth.revokeApiKey(input.id, me.userId))) return fail({ code: 'not_found', message: `you have no API key ${input.id}` });
  return ok({ status: 'revoked' });
}

export async function listAllApiKeys(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof ApiKeyList>>> {
  return ok({ api_keys: await ctx.auth.listApiKeys(null) });
}

export async function revokeAnyApiKey(input: Out<typeof ApiKeyIdInput>, ctx: HandlerContext): Promise<Result<Out<typeof Revoked>>> {
  if (!(await ctx.auth.revokeApiKey(input.id, null))) return fail({ code: 'not_found', message: `no API key ${input.id}` });
  return ok({ status: 'revoked' });
}
