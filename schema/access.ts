import * as v from 'valibot';

/** The API-key scopes of spec §2 "Scopes": its heading says 25, its table lists these 23 (docs/security.md). */
export const Scope = v.picklist([
  'activity:read', 'activity:write',
  'ai:invoke',
  'alerts:read', 'alerts:write',
  'apps:read', 'apps:write',
  'builder:read', 'builder:write',
  'helm:read', 'helm:write',
  'mcp:read',
  'metrics:read', 'metrics:write',
  'policy:read',
  'scanning:read', 'scanning:write',
  'topology:read', 'topology:write',
  'workloads:read', 'workloads:write',
  'workspace:read', 'workspace:write',
]);
export type Scope = v.InferOutput<typeof Scope>;

export const Role = v.picklist(['viewer', 'admin']);
export type Role = v.InferOutput<typeof Role>;

/**
 * What the audit middleware does with a request to a route: `none` for probes; `access`
 * for routine read polling (the 7-day access log when it succeeds, `http` in the chain when
 * refused); otherwise the hash-chained category it is filed under: `http` (audited and
 * sensitive reads), `write`, `auth` (identity, credentials, access control), `login`.
 */
export const AuditCategory = v.picklist(['none', 'access', 'http', 'write', 'auth', 'login']);
export type AuditCategory = v.InferOutput<typeof AuditCategory>;

/** Buckets the rate limiter keys its budgets on. */
export const RateLimitClass = v.picklist(['read', 'write', 'login', 'ai', 'discovery', 'register']);
export type RateLimitClass = v.InferOutput<typeof RateLimitClass>;

/** Features a license must carry for a route to answer (402 otherwise). */
/** `self_scan`: the built-in self-scan (Pro, spec §1 "Tiers"); refused by POST /security/scan itself, since only the `self` mode needs it. */
export const LicensedFeature = v.picklist(['mcp', 'observability', 'sso', 'copilot', 'self_scan']);
export type LicensedFeature = v.InferOutput<typeof LicensedFeature>;
