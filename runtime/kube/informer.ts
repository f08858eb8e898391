import { isDeepStrictEqual } from 'node:util';
import type { CacheSyncStatus } from '../../domain/cluster/model.ts';
import type { Logger } from '../log.ts';
import { KubeApiError, type KubeRequestOptions, type KubeTransport } from './client.ts';

export interface InformerOptions<T> {
  /** Shown in logs and /readyz. */
  resource: string;
  /** The one namespace this informer lists (a per-namespace watch), for logs and /readyz; absent for a cluster-wide list. */
  namespace?: string;
  /** Collection path, e.g. `/api/v1/namespaces`, `/api/v1/pods` or `/api/v1/namespaces/shop/pods`. */
  path: string;
  transport: KubeTransport;
  /** Keeps only what the service reads; returns null to drop an object entirely. */
  slim: (raw: unknown) => T | null;
  log: Logger;
  pageSize?: number;
  /** How long one WATCH may stay open before the server ends it and we resume. */
  watchTimeoutSecs?: number;
  retryDelayMs?: number;
  /**
   * When RBAC forbids the LIST (403: Secrets without rbac.readSecrets, pods outside the
   * namespaces a restricted install was granted) the informer counts as synced and empty,
   * reports itself forbidden instead of holding /readyz back forever, and asks again this often.
   */
  forbiddenRetryMs?: number;
  /** LIST and WATCH PartialObjectMetadata only (Secrets: their data never reaches the agent). */
  metadataOnly?: boolean;
  /**
   * Objects kept at most (custom resources, whose count nobody bounds): past it a new object is
   * not kept and `truncated()` says so until a LIST fits again. Unbounded when absent.
   */
  maxObjects?: number;
  /** Only objects with these labels (`owner=helm`: Helm's release Secrets, nothing else of the kind). */
  labelSelector?: string;
}

interface ObjectMeta {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/**
 * List-then-watch cache of one resource, holding slimmed objects only. A WATCH that ends
 * resumes from the last seen resourceVersion (bookmarks keep it fresh); 410 Gone, or any
 * failure, relists from scratch.
 */
export class Informer<T> {
  private readonly store = new Map<string, T>();
  /** values() until the store next changes: readers (and what they derive) keep it by identity. */
  private snapshot: readonly T[] | null = null;
  private resourceVersion = '';
  private synced = false;
  private failing: Date | null = null;
  private forbidden = false;
  private overflowed = false;
  private stopped = false;
  private current: { abort(): void } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly firstSync: Promise<void>;
  private resolveFirstSync: () => void = () => undefined;

  constructor(private readonly options: InformerOptions<T>) {
    this.firstSync = new Promise((resolve) => (this.resolveFirstSync = resolve));
  }

  get resource(): string {
    return this.options.resource;
  }

  /** Resolves after the first complete LIST; the watch keeps running in the background. */
  start(): Promise<void> {
    void this.relist();
    return this.firstSync;
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.current?.abort();
  }

  /**
   * Since when this cache has been unable to refresh: set at the first failed LIST or WATCH
   * that ended with an error (410 Gone is not a failure: it relists at once), cleared by the
   * next complete LIST. Null while the watch is healthy.
   */
  failingSince(): Date | null {
    return this.failing;
  }

  /** This informer's line in /readyz and ClusterView.syncStatus(). */
  status(): CacheSyncStatus {
    const forbidden = this.forbidden;
    return {
      resource: this.options.resource,
      synced: this.synced,
      failing_since: this.failing?.toISOString() ?? null,
      forbidden,
      forbidden_namespaces: forbidden && this.options.namespace !== undefined ? [this.options.namespace] : [],
    };
  }

  /** Whether objects were left out because the store held `maxObjects`. */
  truncated(): boolean {
    return this.overflowed;
  }

  /** Every object, as one array that stays the same until the store changes (never mutated once handed out). */
  values(): readonly T[] {
    this.snapshot ??= [...this.store.values()];
    return this.snapshot;
  }

