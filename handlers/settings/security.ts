import type { Out } from '../../schema/common.ts';
import type { SecuritySettingsInput, SecuritySettingsView } from '../../schema/admin-settings.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

export async function getSecuritySettings(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SecuritySettingsView>>> {
  return ok(await ctx.runtimeSettings.get('security'));
}

/**
 * Idle timeout, password sign-in mode and the auth_flood ban policy; a changed idle timeout
 * applies to sessions already signed in. Turning password sign-in off needs an enabled SSO
 * method (docs/sso.md), so `off` is refused while none is enabled rather than locking everyone out.
 */
export async function updateSecuritySettings(input: Out<typeof SecuritySettingsInput>, ctx: HandlerContext): Promise<Result<Out<typeof SecuritySettingsView>>> {
  if (input.local_login === 'off' && (await ctx.sso.enabledProviders()).length === 0) {
    return fail({ code: 'invalid_input', field: 'local_login', message: 'password sign-in can be turned off only while an SSO method is enabled' });
  }
  const current = await ctx.runtimeSettings.get('security');
  // Absent fields are absent keys (exactOptionalPropertyTypes), so spreading keeps what is not sent.
  const next = { ...current, ...input };
  ctx.request.noteAudit({ changed: Object.keys(input).join(',') });
  await ctx.runtimeSettings.set('security', next);
  return ok(next);
}
