import type { Licensing } from '../../handlers/access/service.ts';
import type { LicensedFeature } from '../../schema/access.ts';

/**
 * The Free tier: what runs with no license installed. Paid features (`observability`,
 * `sso`, `copilot`) answer 402 until license handling lands; the MCP server is Free.
 */
export const FREE_TIER: Licensing = {
  tier: 'free',
  has: (feature: LicensedFeature) => FREE_FEATURES.has(feature),
};

const FREE_FEATURES: ReadonlySet<LicensedFeature> = new Set(['mcp']);
