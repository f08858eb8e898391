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
  const started = await ctx.secondFactor.beginEnrolment(me.userId, me.username);
  if (started === 'already_enabled') return fail({ code: 'invalid_input', field: 'totp', message: 'a second factor is already active; disable it first' });
  return ok(started);
}

export async function confirmEnrolment(input: Out<typeof CodeInput>, ctx: HandlerContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  const verdict = await ctx.secondFactor.confirm(me.userId, input.code);
  if (verdict === 'not_pending') return fail({ code: 'invalid_input', field: 'code', message: 'start an enrolment first' });
  if (verdict === 'invalid') return fail({ code: 'invalid_input', field: 'code', message: 'code does not match; check the authenticator clock' });
  return ok({ enabled: true, pending: false });
}

/**
 * Needs a current code, so a stolen session alone cannot remove the second factor. Wrong codes
 * are limited: past the limit this session ends (audited) and the caller must sign in again,
 * which needs a code and is bounded by the sign-in lockout.
 */
export async function disableSecondFactor(input: Out<typeof CodeInput>, ctx: HandlerContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = sessionUser(ctx);
  if (!me) return fail(signIn);
  const verdict = await ctx.secondFactor.disable(me.userId, input.code);
  if (verdict === 'too_many') {
    await ctx.auth.endSession(me.sessionId);
    ctx.request.noteAudit({ second_factor: 'too_many_wrong_codes', outcome_detail: 'session_revoked' });
    return fail({ code: 'unauthenticated', message: 'too many wrong codes: this session has ended; sign in again to try again' });
  }
  if (verdict === 'not_enabled') return fail({ code: 'invalid_input', field: 'code', message: 'no second factor is active' });
  if (verdict === 'invalid') return fail({ code: 'invalid_input', field: 'code', message: 'code does not match or was already used' });
  return ok({ enabled: false, pending: false });
}