  private selector(): Record<string, string> {
    return this.options.labelSelector === undefined ? {} : { labelSelector: this.options.labelSelector };
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    const { transport, path, slim, pageSize = 500 } = this.options;
    try {
      const fresh = new Map<string, T>();
      let continueToken: string | undefined;
      let resourceVersion = '';
      this.overflowed = false;
      do {
        const params: Record<string, string> = { limit: String(pageSize), ...this.selector() };
        if (continueToken) params.continue = continueToken;
        const page = await transport.list(path, params, this.requestOptions());
        for (const raw of page.items) this.put(fresh, raw, slim);
        resourceVersion = page.resourceVersion;
        continueToken = page.continueToken;
      } while (continueToken);
      this.store.clear();
      for (const [k, v] of fresh) this.store.set(k, v);
      this.snapshot = null;
      this.forbidden = false;
      this.resourceVersion = resourceVersion;
      if (this.failing) {
        this.options.log.info('informer recovered', { ...this.where(), failingSince: this.failing.toISOString() });
        this.failing = null;
      }
      if (!this.synced) {
        this.synced = true;
        this.options.log.info('informer synced', { ...this.where(), objects: this.store.size });
        this.resolveFirstSync();
      }
      await this.watch();
    } catch (err) {
      // Any refusal by RBAC degrades what reads this resource; it never blocks readiness.
      if ((err instanceof KubeApiError ? err.status : statusOf(err)) === 403) {
        this.forbiddenNow(describe(err));
        return;
      }
      // A 410 on the continue token means the snapshot expired mid-list: start over.
      this.options.log.warn('list failed; retrying', { ...this.where(), error: describe(err) });
      this.markFailing();
      this.retryLater(() => this.relist());
    }
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const { transport, path, slim, watchTimeoutSecs = 300 } = this.options;
    let gone = false;
    const params = {
      ...this.selector(),
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(watchTimeoutSecs),
    };
    const watching = await transport.watch(
      path,
      params,
      (type, object) => {
        const meta = (object as ObjectMeta).metadata;
        if (type === 'ERROR') {
          if ((object as { code?: number }).code === 410) gone = true;
          return;
        }
        if (meta?.resourceVersion) this.resourceVersion = meta.resourceVersion;
        if (type === 'BOOKMARK') return;
        // Only a change to what the cache keeps makes a new snapshot: a status heartbeat or a
        // field the slimmer drops leaves readers (and everything derived from the snapshot's
        // identity: namespace indexes, the cluster model) on the same array.
        const changed = type === 'DELETED' ? this.store.delete(keyOf(meta?.namespace, meta?.name ?? '')) : this.put(this.store, object, slim);
        if (changed) this.snapshot = null;
      },
      (err) => {
        if (this.stopped) return;
        if (gone || (err instanceof KubeApiError && err.status === 410) || statusOf(err) === 410) {
          this.options.log.info('watch expired (410 Gone); relisting', this.where());
          void this.relist();
        } else if (err) {
          this.options.log.warn('watch failed; relisting', { ...this.where(), error: describe(err) });
          this.markFailing();
          this.retryLater(() => this.relist());
        } else {
          void this.watch();
        }
      },
      this.requestOptions(),
    );
    // Stopped while the watch was connecting: end it now, or it lives until its own timeout
    // (watchTimeoutSecs) and holds the process open that long.
    if (this.hasStopped()) watching.abort();
    else this.current = watching;
  }

  /** Read afresh after an await (a stop may have come meanwhile; the type checker cannot see that). */
  private hasStopped(): boolean {
    return this.stopped;
  }

  private requestOptions(): KubeRequestOptions {
    return { metadataOnly: this.options.metadataOnly === true };
  }

  /** Whether `into` changed: a slimmed object equal to the one held is not a change. */
  private put(into: Map<string, T>, raw: unknown, slim: (raw: unknown) => T | null): boolean {
    const meta = (raw as ObjectMeta).metadata;
    if (!meta?.name) return false;
    const value = slim(raw);
    const key = keyOf(meta.namespace, meta.name);
    if (value === null) return into.delete(key);
    const held = into.get(key);
    if (held !== undefined && isDeepStrictEqual(held, value)) return false;
    if (held === undefined && this.options.maxObjects !== undefined && into.size >= this.options.maxObjects) {
      this.overflowed = true;
      return false;
    }
    into.set(key, value);
    return true;
  }

  /** RBAC said no: nothing of this kind is visible, which is an answer, not a failure. */
  private forbiddenNow(reason: string): void {
    if (!this.forbidden) this.options.log.warn('not allowed to list; treating as empty', { ...this.where(), error: reason });
    this.forbidden = true;
    this.store.clear();
    this.snapshot = null;
    this.failing = null;
    if (!this.synced) {
      this.synced = true;
      this.resolveFirstSync();
    }
    if (!this.stopped) this.retryTimer = setTimeout(() => void this.relist(), this.options.forbiddenRetryMs ?? 300_000);
  }

  /** What the log lines name: the resource, and the namespace of a per-namespace informer. */
  private where(): Record<string, string> {
    const { resource, namespace } = this.options;
    return namespace === undefined ? { resource } : { resource, namespace };
  }

  private markFailing(): void {
    this.failing ??= new Date();
  }

  private retryLater(fn: () => Promise<void>): void {
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => void fn(), this.options.retryDelayMs ?? 1000);
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'statusCode' in err && typeof err.statusCode === 'number' ? err.statusCode : undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
