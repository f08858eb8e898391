import type { Clock } from '../../domain/clock.ts';
import type { Memo } from '../../handlers/context.ts';

/** In-process answer cache keyed by name; a stale entry is recomputed by the next caller. */
export function createMemo(clock: Clock): Memo {
  const entries = new Map<string, { value: unknown; cachedAt: Date }>();
  const derived = new Map<string, { value: unknown; sources: readonly unknown[]; at: number }>();
  return {
    derive<T>(key: string, sources: readonly unknown[], minAgeMs: number, compute: () => T): T {
      const hit = derived.get(key);
      const t = clock.now().getTime();
      if (hit) {
        const same = hit.sources.length === sources.length && hit.sources.every((source, i) => source === sources[i]);
        const young = t >= hit.at && t - hit.at < minAgeMs;
        if (same || young) return hit.value as T;
      }
      const value = compute();
      derived.set(key, { value, sources, at: t });
      return value;
    },
    get<T>(key: string, ttlMs: number, compute: () => T) {
      const now = clock.now();
      const hit = entries.get(key);
      if (hit && now.getTime() - hit.cachedAt.getTime() < ttlMs && now >= hit.cachedAt) return hit as { value: T; cachedAt: Date };
      const fresh = { value: compute(), cachedAt: now };
      entries.set(key, fresh);
      return fresh;
    },
  };
}
