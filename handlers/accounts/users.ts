import type { Out } from '../../schema/common.ts';
import type { CreateUserInput, UpdateUserInput, UserList, UserOutput } from '../../schema/accounts.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export async function listUsers(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof UserList>>> {
  return ok({ users: await ctx.users.list() });
}

export async function createUser(input: Out<typeof CreateUserInput>, ctx: HandlerContext): Promise<Result<Out<typeof UserOutput>>> {
  ctx.request.noteAudit({ username: input.username, role: input.role });
  const created = await ctx.users.create(input.username, input.password, input.role);
  return created.ok ? ok({ user: created.value }) : created;
}

/** Role and active flag; takes effect on the user's next request, sessions and API keys alike. */
export async function updateUser(input: Out<typeof UpdateUserInput>, ctx: HandlerContext): Promise<Result<Out<typeof UserOutput>>> {
  ctx.request.noteAudit({ username: input.username, ...(input.role ? { role: input.role } : {}), ...(input.active !== undefined ? { active: String(input.active) } : {}) });
  const updated = await ctx.users.update(input.username, { role: input.role, active: input.active });
  return updated.ok ? ok({ user: updated.value }) : updated;
}
