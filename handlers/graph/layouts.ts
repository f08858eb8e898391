// A user's own arrangement of the topology around one focus. The focus must be an object the
// caller can see (the graph's own lookup decides); positions are the user's data, bounded in
// count and range by the schema.
import type { Out } from '../../schema/common.ts';
import type { Layout, LayoutDeleted, LayoutFocusInput, LayoutInput } from '../../schema/graph.ts';
import type { AuthedContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { entity } from './queries.ts';

export async function getLayout(input: Out<typeof LayoutFocusInput>, ctx: AuthedContext): Promise<Result<Out<typeof Layout>>> {
  const seen = entity({ id: input.focus }, ctx);
  if (!seen.ok) return seen;
  const saved = await ctx.layouts.get(ctx.principal.userId, input.focus);
  if (saved === null) return fail({ code: 'not_found', message: `no saved layout around ${input.focus}` });
  return ok({ focus: input.focus, positions: { ...saved.positions }, updated_at: saved.updatedAt.toISOString() });
}

export async function saveLayout(input: Out<typeof LayoutInput>, ctx: AuthedContext): Promise<Result<Out<typeof Layout>>> {
  const seen = entity({ id: input.focus }, ctx);
  if (!seen.ok) return seen;
  const saved = await ctx.layouts.put(ctx.principal.userId, input.focus, input.positions);
  if (!saved.ok) return saved;
  return ok({ focus: input.focus, positions: input.positions, updated_at: saved.value.updatedAt.toISOString() });
}

export async function deleteLayout(input: Out<typeof LayoutFocusInput>, ctx: AuthedContext): Promise<Result<Out<typeof LayoutDeleted>>> {
  return ok({ deleted: await ctx.layouts.remove(ctx.principal.userId, input.focus) });
}
