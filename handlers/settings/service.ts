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
