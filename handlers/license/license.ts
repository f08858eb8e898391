// Admin → License: the key in force, installing one and removing it (GET/PUT/DELETE
// /admin/license, session-only admin routes). docs/licensing.md.
import { judgeKey, tierInForce, type KeyVerdict } from '../../domain/license/key.ts';
import { TIER_FEATURES } from '../../domain/license/tiers.ts';
import type { InstallLicenseInput, LicenseSource, LicenseView } from '../../schema/license.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import { MASK } from '../settings/audit-stream.ts';

export function licenseView(verdict: KeyVerdict, source: LicenseSource | null): LicenseView {
  const tier = tierInForce(verdict);
  const payload = verdict.state === 'valid' || verdict.state === 'expired' ? verdict.payload : null;
  return {
    tier,
    state: verdict.state,
    reason: verdict.state === 'invalid' || verdict.state === 'expired' ? verdict.reason : null,
    key_tier: payload?.tier ?? null,
    licensee: payload?.licensee ?? null,
    id: payload?.id ?? null,
    issued_at: payload ? new Date(payload.issued_at).toISOString() : null,
    expires_at: payload ? new Date(payload.expires_at).toISOString() : null,
    key: verdict.state === 'none' ? null : MASK,
    source: verdict.state === 'none' ? null : source,
    features: [...TIER_FEATURES[tier]],
  };
}

export function getLicense(_input: object, ctx: HandlerContext): Result<LicenseView> {
  const { verdict, source } = ctx.license.current();
  return ok(licenseView(verdict, source));
}

/**
 * Only a key that is in force now is installed: an invalid or expired one is refused (400 naming
 * `key` and why), so a typo never replaces a working license.
 */
export async function installLicense(input: InstallLicenseInput, ctx: HandlerContext): Promise<Result<LicenseView>> {
  const verdict = judgeKey(ctx.license.read(input.key), ctx.clock.now());
  if (verdict.state === 'invalid' || verdict.state === 'expired') return fail({ code: 'invalid_input', field: 'key', message: `license key not installed: ${verdict.reason}` });
  if (verdict.state === 'none') return fail({ code: 'invalid_input', field: 'key', message: 'license key is empty' });
  const p = verdict.payload;
  ctx.request.noteAudit({ license_id: p.id, tier: p.tier, licensee: p.licensee, expires_at: p.expires_at });
  await ctx.license.install(input.key);
  return getLicense({}, ctx);
}

/** Back to Free, whatever was in force (an admin's key or the install key). */
export async function removeLicense(_input: object, ctx: HandlerContext): Promise<Result<LicenseView>> {
  const { verdict } = ctx.license.current();
  ctx.request.noteAudit({ removed_license_id: verdict.state === 'valid' || verdict.state === 'expired' ? verdict.payload.id : '(none)' });
  await ctx.license.remove();
  return getLicense({}, ctx);
}
