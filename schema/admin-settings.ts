import * as v from 'valibot';
import { AutoBanPolicy, LocalLogin } from './settings.ts';
import { Timestamp } from './common.ts';

export const SecuritySettingsView = v.object({
  session_idle_timeout_secs: v.number(),
  local_login: LocalLogin,
  auto_ban: AutoBanPolicy,
});
export const SecuritySettingsInput = v.object({
  session_idle_timeout_secs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(30 * 24 * 3600))),
  local_login: v.optional(LocalLogin),
  auto_ban: v.optional(AutoBanPolicy),
});

const Cidr = v.pipe(v.string(), v.trim(), v.maxLength(64));
export const IpBanView = v.object({ ip: v.string(), reason: v.string(), created_at: Timestamp, expires_at: v.nullable(Timestamp) });
export const AccessControlView = v.object({
  allowlist: v.array(v.string()),
  denylist: v.array(v.string()),
  bans: v.array(IpBanView),
  /** The address this request came from, so an admin sees what a list change would do to them. */
  your_ip: v.string(),
});
export const AccessControlInput = v.object({
  allowlist: v.optional(v.pipe(v.array(Cidr), v.maxLength(1000))),
  denylist: v.optional(v.pipe(v.array(Cidr), v.maxLength(1000))),
});
export const IpInput = v.object({ ip: v.pipe(v.string(), v.maxLength(64)) });
export const Lifted = v.object({ status: v.literal('lifted') });

/** Streaming to audit.webhookUrl: the forwarder's counters. */
export const AuditStreamStats = v.object({
  queued: v.number(),
  delivered: v.number(),
  dropped: v.number(),
  failures: v.number(),
  last_error: v.nullable(v.string()),
  last_delivered_at: v.nullable(Timestamp),
});
export const AuditStreamView = v.object({
  webhook_url: v.nullable(v.string()),
  /** `••••` when a token is stored; never the token. */
  webhook_token: v.nullable(v.string()),
  stats: AuditStreamStats,
});
export const AuditStreamInput = v.object({
  webhook_url: v.nullable(v.pipe(v.string(), v.url('webhook_url must be an http(s) URL'), v.regex(/^(https?|HTTPS?):\/\//, 'webhook_url must be an http(s) URL'), v.maxLength(2048))),
  /** Send `••••` back to keep the stored token (same URL only; a new URL needs the token again); null removes it. */
  webhook_token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4096)))),
});

export const ActivityRetention = v.object({ retention_days: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365)) });
