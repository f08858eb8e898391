// The embedded database's tables, as Kysely sees them. Times are epoch milliseconds.
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  role: 'admin' | 'viewer';
  password_hash: string | null;
  active: number;
  created_at: number;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  last_seen_at: number;
  ip: string;
}

export interface LoginFailuresTable {
  username: string;
  ip: string;
  count: number;
  first_failed_at: number;
  locked_until: number | null;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  schema_migrations: SchemaMigrationsTable;
}
