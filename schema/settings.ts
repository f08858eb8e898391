import * as v from 'valibot';
import { ObservabilitySettings } from './observability.ts';
import { AiGuardrails, ProviderName, ReportSchedule } from './copilot.ts';
import { ScanMode } from './security-scan.ts';
import { LicenseSettings } from './license.ts';
import { Role } from './access.ts';

// Runtime-editable settings, one JSON document per key in the `settings` table. Helm values
// (CAPSTAN_* variables) provide the defaults; a value an admin stored wins from then on.

export const LocalLogin = v.picklist(['all', 'admin_only', 'off']);
export type LocalLogin = v.InferOutput<typeof LocalLogin>;

const WholeSeconds = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(366 * 24 * 3600));

export const AutoBanPolicy = v.object({
  /** Forged or malformed credentials from one address within `window_secs` that trigger a ban. */
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000)),
  window_secs: v.pipe(WholeSeconds, v.minValue(1)),
  /** 0 = until an admin lifts it. */
  ban_secs: WholeSeconds,
});

export const SecuritySettings = v.object({
  /** security.sessionIdleTimeout: sliding idle timeout; 0 disables it (the 24 h ceiling still applies). */
  session_idle_timeout_secs: WholeSeconds,
  /** sso.local_login. */
  local_login: LocalLogin,
  auto_ban: AutoBanPolicy,
});
export type SecuritySettings = v.InferOutput<typeof SecuritySettings>;

export const AccessControlSettings = v.object({
  /** Empty: every address may connect (subject to the denylist and bans). */
  allowlist: v.array(v.string()),
  denylist: v.array(v.string()),
});
export type AccessControlSettings = v.InferOutput<typeof AccessControlSettings>;

export const AuditStreamSettings = v.object({
  webhook_url: v.nullable(v.string()),
  /** Sealed with the at-rest key. */
  webhook_token_sealed: v.nullable(v.string()),
});
export type AuditStreamSettings = v.InferOutput<typeof AuditStreamSettings>;

export const ActivitySettings = v.object({
  /** Overrides CLUSTER_EVENTS_RETENTION_DAYS (POST /activity/retention). */
  retention_days: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365)),
});
export type ActivitySettings = v.InferOutput<typeof ActivitySettings>;

export const McpSettings = v.object({
  /** The kill switch: false closes every MCP surface (protocol and REST pair) with 403 mcp_disabled. */
  enabled: v.boolean(),
});
export type McpSettings = v.InferOutput<typeof McpSettings>;

/** The runtime expert-mode switch: off (the default), every Helm route answers 403 expert_mode_disabled (docs/expert-mode.md). */
export const ExpertModeSettings = v.object({ enabled: v.boolean() });

/** AI Settings as stored: the provider key sealed with the at-rest key, never shown. */
export const AiSettings = v.object({
  provider: v.nullable(ProviderName),
  model: v.string(),
  base_url: v.nullable(v.string()),
  api_key_sealed: v.nullable(v.string()),
});
export type AiSettings = v.InferOutput<typeof AiSettings>;

/** scanner_source: overrides security.scanning.mode at runtime; null keeps the chart's (docs/security-posture.md). */
export const ScanningSettings = v.object({ scanner_source: v.nullable(ScanMode) });
export type ScanningSettings = v.InferOutput<typeof ScanningSettings>;

/** Admin → Groups: the role a group gets the first time an SSO sign-in carries it (spec §5 "SSO" 3: viewer unless an admin chose otherwise). */
export const SsoRolesSettings = v.object({ default_role: Role });
export type SsoRolesSettings = v.InferOutput<typeof SsoRolesSettings>;

export const SETTING_SCHEMAS = {
  security: SecuritySettings,
  access_control: AccessControlSettings,
  audit_stream: AuditStreamSettings,
  activity: ActivitySettings,
  mcp: McpSettings,
  expert_mode: ExpertModeSettings,
  ai: AiSettings,
  ai_guardrails: AiGuardrails,
  ai_reports: ReportSchedule,
  scanning: ScanningSettings,
  license: LicenseSettings,
  sso_roles: SsoRolesSettings,
  observability: ObservabilitySettings,
} as const;

export type SettingKey = keyof typeof SETTING_SCHEMAS;
export type SettingValues = { [K in SettingKey]: v.InferOutput<(typeof SETTING_SCHEMAS)[K]> };
