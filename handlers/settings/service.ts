import type { SettingKey, SettingValues } from '../../schema/settings.ts';

/** Settings an admin edits at runtime (and the recovery CLIs), persisted in the database. */
export interface RuntimeSettings {
  get<K extends SettingKey>(key: K): Promise<SettingValues[K]>;
  set<K extends SettingKey>(key: K, value: SettingValues[K]): Promise<void>;
}

/** Encryption at rest for stored credentials. */
export interface Secrets {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/**
 * The outbound policy's save-time check of a URL an admin configures for outbound calls (the AI
 * provider's base URL, the audit webhook): why it cannot be saved, or null (runtime/outbound/,
 * domain/outbound/address.ts; docs/security.md "Outbound calls").
 */
export interface OutboundUrls {
  /** `base`: paths are appended (no query); `endpoint`: posted to as it is. */
  problem(url: string, use: 'base' | 'endpoint'): string | null;
}
