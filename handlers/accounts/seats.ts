import type { Out } from '../../schema/common.ts';
import type { Seats } from '../../schema/accounts.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

const PROVIDERS = ['local', 'ldap', 'oidc', 'saml'] as const;
const ROLES = ['admin', 'viewer'] as const;

/** Seat counts per role and sign-in provider, every pair listed (zeros too), admins first. */
export async function seatCounts(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof Seats>>> {
  const users = await ctx.users.list();
  const seats = ROLES.flatMap((role) =>
    PROVIDERS.map((provider) => {
      const mine = users.filter((u) => u.role === role && (u.sso_provider ?? 'local') === provider);
      return { role, provider, active: mine.filter((u) => u.active).length, inactive: mine.filter((u) => !u.active).length };
    }),
  );
  return ok({ seats, total_active: users.filter((u) => u.active).length });
}
