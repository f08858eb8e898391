import type { ChainReport } from '../../schema/audit.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export async function verifyAuditChain(_input: object, ctx: HandlerContext): Promise<Result<ChainReport>> {
  return ok(await ctx.audit.verifyChain());
}
