// The one table of licensed features per tier (docs/licensing.md, "Tiers"; spec §1 "Tiers and
// licensing"). Each tier includes the one below it. What no route declares a feature for is
// Free and needs no entry: the structural graph, activity and audit, observability source
// configuration and the alert-router receiver, reading security reports, Copilot chat up to
// the Free daily limit. `copilot` lifts that limit (handlers/copilot/admission.ts).
import type { LicensedFeature } from '../../schema/access.ts';
import type { LicenseTier } from '../../schema/license.ts';

const FREE: readonly LicensedFeature[] = ['mcp'];
const PRO: readonly LicensedFeature[] = [...FREE, 'observability', 'copilot', 'self_scan'];
const ENTERPRISE: readonly LicensedFeature[] = [...PRO, 'sso'];

export const TIER_FEATURES: Readonly<Record<LicenseTier, readonly LicensedFeature[]>> = { free: FREE, pro: PRO, enterprise: ENTERPRISE };

export function tierHas(tier: LicenseTier, feature: LicensedFeature): boolean {
  return TIER_FEATURES[tier].includes(feature);
}
