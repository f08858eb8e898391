import type * as v from 'valibot';
import type { LoginInput, LoginOutput } from '../../schema/auth.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

type Output = v.InferOutput<typeof LoginOutput>;

const badCredentials: AppError = { code: 'unauthenticated', message: 'wrong username or password' };

function lockedOut(until: Date, now: Date): AppError {
  const retryAfterSecs = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return { code: 'locked_out', message: 'too many failed sign-ins for this account from this address; try again later', retryAfterSecs };
}

/**
 * Password sign-in (spec §5). Six failures for one account from one address lock that pair
 * for 15 minutes (429), even for the right password; failures never ban the address itself.
 */
export async function login(input: v.InferOutput<typeof LoginInput>, ctx: HandlerContext): Promise<Result<Output>> {
  const { username, password } = input;
  const ip = ctx.request.ip;
  const locked = await ctx.auth.lockedUntil(username, ip);
  if (locked) return fail(lockedOut(locked, ctx.clock.now()));

  const account = await ctx.auth.checkPassword(username, password);
  if (!account) {
    const nowLocked = await ctx.auth.recordFailure(username, ip);
    return fail(nowLocked ? lockedOut(nowLocked, ctx.clock.now()) : badCredentials);
  }
  await ctx.auth.clearFailures(username, ip);
  const session = await ctx.auth.startSession(account.id, ip);
  return ok({ user: { username: account.username, role: account.role, auth_method: 'password' } }, [{ kind: 'set-session', token: session.token, username: account.username }]);
}
