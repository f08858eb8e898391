import type * as v from 'valibot';
import type { AuditStreamInput, AuditStreamView } from '../../schema/admin-settings.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/** What every API response shows in place of a stored secret (spec: masked `••••`). */
export const MASK = '••••';

export async function getAuditStream(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AuditStreamView>>> {
  const stored = await ctx.runtimeSettings.get('audit_stream');
  return ok({ webhook_url: stored.webhook_url, webhook_token: stored.webhook_token_sealed === null ? null : MASK, stats: ctx.audit.streamStats() });
}

/** `webhook_token` absent or `••••` keeps the stored token; null removes it; anything else replaces it (sealed at rest). */
export async function updateAuditStream(input: Out<typeof AuditStreamInput>, ctx: HandlerContext): Promise<Result<Out<typeof AuditStreamView>>> {
  const stored = await ctx.runtimeSettings.get('audit_stream');
  const token = input.webhook_token;
  const sealed = token === undefined || token === MASK ? stored.webhook_token_sealed : token === null || token === '' ? null : ctx.secrets.seal(token);
  ctx.request.noteAudit({ webhook_url: input.webhook_url ?? '(off)', token_changed: String(sealed !== stored.webhook_token_sealed) });
  await ctx.runtimeSettings.set('audit_stream', { webhook_url: input.webhook_url, webhook_token_sealed: sealed });
  return getAuditStream({}, ctx);
}
