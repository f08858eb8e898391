// TOTP enrolment and verification (spec §5 item 5). Secrets are sealed at rest; the last
// accepted time step is stored so a code can be used once only.
import type { Clock } from '../../domain/clock.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import type { SecondFactorService } from '../../handlers/accounts/service.ts';
import type { Db } from '../store/database.ts';
import { matchingStep, newTotpSecret, totpSecretText, totpUri } from './totp.ts';

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
      if (row?.totp_enabled === 1) return 'already_enabled';
      const secret = newTotpSecret();
      await db.updateTable('users').set({ totp_secret: secrets.seal(Buffer.from(secret).toString('base64')), totp_last_step: null }).where('id', '=', userId).execute();
      return { secret: totpSecretText(secret), otpauth_uri: totpUri(username, secret) };
    },

    async confirm(userId, code) {
      const row = await load(userId);
      if (!row?.totp_secret || row.totp_enabled === 1) return 'not_pending';
      const step = matchingStep(secretOf(row.totp_secret), code, clock.now());
      if (step === null || !(await consume(userId, step))) return 'invalid';
      await db.updateTable('users').set({ totp_enabled: 1 }).where('id', '=', userId).execute();
      return 'ok';
    },

    async disable(userId, code) {
      const row = await load(userId);
      if (!row?.totp_secret || row.totp_enabled !== 1) return 'not_enabled';
      const step = matchingStep(secretOf(row.totp_secret), code, clock.now());
      if (step === null || !(await consume(userId, step))) return 'invalid';
      await db.updateTable('users').set({ totp_enabled: 0, totp_secret: null, totp_last_step: null }).where('id', '=', userId).execute();
      return 'ok';
    },

    async verify(userId, code) {
      const row = await load(userId);
      if (!row?.totp_secret || row.totp_enabled !== 1) return 'invalid';
      const step = matchingStep(secretOf(row.totp_secret), code, clock.now());
      if (step === null) return 'invalid';
      return (await consume(userId, step)) ? 'ok' : 'replayed';
    },
  };
}
