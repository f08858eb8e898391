import type { Clock } from '../../domain/clock.ts';
import type { Memo } from '../../handlers/context.ts';

/** In-process answer cache keyed by name; a stale entry is recomputed by the next caller. */
export function createMemo(clock: Clock): Memo {
  const entries = new Map<string, { value: unknown; cachedAt: Date }>();
  return {
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
