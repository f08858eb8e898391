// Verified credential rows, kept briefly so an authenticated read does not query the database
// on every request (issue 13: the key lookup was the largest share of the read path's cost).
//
// An entry is used only while (1) no write to the credential tables has passed through this
// process's database handle since its row was read (TableWriteWatch), and (2) it is younger
// than CREDENTIAL_CACHE_MS by the injected clock. So a revocation, deactivation, demotion or
// sign-out made through this agent takes effect on the very next request, and one made by
// another process on the same database (the recovery CLIs) within CREDENTIAL_CACHE_MS.
// Expiry, idle timeout and the secret itself are still checked on every request.
import type { Clock } from '../../domain/clock.ts';

/** The longest a credential change made outside this process can go unseen (docs/security.md). */
export const CREDENTIAL_CACHE_MS = 2000;
/** Entries kept at once; the oldest goes first, so a spray of distinct credentials cannot grow it. */
const MAX_ENTRIES = 10_000;

/** What tells the cache that a credential table was written (runtime/store/write-watch.ts). */
export interface WriteGeneration {
  current(): number;
}

interface Entry<T> {
  value: T;
  at: number;
  generation: number;
}

export class CredentialCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  /** `writes` null: nothing tells this process about writes, so nothing is ever served from the cache. */
  constructor(
    private readonly clock: Clock,
    private readonly writes: WriteGeneration | null,
  ) {}

  /** Read before querying the row that will be `set`, so a write racing the query invalidates it. */
  generation(): number {
    return this.writes?.current() ?? -1;
  }

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.writes === null) return undefined;
    const age = this.clock.now().getTime() - entry.at;
    if (entry.generation !== this.writes.current() || age < 0 || age >= CREDENTIAL_CACHE_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, generation: number): void {
    if (this.writes === null) return;
    this.entries.delete(key);
    this.entries.set(key, { value, at: this.clock.now().getTime(), generation });
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
