// Answers derived from a source that is handed out as the same object until it changes (the
// informer cache's arrays, the whole-cluster diagnosis, the security evaluation), and per
// visible set: each derived answer is kept for as long as its source is the same one.
import { isVisibleNamespace } from './namespaces/visibility.ts';

/** `derive(read())`, recomputed only when `read` returns a different object than last time. */
export function keptWhile<S extends object, T>(read: () => S, derive: (source: S) => T): () => T {
  let source: S | null = null;
  let derived: T | null = null;
  return () => {
    const now = read();
    if (now !== source || derived === null) {
      source = now;
      derived = derive(now);
    }
    return derived;
  };
}

/** How many narrowed scopes one scoped answer keeps (AI namespace scopes: an admin sets a few). */
export const NARROWINGS_KEPT = 16;

/**
 * `narrow(tenantNamespaces)`: the answer `make` builds for what `inScope` admits and, within it,
 * what `tenantNamespaces` names (system namespaces never; an empty list narrows nothing). The
 * same list gives the same object, so its answers stay kept; the oldest of more than
 * NARROWINGS_KEPT lists is let go.
 */
export function narrowings<T>(inScope: (namespace: string) => boolean, make: (inScope: (namespace: string) => boolean) => T): (tenantNamespaces: readonly string[]) => T {
  const kept = new Map<string, T>();
  return (tenantNamespaces) => {
    const key = [...new Set(tenantNamespaces)].sort().join('\u0000');
    let narrowed = kept.get(key);
    if (narrowed === undefined) {
      const names = [...tenantNamespaces];
      narrowed = make((namespace) => inScope(namespace) && isVisibleNamespace(namespace, names));
      if (kept.size >= NARROWINGS_KEPT) kept.delete(kept.keys().next().value ?? '');
      kept.set(key, narrowed);
    }
    return narrowed;
  };
}
