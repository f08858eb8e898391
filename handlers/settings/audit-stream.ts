import type { Out } from '../../schema/common.ts';
import type { AuditStreamInput, AuditStreamView } from '../../schema/admin-settings.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

/** What every API response shows in place of a stored secret (spec: masked `••••`). */
export const MASK = '••••';

export async function getAuditStream(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof AuditStreamView>>> {
  const stored = await ctx.runtimeSettings.get('audit_stream');
  return ok({ webhook_url: stored.webhook_url, webhook_token: stored.webhook_token_sealed === null ? null : MASK, stats: ctx.audit.streamStats() });
}

/**
 * `webhook_token` absent or `••••` keeps the stored token; null removes it; anything else replaces it (sealed at rest).
 * The stored token belongs to the URL it was entered for: a different URL must come with the token typed
 * again (else 400), so a session cannot send the SIEM's credential to a host of its choosing. Turning
 * streaming off (a null URL) forgets the token, so no later URL can inherit it.
 */
export async function updateAuditStream(input: Out<typeof AuditStreamInput>, ctx: HandlerContext): Promise<Result<Out<typeof AuditStreamView>>> {
  if (input.webhook_url !== null) {
    const problem = ctx.outbound.problem(input.webhook_url, 'endpoint');
    if (problem !== null) return fail({ code: 'invalid_input', field: 'webhook_url', message: `webhook_url ${problem}` });
  }
  const stored = await ctx.runtimeSettings.get('audit_stream');
  const token = input.webhook_token;
  const keepsStored = token === undefined || token === MASK;
  if (keepsStored && input.webhook_url !== null && stored.webhook_token_sealed !== null && !sameUrl(input.webhook_url, stored.webhook_url)) {
    return fail({ code: 'invalid_input', field: 'webhook_token', message: 'webhook_token must be given again when webhook_url changes: the stored token is only sent to the URL it was entered for' });
  }
  const sealed = input.webhook_url === null ? null : keepsStored ? stored.webhook_token_sealed : token === null || token === '' ? null : ctx.secrets.seal(token);
  ctx.request.noteAudit({ webhook_url: input.webhook_url ?? '(off)', token_changed: String(sealed !== stored.webhook_token_sealed) });
  await ctx.runtimeSettings.set('audit_stream', { webhook_url: input.webhook_url, webhook_token_sealed: sealed });
  return getAuditStream({}, ctx);
}

/** The same target once parsed (case of scheme and host, default port), so a cosmetic rewrite keeps the token. */
function sameUrl(given: string, stored: string | null): boolean {
  if (stored === null) return false;
  try {
    return new URL(given).href === new URL(stored).href;
  } catch {
    return given === stored;
  }
}
