// The AI namespace scope (AI Guardrails): an AI run sees only these namespaces, within what the
// caller may see anyway. The narrowed context is what every tool, the diagnosis and the context
// assembly read, so a namespace outside it never reaches a prompt: the cluster and every answer
// derived from it (the diagnosis, the posture, the scanner reports) are narrowed together. Its
// caches are its own: the overview and the cluster model are shared per visibility, and a run
// must never be handed the wider answer another request cached.
import { scopeClusterView } from '../../domain/cluster/scoped.ts';
import type { HandlerContext, Memo } from '../context.ts';
import { namespaceRefusal } from '../namespaces/scope.ts';

/** No namespace can have this name (a NUL): scoping to it alone shows nothing. */
const NOTHING = '\u0000';

export function narrowToAiScope(ctx: HandlerContext, scope: readonly string[]): HandlerContext {
  if (scope.length === 0) return ctx;
  const visible = [...new Set(scope)].filter((ns) => namespaceRefusal(ctx.cluster, ns) === null).sort();
  const tenantNamespaces = visible.length === 0 ? [NOTHING] : visible;
  const prefix = `ai-scope:${visible.join(',')}:`;
  const memo: Memo = {
    get: (key, ttlMs, compute) => ctx.memo.get(prefix + key, ttlMs, compute),
    derive: (key, sources, minAgeMs, compute) => ctx.memo.derive(prefix + key, sources, minAgeMs, compute),
  };
  return {
    ...ctx,
    // Within the caller's view: `visible` holds only namespaces it shows.
    cluster: scopeClusterView(ctx.cluster, tenantNamespaces),
    diagnosis: ctx.diagnosis.narrow(tenantNamespaces),
    posture: ctx.posture.narrow(tenantNamespaces),
    scannerReports: ctx.scannerReports.narrow(tenantNamespaces),
    memo,
    settings: { ...ctx.settings, tenantNamespaces },
  };
}
