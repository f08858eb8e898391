// TOTP enrolment and verification (spec §5 item 5). Secrets are sealed at rest; the last
// accepted time step is stored so a code can be used once only.
import { sql } from 'kysely';
import type { Clock } from '../../domain/clock.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import type { SecondFactorService } from '../../handlers/accounts/service.ts';
import { fail, ok, type AppError } from '../../handlers/result.ts';
import type { Db } from '../store/database.ts';
import { matchingStep, newTotpSecret, totpSecretText, totpUri } from './totp.ts';

/**
 * Codes checked to turn the second factor off, per user, between sign-ins with a code. Five
 * leaves room for typos and an authenticator clock that is off, while a stolen session gets
 * five guesses in a million before it must sign in again, which needs a code itself and is
 * bounded by the sign-in lockout.
 */
export const DISABLE_ATTEMPT_LIMIT = 5;

const codeRefused = (message: string): AppError => ({ code: 'invalid_input', field: 'code', message });
const signInRefused = (message: string): AppError => ({ code: 'unauthenticated', message });

export function createSecondFactor(db: Db, clock: Clock, secrets: Secrets): SecondFactorService {
  const load = (userId: number) => db.selectFrom('users').select(['totp_secret', 'totp_enabled']).where('id', '=', userId).executeTakeFirst();
  const secretOf = (sealed: string) => new Uint8Array(Buffer.from(secrets.open(sealed), 'base64'));

  /** Stores `step` as the last accepted one unless a code of that step or later was already used (atomic, so two racing requests cannot both pass). */
  async function consume(userId: number, step: number): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  return {
    async status(userId) {
      const row = await load(userId);
      const enabled = row?.totp_enabled === 1;
      return { enabled, pending: !enabled && (row?.totp_secret ?? null) !== null };
    },

    async beginEnrolment(userId, username) {
      const row = await load(userId);
      if (row?.totp_enabled === 1) return fail({ code: 'invalid_input', field: 'totp', message: 'a second factor is already active; disable it first' });
      const secret = newTotpSecret();
      await db.updateTable('users').set({ totp_secret: secrets.seal(Buffer.from(secret).toString('base64')), totp_last_step: null }).where('id', '=', userId).execute();
      return ok({ secret: totpSecretText(secret), otpauth_uri: totpUri(username, secret) });
    },

    async confirm(userId, code) {
      const row = await load(userId);
      if (!row?.totp_secret || row.totp_enabled === 1) return fail(codeRefused('start an enrolment first'));
      const step = matchingStep(secretOf(row.totp_secret), code, clock.now());
      if (step === null || !(await consume(userId, step))) return fail(codeRefused('code does not match; check the authenticator clock'));
      await db.updateTable('users').set({ totp_enabled: 1, totp_disable_attempts: 0 }).where('id', '=', userId).execute();
      return ok(undefined);
    },

    async disable(userId, code) {
      // Counted before the code is checked, in the statement that reads the secret, so parallel
      // guesses cannot all be checked before any is counted.
      const tooMany = fail(signInRefused('too many wrong codes: this session has ended; sign in again to try again'));
      const admitted = await db
        .updateTable('users')
        .set({ totp_disable_attempts: sql<number>`totp_disable_attempts + 1` })
        .where('id', '=', userId)
        .where('totp_enabled', '=', 1)
        .where('totp_disable_attempts', '<', DISABLE_ATTEMPT_LIMIT)
        .returning(['totp_secret', 'totp_disable_attempts'])
        .executeTakeFirst();
      const notEnabled = fail(codeRefused('no second factor is active'));
      if (!admitted) return (await load(userId))?.totp_enabled === 1 ? tooMany : notEnabled;
      if (admitted.totp_secret === null) return notEnabled;
      const step = matchingStep(secretOf(admitted.totp_secret), code, clock.now());
      if (step === null || !(await consume(userId, step))) {
        return admitted.totp_disable_attempts >= DISABLE_ATTEMPT_LIMIT ? tooMany : fail(codeRefused('code does not match or was already used'));
      }
      await db.updateTable('users').set({ totp_enabled: 0, totp_secret: null, totp_last_step: null, totp_disable_attempts: 0 }).where('id', '=', userId).execute();
      return ok(undefined);
    },

    async verify(userId, code) {
      const row = await load(userId);
      const wrong = fail(signInRefused('wrong second-factor code'));
      if (!row?.totp_secret || row.totp_enabled !== 1) return wrong;
      const step = matchingStep(secretOf(row.totp_secret), code, clock.now());
      if (step === null) return wrong;
      if (!(await consume(userId, step))) return fail(signInRefused('that code was already used; wait for the next one'));
      // Signed in with a code: the person holds the factor, so removing it may be tried again.
      await db.updateTable('users').set({ totp_disable_attempts: 0 }).where('id', '=', userId).execute();
      return ok(undefined);
    },
  };
}
