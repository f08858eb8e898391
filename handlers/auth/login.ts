import type * as v from 'valibot';
import type { LoginInput, LoginOutput } from '../../schema/auth.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

type Output = v.InferOutput<typeof LoginOutput>;

const badCredentials: AppError = { code: 'unauthenticated', message: 'wrong username or password' };

export function lockedOut(until: Date, now: Date): AppError {
  const retryAfterSecs = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return { code: 'locked_out', message: 'too many failed sign-ins for this account from this address; try again later', retryAfterSecs };
}

/**
 * Password sign-in (spec §5). Six attempts (a wrong password or a wrong second-factor code each
 * use one) for one account from one address lock that pair for 15 minutes (429), even for the
 * right password; failures never ban the address itself. Each attempt is counted before its
 * password is checked, so parallel attempts cannot outrun the count; one that turns out to have
 * guessed nothing wrong is given back. `sso.local_login` can limit password sign-in to admins or
 * turn it off.
 */
export async function login(input: v.InferOutput<typeof LoginInput>, ctx: HandlerContext): Promise<Result<Output>> {
  const { username, password, code } = input;
  const ip = ctx.request.ip;
  // Failed sign-ins are audited with the name that was tried (the actor is still anonymous).
  ctx.request.noteAudit({ username });
  const { local_login } = await ctx.runtimeSettings.get('security');
  if (local_login === 'off') return fail({ code: 'not_found', message: 'password sign-in is turned off' });
  const attempt = await ctx.auth.beginAttempt(username, ip);
  if (!attempt.admitted) return fail(lockedOut(attempt.lockedUntil, ctx.clock.now()));

  // Already counted: a failure only has to say whether it was the last one allowed.
  const failed = (error: AppError): Result<Output> => fail(attempt.lockedUntil ? lockedOut(attempt.lockedUntil, ctx.clock.now()) : error);
  const refunded = async (error: AppError): Promise<Result<Output>> => {
    await ctx.auth.refundAttempt(username, ip);
    return fail(error);
  };
  const account = await ctx.auth.checkPassword(username, password);
  if (!account) return failed(badCredentials);
  if (local_login === 'admin_only' && account.role !== 'admin') return refunded({ code: 'forbidden', message: 'password sign-in is limited to admins' });
  if (account.totpEnabled) {
    if (code === undefined) return refunded({ code: 'second_factor_required', message: 'enter the code from your authenticator app' });
    const verified = await ctx.secondFactor.verify(account.id, code);
    if (!verified.ok) return failed(verified.error);
  }
  await ctx.auth.clearFailures(username, ip);
  const session = await ctx.auth.startSession(account.id, ip);
  return ok({ user: { username: account.username, role: account.role, auth_method: 'password' } }, [{ kind: 'set-session', token: session.token, username: account.username }]);
}
