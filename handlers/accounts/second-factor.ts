import type * as v from 'valibot';
import type { CodeInput, Enrolment, SecondFactorStatus } from '../../schema/accounts.ts';
import type { HandlerContext, Principal } from '../context.ts';
import { fail, ok, type AppError, type Result } from '../result.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

const signIn: AppError = { code: 'unauthenticated', message: 'sign in first' };

/** Second factors belong to the person at the keyboard: sessions only (the routes are closed to API keys too). */
function sessionUser(ctx: HandlerContext): Extract<Principal, { via: 'session' }> | null {
  return ctx.principal?.via === 'session' ? ctx.principal : null;
}

export async function secondFactorStatus(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  return ok(await ctx.secondFactor.status(me.userId));
}

/** A new secret and otpauth URI; nothing changes at sign-in until one code confirms it. */
export async function beginEnrolment(_input: object, ctx: HandlerContext): Promise<Result<Out<typeof Enrolment>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  return ctx.secondFactor.beginEnrolment(me.userId, me.username);
}

export async function confirmEnrolment(input: Out<typeof CodeInput>, ctx: HandlerContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  const confirmed = await ctx.secondFactor.confirm(me.userId, input.code);
  return confirmed.ok ? ok({ enabled: true, pending: false }) : confirmed;
}

/**
 * Needs a current code, so a stolen session alone cannot remove the second factor. Wrong codes
 * are limited: past the limit this session ends (audited) and the caller must sign in again,
 * which needs a code and is bounded by the sign-in lockout.
 */
export async function disableSecondFactor(input: Out<typeof CodeInput>, ctx: HandlerContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  const disabled = await ctx.secondFactor.disable(me.userId, input.code);
  if (disabled.ok) return ok({ enabled: false, pending: false });
  // The service's only `unauthenticated` refusal: the wrong-code allowance is used up.
  if (disabled.error.code === 'unauthenticated') {
    await ctx.auth.endSession(me.sessionId);
    ctx.request.noteAudit({ second_factor: 'too_many_wrong_codes', outcome_detail: 'session_revoked' });
  }
  return disabled;
}
