// The AI namespace scope (AI Guardrails): an AI run sees only these namespaces, within what the
// caller may see anyway. The narrowed context is what every tool, the diagnosis and the context
// assembly read, so a namespace outside it never reaches a prompt. Its caches are its own: the
// overview and the cluster model are shared per visibility, and a run must never be handed the
// wider answer another request cached.
import { scopeClusterView } from '../../domain/cluster/scoped.ts';
import type { HandlerContext, Memo } from '../context.ts';

/** No namespace can have this name (a NUL): scoping to it alone shows nothing. */
const NOTHING = '\u0000';

export function narrowToAiScope(ctx: HandlerContext, scope: readonly string[]): HandlerContext {
  if (scope.length === 0) return ctx;
  const visible = [...new Set(scope)].filter((ns) => ctx.cluster.inScope(ns)).sort();
  const view = scopeClusterView(ctx.cluster, visible.length === 0 ? [NOTHING] : visible);
  const prefix = `ai-scope:${visible.join(',')}:`;
  const memo: Memo = {
    get: (key, ttlMs, compute) => ctx.memo.get(prefix + key, ttlMs, compute),
    derive: (key, sources, minAgeMs, compute) => ctx.memo.derive(prefix + key, sources, minAgeMs, compute),
  };
  return { ...ctx, cluster: { ...view, inScope: (ns: string) => ctx.cluster.inScope(ns) && view.inScope(ns) }, memo, settings: { ...ctx.settings, tenantNamespaces: visible.length === 0 ? [NOTHING] : visible } };
}
