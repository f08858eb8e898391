// Custom resources from caches started on first use: the CRDs (which kinds exist) once anyone
// browses them, and one list-then-watch cache per custom kind someone opened, stopped after
// it has gone unread for a while. A request never LISTs: it reads a cache, waiting a few
// seconds for a new one's first LIST. Bounded: at most `maxKinds` kinds watched at once and
// `maxObjects` objects kept per kind. docs/resources.md "Custom resources".
import type { CustomKind, CustomKindsRead, CustomObject, CustomObjectsRead, CustomResourceCatalog } from '../../domain/resources/custom.ts';
import type { Logger } from '../log.ts';
import type { KubeTransport } from './client.ts';
import { Informer } from './informer.ts';
import { slimCustomDefinition, slimCustomObject } from './slim-custom.ts';

export interface CustomResourceLimits {
  /** Custom kinds watched at once; the least recently read one idle for a minute makes room. */
  maxKinds: number;
  /** Objects kept per kind (the list says `truncated` past it). */
  maxObjects: number;
  /** A kind unread this long is no longer watched. */
  idleMs: number;
  /** How long a request waits for a new cache's first LIST before answering 503. */
  firstSyncWaitMs: number;
}

export const CUSTOM_RESOURCE_LIMITS: CustomResourceLimits = { maxKinds: 8, maxObjects: 10_000, idleMs: 10 * 60_000, firstSyncWaitMs: 5000 };

/** A kind must be unread this long before another may take its place. */
const EVICTABLE_AFTER_MS = 60_000;

interface Watched {
  kind: CustomKind;
  informer: Informer<CustomObject>;
  synced: Promise<void>;
  lastRead: number;
}

export interface RunningCustomResources extends CustomResourceCatalog {
  stop(): void;
}

/** Resolves true once `promise` settled within `ms`, false otherwise. */
function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

export function createCustomResources(transport: KubeTransport, log: Logger, now: () => number = Date.now, limits: CustomResourceLimits = CUSTOM_RESOURCE_LIMITS): RunningCustomResources {
  let definitions: { informer: Informer<CustomKind>; synced: Promise<void> } | null = null;
  const watched = new Map<string, Watched>();
  let stopped = false;

  const sweep = setInterval(() => {
    for (const [name, w] of watched) {
      if (now() - w.lastRead < limits.idleMs) continue;
      w.informer.stop();
      watched.delete(name);
      log.info('custom kind unread; no longer watched', { kind: name });
    }
  }, Math.min(60_000, limits.idleMs));
  sweep.unref();

  const definitionsCache = () => {
    if (definitions === null) {
      const informer = new Informer<CustomKind>({ resource: 'customresourcedefinitions', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', transport, slim: slimCustomDefinition, log });
      definitions = { informer, synced: informer.start() };
    }
    return definitions;
  };

  const kinds = async (): Promise<CustomKindsRead> => {
    if (stopped) return { ok: false, status: 'not_ready', reason: 'the agent is stopping' };
    const { informer, synced } = definitionsCache();
    if (!(await within(synced, limits.firstSyncWaitMs))) return { ok: false, status: 'not_ready', reason: 'still reading the cluster\'s CRDs; try again in a few seconds' };
    if (informer.status().forbidden) return { ok: false, status: 'forbidden', reason: 'the agent may not list CustomResourceDefinitions (its ClusterRole grants them in every install; check its RBAC)' };
    return { ok: true, kinds: informer.values() };
  };

  /** Room for one more watched kind: the least recently read one, if it has rested a minute. */
  const makeRoom = (): boolean => {
    if (watched.size < limits.maxKinds) return true;
    const oldest = [...watched.entries()].sort((a, b) => a[1].lastRead - b[1].lastRead)[0];
    if (oldest === undefined || now() - oldest[1].lastRead < EVICTABLE_AFTER_MS) return false;
    oldest[1].informer.stop();
    watched.delete(oldest[0]);
    return true;
  };

  const watch = (kind: CustomKind): Watched => {
    const informer = new Informer<CustomObject>({ resource: kind.name, path: `/apis/${kind.group}/${kind.version}/${kind.plural}`, transport, slim: slimCustomObject, log, maxObjects: limits.maxObjects });
    const w: Watched = { kind, informer, synced: informer.start(), lastRead: now() };
    watched.set(kind.name, w);
    log.info('watching custom kind', { kind: kind.name, version: kind.version });
    return w;
  };

  const objects = async (group: string, plural: string): Promise<CustomObjectsRead> => {
    const known = await kinds();
    if (!known.ok) return { ok: false, status: 'not_ready', reason: known.reason };
    const kind = known.kinds.find((k) => k.group === group && k.plural === plural);
    if (kind === undefined) return { ok: false, status: 'unknown_kind', reason: `the cluster serves no custom kind ${plural}.${group}` };
    let w = watched.get(kind.name);
    // A CRD whose served version or scope changed is watched afresh at the new path.
    if (w !== undefined && (w.kind.version !== kind.version || w.kind.namespaced !== kind.namespaced)) {
      w.informer.stop();
      watched.delete(kind.name);
      w = undefined;
    }
    if (w === undefined) {
      if (!makeRoom()) return { ok: false, status: 'busy', reason: `${limits.maxKinds} custom kinds are being read already; try again in a minute` };
      w = watch(kind);
    }
    w.lastRead = now();
    if (!(await within(w.synced, limits.firstSyncWaitMs))) return { ok: false, status: 'not_ready', reason: `still reading ${kind.name}; try again in a few seconds` };
    const forbidden = w.informer.status().forbidden;
    return {
      ok: true,
      kind,
      objects: w.informer.values(),
      truncated: w.informer.truncated(),
      unreadable: forbidden ? `the agent's RBAC does not let it list ${kind.name} (chart: add ${kind.group} to rbac.customResourceGroups)` : null,
    };
  };

  return {
    kinds,
    objects,
    stop() {
      stopped = true;
      clearInterval(sweep);
      definitions?.informer.stop();
      for (const w of watched.values()) w.informer.stop();
      watched.clear();
    },
  };
}

/** For tests and installs without a cluster. */
export const noCustomResources: CustomResourceCatalog = {
  kinds: () => Promise.resolve({ ok: false, status: 'not_ready', reason: 'no cluster' }),
  objects: () => Promise.resolve({ ok: false, status: 'not_ready', reason: 'no cluster' }),
};
