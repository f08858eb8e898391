import type { Out } from '../../schema/common.ts';
import type { GroupList, GroupOutput, SetGroupRoleInput } from '../../schema/sso.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

/** Admin → Groups: every group an SSO sign-in has carried, with its role, and the role new groups get. */
export async function listGroups(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof GroupList>>> {
  return ok({ groups: await ctx.sso.groups(), default_role: (await ctx.runtimeSettings.get('sso_roles')).default_role });
}

/** Sets a group's role; its unpinned members act at their new role on their next request. */
export async function setGroupRole(input: Out<typeof SetGroupRoleInput>, ctx: HandlerContext): Promise<Result<Out<typeof GroupOutput>>> {
  ctx.request.noteAudit({ provider: input.provider, group: input.name, role: input.role });
  const set = await ctx.sso.setGroupRole(input.provider, input.name, input.role);
  return set.ok ? ok({ group: set.value.group, users_updated: set.value.usersUpdated }) : set;
}
