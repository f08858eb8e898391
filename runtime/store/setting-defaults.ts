// What a database with nothing stored reads as: the Helm values (CAPSTAN_* variables) that seed
// the runtime-editable settings, and every other setting's default. The agent's assembly and
// the recovery commands (which open the same database from another process) share it.
import type { SettingValues } from '../../schema/settings.ts';
import { DEFAULT_GUARDRAILS, DEFAULT_REPORT_SCHEDULE } from '../../schema/copilot.ts';
import type { SecretBox } from '../crypto/secret-box.ts';

/** Helm values (CAPSTAN_* variables) that seed the runtime-editable settings. */
export interface SettingDefaults {
  sessionIdleTimeoutSecs: number;
  auditWebhookUrl: string | null;
  auditWebhookToken: string | null;
  activityRetentionDays: number;
  allowlist: string[];
  denylist: string[];
  /** PROMETHEUS_URL (`agent.prometheusUrl`): the Prometheus source until an admin saves one. */
  prometheusUrl: string | null;
}

export const DEFAULT_SETTING_DEFAULTS: SettingDefaults = {
  sessionIdleTimeoutSecs: 28800,
  auditWebhookUrl: null,
  auditWebhookToken: null,
  activityRetentionDays: 7,
  allowlist: [],
  denylist: [],
  prometheusUrl: null,
};

/** Where no history store runs (tests of other surfaces): every window is empty, in the buckets the store would use. */

/** auth_flood: 20 forged or malformed credentials within a minute ban the address for an hour. */
export const DEFAULT_AUTO_BAN = { threshold: 20, window_secs: 60, ban_secs: 3600 };

/** The settings a database with nothing stored reads as. */
export function settingValues(given: Partial<SettingDefaults>, secrets: SecretBox): SettingValues {
  const d = { ...DEFAULT_SETTING_DEFAULTS, ...given };
  return {
    security: { session_idle_timeout_secs: d.sessionIdleTimeoutSecs, local_login: 'all', auto_ban: DEFAULT_AUTO_BAN },
    access_control: { allowlist: d.allowlist, denylist: d.denylist },
    audit_stream: { webhook_url: d.auditWebhookUrl, webhook_token_sealed: d.auditWebhookToken === null ? null : secrets.seal(d.auditWebhookToken) },
    activity: { retention_days: d.activityRetentionDays },
    mcp: { enabled: true },
    expert_mode: { enabled: false },
    ai: { provider: null, model: 'default', base_url: null, api_key_sealed: null },
    ai_guardrails: DEFAULT_GUARDRAILS,
    ai_reports: DEFAULT_REPORT_SCHEDULE,
    scanning: { scanner_source: null },
    license: { key_sealed: null, removed_install_key_sha256: null },
    sso_roles: { default_role: 'viewer' },
    observability: { prometheus: d.prometheusUrl === null ? null : { url: d.prometheusUrl, auth: 'none', username: null, secret_sealed: null }, grafana: null, metrics_source: 'builtin' },
  };
}
