import * as v from 'valibot';
import type { Clock } from '../../domain/clock.ts';
import { SETTING_SCHEMAS, type SettingKey, type SettingValues } from '../../schema/settings.ts';
import type { Db } from './database.ts';

/**
 * Cached this long, so a change made by another process (the recovery CLIs write the same
 * database while the agent runs) is seen within seconds without a query per request.
 */
const CACHE_MS = 3000;

/** Runtime settings over the `settings` table; a key never written reads as its default. */
export class SettingsStore {
  private readonly cache = new Map<SettingKey, { value: unknown; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly defaults: SettingValues,
  ) {}

  async get<K extends SettingKey>(key: K): Promise<SettingValues[K]> {
    const t = this.clock.now().getTime();
    const cached = this.cache.get(key);
    if (cached && t - cached.at < CACHE_MS && t >= cached.at) return cached.value as SettingValues[K];
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    const value = row ? this.decode(key, row.value) : this.defaults[key];
    this.cache.set(key, { value, at: t });
    return value;
  }

  /** The last value read or written in this process (the default before any read): for synchronous callers. */
  peek<K extends SettingKey>(key: K): SettingValues[K] {
    return (this.cache.get(key)?.value as SettingValues[K] | undefined) ?? this.defaults[key];
  }

  async set<K extends SettingKey>(key: K, value: SettingValues[K]): Promise<void> {
    const checked = v.parse(SETTING_SCHEMAS[key], value);
    const text = JSON.stringify(checked);
    const t = this.clock.now().getTime();
    await this.db
      .insertInto('settings')
      .values({ key, value: text, updated_at: t })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: t }))
      .execute();
    this.cache.set(key, { value: checked, at: t });
  }

  /** A stored value that no longer parses (hand-edited, older shape) falls back to the default, merged field by field. */
  private decode<K extends SettingKey>(key: K, text: string): SettingValues[K] {
    let stored: unknown;
    try {
      stored = JSON.parse(text);
    } catch {
      return this.defaults[key];
    }
    const merged = typeof stored === 'object' && stored !== null ? { ...this.defaults[key], ...stored } : stored;
    const parsed = v.safeParse(SETTING_SCHEMAS[key], merged);
    return parsed.success ? (parsed.output as SettingValues[K]) : this.defaults[key];
  }
}
