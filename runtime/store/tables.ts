// The embedded database's tables, as Kysely sees them. Times are epoch milliseconds.
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  role: 'admin' | 'viewer';
  password_hash: string | null;
  active: number;
  created_at: number;
  /** Sealed with the at-rest key; null when no second factor was ever enrolled. */
  totp_secret: Generated<string | null>;
  totp_enabled: Generated<number>;
  totp_last_step: Generated<number | null>;
  /** Codes tried to turn the second factor off since the last sign-in with a code (limit in runtime/auth/second-factor.ts). */
  totp_disable_attempts: Generated<number>;
  /** 1 once an admin set the role by hand: SSO sign-ins no longer change it (domain/sso/roles.ts). */
  role_pinned: Generated<number>;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  last_seen_at: number;
  ip: string;
}

/** A session signed in through SAML: the IdP's NameID and SessionIndex for single logout (migration 14). */
export interface SamlSessionsTable {
  session_id: string;
  name_id: string;
  name_id_format: string | null;
  session_index: string | null;
  created_at: number;
}

export interface LoginFailuresTable {
  username: string;
  ip: string;
  count: number;
  first_failed_at: number;
  locked_until: number | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** Public part of the key, indexed for lookup. */
  prefix: string;
  /** SHA-256 (hex) of the secret part; the secret itself is never stored. */
  secret_hash: string;
  /** JSON array of scopes. */
  scopes: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** General audit log: append-only, each row chained to the previous row's hash. */
export interface AuditLogTable {
  id: number;
  ts: number;
  /** `user@ip`; `anonymous@ip` before authentication. */
  actor: string;
  category: string;
  action: string;
  status: number;
  outcome: string;
  severity: string;
  namespace: string | null;
  /** Redacted JSON object: path, query, and what the handler noted. */
  detail: string;
  prev_hash: string;
  hash: string;
}

/** Routine read polling: kept 7 days, not chained. */
export interface AccessLogTable {
  id: Generated<number>;
  ts: number;
  actor: string;
  action: string;
  status: number;
}

/** Runtime-editable settings (admin screens, recovery CLIs): one JSON value per key. */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

/** Durable automatic bans (auth_flood); expires_at null = until an admin lifts it. */
export interface IpBansTable {
  ip: string;
  reason: string;
  created_at: number;
  expires_at: number | null;
}

/**
 * One resource-history series: a pod, a namespace's sum over its pods, or the cluster's sum.
 * `namespace` is '' for the cluster series; `pod` is '' unless `kind` is 'pod'.
 */
export interface MetricSeriesTable {
  id: Generated<number>;
  kind: 'pod' | 'namespace' | 'cluster';
  namespace: string;
  pod: string;
  first_seen: number;
  /** Advanced when the series' blocks are written; the series goes when this is 7 days old. */
  last_seen: number;
}

/**
 * One series' samples over one block of time, encoded by runtime/metrics/codec.ts.
 * tier 0: raw 60 s samples, one-hour blocks, kept ~26 h; tier 1: 10-minute points, six-hour
 * blocks, kept 7 days. A block may have more than one row (a restart mid-block); readers merge.
 */
export interface MetricBlocksTable {
  id: Generated<number>;
  series_id: number;
  tier: number;
  /** Epoch seconds, not milliseconds: the codec and the history API count in seconds. */
  block_start_ts: number;
  /** libsql reads a BLOB back as an ArrayBuffer. */
  payload: import('kysely').ColumnType<ArrayBuffer, Uint8Array, Uint8Array>;
}

/** Applications: a saved label selector across namespaces (schema/apps.ts). */
export interface AppsTable {
  /** `app_` and 12 random base32 characters: stable across renames, so deep links last. */
  id: string;
  name: string;
  /** JSON array of namespace names. */
  namespaces: string;
  /** JSON LabelSelector (match_labels, match_expressions). */
  selector: string;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/** MCP clients registered dynamically (RFC 7591); public clients, PKCE only. */
export interface OAuthClientsTable {
  id: string;
  name: string;
  /** JSON array. */
  redirect_uris: string;
  created_at: number;
  /** When a user last approved it (a code issued); null: never, so it expires (runtime/oauth/oauth.ts). */
  last_authorized_at: number | null;
  /** Deleted by an admin: unusable, kept while its revoked tokens may still be presented. */
  deleted_at: number | null;
}

/** Authorization codes: single use, ten minutes; only their SHA-256 is kept. */
export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: number;
  used_at: number | null;
}

/** Access tokens: one hour, bound to one resource (the MCP endpoint URL); only their SHA-256 is kept. */
export interface OAuthTokensTable {
  id: string;
  token_hash: string;
  client_id: string;
  user_id: number;
  resource: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

/** What the copilot's daily limits and cost caps count: one row per actor (`user@…` without the address) and UTC day. */
export interface AiUsageTable {
  actor: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  runs: number;
  chat_prompts: number;
  input_tokens: number;
  output_tokens: number;
}

/** A chat thread: the agent session transcript (kept 180 days from its last turn). */
export interface AiConversationsTable {
  id: string;
  user_id: number;
  title: string;
  created_at: number;
  updated_at: number;
}

export interface AiMessagesTable {
  id: Generated<number>;
  conversation_id: string;
  role: 'user' | 'assistant';
  content: string;
  /** JSON: [{id, verified, link}] for an answer, [] for a question. */
  citations: string;
  /** `model`, `diagnosis_without_model`, or `user`. */
  source: string;
  created_at: number;
}

/** The prompt audit: what a run sent to a provider and what came back, redacted (30 days by default). */
export interface AiPromptLogTable {
  id: Generated<number>;
  ts: number;
  actor: string;
  kind: string;
  provider: string;
  model: string;
  sent: string;
  received: string;
  input_tokens: number;
  output_tokens: number;
}

/** An AI Context document: admin-curated markdown; include_in_ai 1 attaches it to every run. */
export interface AiContextDocsTable {
  id: Generated<number>;
  title: string;
  body: string;
  include_in_ai: number;
  created_at: number;
  updated_at: number;
  updated_by: string;
}

/** A stored Diagnose result or SRE report. */
export interface AiAnswersTable {
  id: string;
  kind: 'diagnose' | 'report';
  /** The namespace diagnosed, or `*` (a report over every namespace in scope). */
  scope: string;
  actor: string;
  created_at: number;
  source: string;
  text: string;
  citations: string;
  /** JSON: model, usage, steps, tool_calls, finish, error. */
  run: string;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

/** A scan (migration 12); runtime/security/scan-runner.ts. */
export interface ScanRunsTable {
  id: string;
  started_at: number;
  finished_at: number | null;
  status: 'running' | 'succeeded' | 'failed';
  job_name: string;
  source: 'operator' | 'self' | 'none';
  requested_by: string;
  error: string | null;
  /** 1 when a findings list was cut at the per-run cap (the counts are still whole). */
  findings_truncated: Generated<number>;
}

export interface ScanNamespaceCountsTable {
  run_id: string;
  namespace: string;
  passed: number;
  warnings: number;
  dangers: number;
  critical: number;
  high: number;
  medium: number;
  low: number;
  unknown: number;
  workloads: number;
  misconfigs: number;
  vulns: number;
}

export interface PostureFindingsTable {
  id: Generated<number>;
  run_id: string;
  finding_id: string;
  namespace: string;
  workload: string;
  workload_kind: string;
  check_id: string;
  severity: string;
  container: string | null;
  message: string;
  source: string;
}

export interface VulnFindingsTable {
  id: Generated<number>;
  run_id: string;
  finding_id: string;
  namespace: string;
  workload: string;
  image: string;
  cve: string;
  severity: string;
  cvss: number | null;
  pkg: string;
  installed_ver: string;
  fixed_ver: string | null;
  source: string;
}

/** One row per SSO protocol configured (docs/sso.md); the configuration sealed with the at-rest key. */
export interface SsoProvidersTable {
  provider: 'ldap' | 'oidc' | 'saml';
  enabled: number;
  config_sealed: string;
  updated_at: number;
}

/** An SSO user as the provider knows them, keyed on (provider, subject); `groups` is a JSON array of their groups at the last sign-in. */
export interface SsoIdentitiesTable {
  provider: 'ldap' | 'oidc' | 'saml';
  subject: string;
  user_id: number;
  /** The email of the last sign-in, lower-cased, only when the provider vouched for it (verified): what the admin emails are matched with when the role is re-resolved; else null. */
  email: string | null;
  groups: string;
  last_sign_in_at: number;
}

/** Admin → Groups: a group appears the first time a sign-in carries it, with role viewer. */
export interface SsoGroupsTable {
  provider: 'ldap' | 'oidc' | 'saml';
  name: string;
  role: 'admin' | 'viewer';
  first_seen_at: number;
}

/** Emails (lower-cased) that make an SSO user admin whatever their groups. */
export interface SsoAdminEmailsTable {
  email: string;
}

/** A user's own arrangement of the topology around one focus: node id → position (JSON). */
export interface TopologyLayoutsTable {
  user_id: number;
  focus: string;
  positions: string;
  updated_at: number;
}

/** One terminal session (spec §6 terminal session audit, 180 days). */
export interface TerminalSessionsTable {
  id: string;
  user_id: number;
  username: string;
  role: string;
  namespace: string;
  client_ip: string;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  /** A pod shell's container (`namespace/pod/container`); null for the sidecar's shell. */
  target: string | null;
}

/** One command run in a terminal session, redacted (spec §2 terminal command record). */
export interface TerminalCommandsTable {
  id: Generated<number>;
  session_id: string;
  user_id: number;
  username: string;
  namespace: string;
  at: number;
  command: string;
}

/** One long operation (domain/tasks/task.ts). */
export interface TasksTable {
  id: string;
  kind: string;
  actor: string;
  state: string;
  reason: string | null;
  detail: string;
  consequence: string | null;
  started_at: number;
  ended_at: number | null;
}

/** When each admin last opened the Tasks tray: the badge counts what ended since. */
export interface TaskTrayOpenedTable {
  user_id: number;
  opened_at: number;
  /** 1: this admin muted the toasts (rows and badge stay). */
  muted: number;
}

/** A saved Helm repository or registry (runtime/helm/config-store.ts); the password sealed. */
export interface HelmConfigsTable {
  id: Generated<number>;
  name: string;
  /** The name lowercased: unique, so two configs never differ by case only. */
  name_key: string;
  url: string;
  username: string | null;
  password_sealed: string | null;
  plain_http: number;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  saml_sessions: SamlSessionsTable;
  login_failures: LoginFailuresTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  access_log: AccessLogTable;
  settings: SettingsTable;
  ip_bans: IpBansTable;
  schema_migrations: SchemaMigrationsTable;
  metric_series: MetricSeriesTable;
  metric_blocks: MetricBlocksTable;
  apps: AppsTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  ai_usage: AiUsageTable;
  ai_conversations: AiConversationsTable;
  ai_messages: AiMessagesTable;
  ai_prompt_log: AiPromptLogTable;
  ai_context_docs: AiContextDocsTable;
  ai_answers: AiAnswersTable;
  scan_runs: ScanRunsTable;
  scan_namespace_counts: ScanNamespaceCountsTable;
  posture_findings: PostureFindingsTable;
  vuln_findings: VulnFindingsTable;
  sso_providers: SsoProvidersTable;
  sso_identities: SsoIdentitiesTable;
  sso_groups: SsoGroupsTable;
  sso_admin_emails: SsoAdminEmailsTable;
  topology_layouts: TopologyLayoutsTable;
  terminal_sessions: TerminalSessionsTable;
  terminal_commands: TerminalCommandsTable;
  tasks: TasksTable;
  task_tray_opened: TaskTrayOpenedTable;
  helm_configs: HelmConfigsTable;
}
