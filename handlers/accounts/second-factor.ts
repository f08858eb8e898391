import type { Out } from '../../schema/common.ts';
import type { CodeInput, Enrolment, SecondFactorStatus } from '../../schema/accounts.ts';
import type { SessionContext } from '../context.ts';
import { secondFactorOffered } from '../../domain/sso/roles.ts';
import { fail, ok, type Result } from '../result.ts';

// Second factors belong to the person at the keyboard: these routes are closed to API keys
// and OAuth tokens (`scope: null`), so the runtime hands them a session's principal.

export async function secondFactorStatus(_input: object, ctx: SessionContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = ctx.principal;
  return ok(await ctx.secondFactor.status(me.userId));
}

/** A new secret and otpauth URI; nothing changes at sign-in until one code confirms it. */
export async function beginEnrolment(_input: object, ctx: SessionContext): Promise<Result<Out<typeof Enrolment>>> {
  const me = ctx.principal;
  const provider = await ctx.sso.providerOf(me.userId);
  if (!secondFactorOffered(provider, (await ctx.sso.ldap())?.config.totp ?? false)) {
    return fail({ code: 'invalid_input', field: 'totp', message: `a second factor is not offered to ${provider ?? 'these'} accounts; your identity provider signs you in` });
  }
  return ctx.secondFactor.beginEnrolment(me.userId, me.username);
}

export async function confirmEnrolment(input: Out<typeof CodeInput>, ctx: SessionContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const confirmed = await ctx.secondFactor.confirm(ctx.principal.userId, input.code);
  return confirmed.ok ? ok({ enabled: true, pending: false }) : confirmed;
}

/**
 * Needs a current code, so a stolen session alone cannot remove the second factor. Wrong codes
 * are limited: past the limit this session ends (audited) and the caller must sign in again,
 * which needs a code and is bounded by the sign-in lockout.
 */
export async function disableSecondFactor(input: Out<typeof CodeInput>, ctx: SessionContext): Promise<Result<Out<typeof SecondFactorStatus>>> {
  const me = ctx.principal;
  const disabled = await ctx.secondFactor.disable(me.userId, input.code);
  if (disabled.ok) return ok({ enabled: false, pending: false });
  // The service's only `unauthenticated` refusal: the wrong-code allowance is used up.
  if (disabled.error.code === 'unauthenticated') {
    await ctx.auth.endSession(me.sessionId);
    ctx.request.noteAudit({ second_factor: 'too_many_wrong_codes', outcome_detail: 'session_revoked' });
  }
  return disabled;
}
