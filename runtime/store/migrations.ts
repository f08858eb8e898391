// Versioned migrations, applied in order, each in the same transaction as its bookkeeping
// row. Never edit a released migration: add the next one.
import { sql, type Kysely } from 'kysely';
import { rekeyUnkeyedChain } from '../audit/chain.ts';
import type { Database } from './tables.ts';

/** What a migration may need beyond the database: the time, and keys that are never stored in it. */
export interface MigrationContext {
  now: number;
  /** The audit chain's HMAC key (crypto/secret-box.ts auditChainKey); null where the caller has none. */
  auditChainKey: Buffer | null;
}

export interface Migration {
  version: number;
  name: string;
  up(db: Kysely<Database>, context: MigrationContext): Promise<void>;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts and sessions',
    async up(db) {
      await sql`CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        username TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
        password_hash TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        ip TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX sessions_user ON sessions(user_id)`.execute(db);
      await sql`CREATE TABLE login_failures (
        username TEXT NOT NULL,
        ip TEXT NOT NULL,
        count INTEGER NOT NULL,
        first_failed_at INTEGER NOT NULL,
        locked_until INTEGER,
        PRIMARY KEY (username, ip)
      )`.execute(db);
    },
  },
  {
    version: 2,
    name: 'api keys',
    async up(db) {
      await sql`CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        prefix TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        last_used_at INTEGER
      )`.execute(db);
      await sql`CREATE INDEX api_keys_user ON api_keys(user_id)`.execute(db);
    },
  },
  {
    version: 3,
    name: 'audit and access logs',
    async up(db) {
      await sql`CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY,
        ts INTEGER NOT NULL,
        actor TEXT NOT NULL,
        category TEXT NOT NULL,
        action TEXT NOT NULL,
        status INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX audit_log_ts ON audit_log(ts)`.execute(db);
      await sql`CREATE TABLE access_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        status INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX access_log_ts ON access_log(ts)`.execute(db);
    },
  },
  {
    version: 4,
    name: 'second factor, runtime settings, IP bans, audit detail',
    async up(db) {
      // Sealed (AES-256-GCM) TOTP secret; enrolment is inactive until one code is confirmed.
      await sql`ALTER TABLE users ADD COLUMN totp_secret TEXT`.execute(db);
      await sql`ALTER TABLE users ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0`.execute(db);
      // The last accepted 30 s step: a code from that step or earlier is a replay.
      await sql`ALTER TABLE users ADD COLUMN totp_last_step INTEGER`.execute(db);
      await sql`CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE ip_bans (
        ip TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER
      )`.execute(db);
      await sql`ALTER TABLE audit_log ADD COLUMN severity TEXT NOT NULL DEFAULT 'info'`.execute(db);
      await sql`ALTER TABLE audit_log ADD COLUMN namespace TEXT`.execute(db);
      await sql`ALTER TABLE audit_log ADD COLUMN detail TEXT NOT NULL DEFAULT ''`.execute(db);
      await sql`CREATE INDEX audit_log_actor ON audit_log(actor, ts)`.execute(db);
    },
  },
  {
    version: 5,
    name: 'resource history',
    async up(db) {
      await sql`CREATE TABLE metric_series (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('pod', 'namespace', 'cluster')),
        namespace TEXT NOT NULL,
        pod TEXT NOT NULL,
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        UNIQUE (kind, namespace, pod)
      )`.execute(db);
      // Rows get increasing rowids as blocks are written, hour by hour, so the table grows at
      // its end with full pages and retention frees whole pages at its start; the index is
      // what a query reads a series through, and what retention deletes by.
      await sql`CREATE TABLE metric_blocks (
        id INTEGER PRIMARY KEY,
        series_id INTEGER NOT NULL REFERENCES metric_series(id) ON DELETE CASCADE,
        tier INTEGER NOT NULL,
        block_start_ts INTEGER NOT NULL,
        payload BLOB NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX metric_blocks_series ON metric_blocks(series_id, tier, block_start_ts)`.execute(db);
    },
  },
  {
    version: 6,
    name: 'applications',
    async up(db) {
      // Names are unique ignoring case: two "Checkout" apps would be indistinguishable in a list.
      await sql`CREATE TABLE apps (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        namespaces TEXT NOT NULL,
        selector TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE UNIQUE INDEX apps_name ON apps(name COLLATE NOCASE)`.execute(db);
    },
  },
  {
    version: 7,
    name: 'oauth for mcp',
    async up(db) {
      await sql`CREATE TABLE oauth_clients (id TEXT PRIMARY KEY, name TEXT NOT NULL, redirect_uris TEXT NOT NULL, created_at INTEGER NOT NULL)`.execute(db);
      await sql`CREATE TABLE oauth_codes (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        redirect_uri TEXT NOT NULL,
        code_challenge TEXT NOT NULL,
        resource TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      )`.execute(db);
      await sql`CREATE TABLE oauth_tokens (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        resource TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER,
        last_used_at INTEGER
      )`.execute(db);
      await sql`CREATE INDEX oauth_tokens_user ON oauth_tokens(user_id, expires_at)`.execute(db);
    },
  },
  {
    version: 8,
    name: 'keyed audit chain; audit ids never reused',
    async up(db, context) {
      // AUTOINCREMENT: a plain INTEGER PRIMARY KEY hands the id of a deleted newest row out again
      // (after a purge keep_last 0), colliding with rows the webhook already forwarded under it.
      // SQLite cannot add it to a table, so the table is rebuilt; the columns keep their order.
      await sql`CREATE TABLE audit_log_v8 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts INTEGER NOT NULL,
        actor TEXT NOT NULL,
        category TEXT NOT NULL,
        action TEXT NOT NULL,
        status INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        severity TEXT NOT NULL DEFAULT 'info',
        namespace TEXT,
        detail TEXT NOT NULL DEFAULT ''
      )`.execute(db);
      await sql`INSERT INTO audit_log_v8 (id, ts, actor, category, action, status, outcome, prev_hash, hash, severity, namespace, detail)
        SELECT id, ts, actor, category, action, status, outcome, prev_hash, hash, severity, namespace, detail FROM audit_log`.execute(db);
      await sql`DROP TABLE audit_log`.execute(db);
      await sql`ALTER TABLE audit_log_v8 RENAME TO audit_log`.execute(db);
      await sql`CREATE INDEX audit_log_ts ON audit_log(ts)`.execute(db);
      await sql`CREATE INDEX audit_log_actor ON audit_log(actor, ts)`.execute(db);
      // Rows written so far were hashed with plain SHA-256, which anyone with the database can
      // recompute: they are checked as they are and re-hashed with the key, once (docs/security.md).
      const legacy = await db.selectFrom('audit_log').select('id').limit(1).executeTakeFirst();
      if (!legacy) return;
      if (!context.auditChainKey) throw new Error('upgrading the audit chain needs the encryption key (CAPSTAN_ENCRYPTION_KEY or DATA_DIR/encryption-key): open the database from the agent or a capstan command');
      await rekeyUnkeyedChain(db, context.auditChainKey, context.now);
    },
  },
  {
    version: 9,
    name: 'second-factor disable attempts',
    async up(db) {
      // Counted before each code is checked, so guessing the code to remove the factor is bounded.
      await sql`ALTER TABLE users ADD COLUMN totp_disable_attempts INTEGER NOT NULL DEFAULT 0`.execute(db);
    },
  },
  {
    version: 10,
    name: 'copilot: usage, transcripts, prompt log, AI Context documents, stored answers',
    async up(db) {
      // One row per actor and UTC day: what the daily limits and cost caps count. The install's
      // total is the sum of a day's rows.
      await sql`CREATE TABLE ai_usage (
        actor TEXT NOT NULL,
        day TEXT NOT NULL,
        runs INTEGER NOT NULL DEFAULT 0,
        chat_prompts INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (actor, day)
      )`.execute(db);
      // Agent session transcripts (180 days): one conversation per chat thread, its turns in order.
      await sql`CREATE TABLE ai_conversations (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX ai_conversations_user ON ai_conversations(user_id, updated_at)`.execute(db);
      await sql`CREATE TABLE ai_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES ai_conversations(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        citations TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX ai_messages_conversation ON ai_messages(conversation_id, id)`.execute(db);
      // The prompt audit (30 days by default, runtime-editable): what was sent and received, redacted.
      await sql`CREATE TABLE ai_prompt_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts INTEGER NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        sent TEXT NOT NULL,
        received TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX ai_prompt_log_ts ON ai_prompt_log(ts)`.execute(db);
      // AI Context: admin-curated markdown, user-authored content (never pruned).
      await sql`CREATE TABLE ai_context_docs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        include_in_ai INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        updated_by TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE UNIQUE INDEX ai_context_docs_title ON ai_context_docs(title COLLATE NOCASE)`.execute(db);
      // Diagnose results and scheduled SRE reports, stored to be listed and read again.
      await sql`CREATE TABLE ai_answers (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        actor TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        source TEXT NOT NULL,
        text TEXT NOT NULL,
        citations TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX ai_answers_kind ON ai_answers(kind, created_at)`.execute(db);
    },
  },
  {
    version: 11,
    name: 'stored answers keep how they were produced',
    async up(db) {
      // The model, token usage, steps and how the run ended, as JSON: read back whole, never queried.
      await sql`ALTER TABLE ai_answers ADD COLUMN run TEXT NOT NULL DEFAULT '{}'`.execute(db);
    },
  },
  {
    version: 12,
    name: 'scan history',
    async up(db) {
      // Scan history (spec §6: 90 days, security.scanning.retentionDays), pruned when a run is
      // inserted (runtime/security/scan-runner.ts); a run's rows go with it (ON DELETE CASCADE).
      await sql`CREATE TABLE scan_runs (
        id TEXT PRIMARY KEY,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
        job_name TEXT NOT NULL,
        source TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        error TEXT,
        findings_truncated INTEGER NOT NULL DEFAULT 0
      )`.execute(db);
      await sql`CREATE INDEX scan_runs_started ON scan_runs(started_at)`.execute(db);
      await sql`CREATE INDEX scan_runs_status ON scan_runs(status, finished_at)`.execute(db);
      // Per namespace, so a summary or trend point is re-added from what a caller may see.
      await sql`CREATE TABLE scan_namespace_counts (
        run_id TEXT NOT NULL REFERENCES scan_runs(id) ON DELETE CASCADE,
        namespace TEXT NOT NULL,
        passed INTEGER NOT NULL,
        warnings INTEGER NOT NULL,
        dangers INTEGER NOT NULL,
        critical INTEGER NOT NULL,
        high INTEGER NOT NULL,
        medium INTEGER NOT NULL,
        low INTEGER NOT NULL,
        unknown INTEGER NOT NULL,
        workloads INTEGER NOT NULL,
        misconfigs INTEGER NOT NULL,
        vulns INTEGER NOT NULL,
        PRIMARY KEY (run_id, namespace)
      )`.execute(db);
      await sql`CREATE TABLE posture_findings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES scan_runs(id) ON DELETE CASCADE,
        finding_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        workload TEXT NOT NULL,
        workload_kind TEXT NOT NULL,
        check_id TEXT NOT NULL,
        severity TEXT NOT NULL,
        container TEXT,
        message TEXT NOT NULL,
        source TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX posture_findings_run ON posture_findings(run_id)`.execute(db);
      await sql`CREATE TABLE vuln_findings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES scan_runs(id) ON DELETE CASCADE,
        finding_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        workload TEXT NOT NULL,
        image TEXT NOT NULL,
        cve TEXT NOT NULL,
        severity TEXT NOT NULL,
        cvss REAL,
        pkg TEXT NOT NULL,
        installed_ver TEXT NOT NULL,
        fixed_ver TEXT,
        source TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX vuln_findings_run ON vuln_findings(run_id)`.execute(db);
    },
  },
  {
    version: 13,
    name: 'single sign-on',
    async up(db) {
      // Additive only: local accounts keep working as they were (docs/sso.md).
      await sql`ALTER TABLE users ADD COLUMN role_pinned INTEGER NOT NULL DEFAULT 0`.execute(db);
      await sql`CREATE TABLE sso_providers (
        provider TEXT PRIMARY KEY CHECK (provider IN ('ldap', 'oidc', 'saml')),
        enabled INTEGER NOT NULL,
        config_sealed TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      )`.execute(db);
      // One account per identity; the account goes, the identity goes with it.
      await sql`CREATE TABLE sso_identities (
        provider TEXT NOT NULL CHECK (provider IN ('ldap', 'oidc', 'saml')),
        subject TEXT NOT NULL,
        user_id INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
        email TEXT,
        groups TEXT NOT NULL DEFAULT '[]',
        last_sign_in_at INTEGER NOT NULL,
        PRIMARY KEY (provider, subject)
      )`.execute(db);
      await sql`CREATE TABLE sso_groups (
        provider TEXT NOT NULL CHECK (provider IN ('ldap', 'oidc', 'saml')),
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
        first_seen_at INTEGER NOT NULL,
        PRIMARY KEY (provider, name)
      )`.execute(db);
      await sql`CREATE TABLE sso_admin_emails (email TEXT PRIMARY KEY)`.execute(db);
    },
  },
  {
    version: 14,
    name: 'saml single logout',
    async up(db) {
      // The IdP's name for a SAML session (NameID, SessionIndex), so a LogoutRequest from the
      // IdP finds the Capstan sessions it ends and a sign-out can name it to the IdP. The
      // session goes, its row goes with it.
      await sql`CREATE TABLE saml_sessions (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
        name_id TEXT NOT NULL,
        name_id_format TEXT,
        session_index TEXT,
        created_at INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX saml_sessions_name_id ON saml_sessions(name_id)`.execute(db);
    },
  },
  {
    version: 15,
    name: 'oauth clients: last authorization and deletion',
    async up(db) {
      // Registration is anonymous, so clients no user ever authorized expire (runtime/oauth/oauth.ts):
      // that needs to know whether, and when, a user last approved one. A client an admin deleted
      // stays as a row (deleted_at) while its tokens do, so they answer "revoked", not "unknown".
      await sql`ALTER TABLE oauth_clients ADD COLUMN last_authorized_at INTEGER`.execute(db);
      await sql`ALTER TABLE oauth_clients ADD COLUMN deleted_at INTEGER`.execute(db);
      // Clients authorized before this migration: their newest token or code says when.
      await sql`UPDATE oauth_clients SET last_authorized_at = (
        SELECT max(t) FROM (
          SELECT max(created_at) AS t FROM oauth_tokens WHERE oauth_tokens.client_id = oauth_clients.id
          UNION ALL
          SELECT max(expires_at) - 600000 AS t FROM oauth_codes WHERE oauth_codes.client_id = oauth_clients.id
        )
      )`.execute(db);
    },
  },
  {
    version: 16,
    name: 'saved topology layouts',
    async up(db) {
      // One per user and focus: a person's own arrangement, gone with the account.
      await sql`CREATE TABLE topology_layouts (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        focus TEXT NOT NULL,
        positions TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, focus)
      )`.execute(db);
    },
  },
  {
    version: 17,
    name: 'terminal session audit and command records',
    async up(db) {
      // Spec §6: the terminal session audit (180 days) and the command record (account,
      // timestamp, session, namespace, the command redacted; output never stored). Kept by
      // session id, not by user row, so a deleted account's sessions stay on record.
      await sql`CREATE TABLE terminal_sessions (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        role TEXT NOT NULL,
        namespace TEXT NOT NULL,
        client_ip TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        end_reason TEXT
      )`.execute(db);
      await sql`CREATE INDEX terminal_sessions_started ON terminal_sessions (started_at)`.execute(db);
      await sql`CREATE TABLE terminal_commands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        namespace TEXT NOT NULL,
        at INTEGER NOT NULL,
        command TEXT NOT NULL
      )`.execute(db);
      await sql`CREATE INDEX terminal_commands_at ON terminal_commands (at)`.execute(db);
      await sql`CREATE INDEX terminal_commands_session ON terminal_commands (session_id, id)`.execute(db);
    },
  },
  {
    version: 18,
    name: 'tasks and when each admin last opened the tray',
    async up(db) {
      // Spec §2 Task row, §3 Task states (domain/tasks/task.ts). Rows are never removed by a
      // mute or a dismiss; they go with the audit-like retention of the tasks themselves.
      await sql`CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        actor TEXT NOT NULL,
        state TEXT NOT NULL,
        reason TEXT,
        detail TEXT NOT NULL,
        consequence TEXT,
        started_at INTEGER NOT NULL,
        ended_at INTEGER
      )`.execute(db);
      await sql`CREATE INDEX tasks_started ON tasks (started_at)`.execute(db);
      await sql`CREATE TABLE task_tray_opened (
        user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        opened_at INTEGER NOT NULL
      )`.execute(db);
    },
  },
  {
    version: 19,
    name: 'saved Helm configs, their passwords sealed',
    async up(db) {
      // docs/helm.md "Saved configs": the password is sealed with the at-rest key and read only
      // by the agent itself, for the one fetch it authenticates; no route answers it.
      await sql`CREATE TABLE helm_configs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        username TEXT,
        password_sealed TEXT,
        plain_http INTEGER NOT NULL DEFAULT 0,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`.execute(db);
    },
  },
  {
    version: 20,
    name: 'muting the Tasks toasts',
    async up(db) {
      // Spec §3: mute never removes a row; it only stops this admin's toasts.
      await sql`ALTER TABLE task_tray_opened ADD COLUMN muted INTEGER NOT NULL DEFAULT 0`.execute(db);
    },
  },
  {
    version: 21,
    name: 'pod shells in the terminal session audit',
    async up(db) {
      // A pod exec session is a terminal session whose shell ran in a pod's container.
      await sql`ALTER TABLE terminal_sessions ADD COLUMN target TEXT`.execute(db);
    },
  },
];
