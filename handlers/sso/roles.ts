// Admin → Groups' default role and un-pinning a hand-set role (spec §5 "SSO" 3 and 8;
// docs/sso.md "Admin emails and groups").
import type { Out } from '../../schema/common.ts';
import type { DefaultRoleInput, DefaultRoleOutput, RoleUnpinned, UnpinRoleInput } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

/**
 * The role groups get the first time a sign-in carries them. Groups already listed keep the
 * role they have: a changed default must not silently promote (or demote) everyone in them.
 */
export async function setDefaultRole(input: Out<typeof DefaultRoleInput>, ctx: HandlerContext): Promise<Result<Out<typeof DefaultRoleOutput>>> {
  const before = (await ctx.runtimeSettings.get('sso_roles')).default_role;
  ctx.request.noteAudit({ default_role: input.default_role, previous: before });
  await ctx.runtimeSettings.set('sso_roles', { default_role: input.default_role });
  return ok({ default_role: input.default_role });
}

/** The SSO account's role follows its groups again: re-resolved now, re-read from the provider at the next sign-in. */
export async function unpinRole(input: Out<typeof UnpinRoleInput>, ctx: HandlerContext): Promise<Result<Out<typeof RoleUnpinned>>> {
  ctx.request.noteAudit({ username: input.username });
  const done = await ctx.sso.unpinRole(input.username);
  if (!done.ok) return done;
  ctx.request.noteAudit({ role: done.value.role, was_pinned: String(done.value.wasPinned) });
  return ok({ username: done.value.username, role: done.value.role, role_pinned: false, was_pinned: done.value.wasPinned });
}
